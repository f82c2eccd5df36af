// The central barrier's wait hint (smp transport), run by gannet-run at 3 ranks with
// GANNET_BARRIER=central. Ranks 0 and 1 are pinned to one CPU and rank 2 to another, then
// arrive one at a time, in an order rank 0 controls, at a barrier driven through the
// transport directly:
//   - rank 1 (same CPU as rank 0) has not arrived: rank 0 must yield its core to it;
//   - only rank 2 (another CPU) is missing: rank 0 must spin;
// and the barrier still completes everywhere, followed by ordinary barriers.
// With fewer than 2 CPUs it prints SKIP (the situation cannot be built).
#include <sched.h>

#include <atomic>
#include <cstdio>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"

namespace {

using hint = gannet::transport::transport::wait_hint;

// Pins the calling process to one CPU; returns false if the kernel refuses.
bool pin_to(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return ::sched_setaffinity(0, sizeof one, &one) == 0 && ::sched_getcpu() == cpu;
}

// Waits, yielding (the two ranks pinned to one CPU must let each other run), until `flag`
// reaches `value`.
void await(std::atomic_ref<long> flag, long value) {
  while (flag.load(std::memory_order_acquire) < value) ::sched_yield();
}

}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();
  SPMD_CHECK(upcxx::rank_n() == 3);

  cpu_set_t allowed;
  SPMD_CHECK(::sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  int cpus[2], found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2) {
    if (me == 0) std::printf("SKIP: needs 2 CPUs\n");
    upcxx::finalize();
    return 0;
  }
  SPMD_CHECK(pin_to(cpus[me == 2 ? 1 : 0]));

  // flags[0]: how far rank 0 has got (1: rank 1 may arrive, 2: rank 2 may arrive);
  // flags[1 + r]: rank r has arrived.
  upcxx::global_ptr<long> mine = upcxx::new_array<long>(4);
  for (int i = 0; i < 4; ++i) mine.local()[i] = 0;
  long* flags = gannet::all_gather(mine)[0].local();
  auto flag = [&](int i) { return std::atomic_ref<long>(flags[i]); };
  upcxx::barrier();

  auto& tp = gannet::runtime::the_transport();
  if (me == 0) {
    tp.barrier_arrive();
    SPMD_CHECK(!tp.barrier_test());
    SPMD_CHECK(tp.barrier_wait_hint() == hint::yield);  // rank 1 waits for this core
    flag(0).store(1, std::memory_order_release);
    await(flag(2), 1);
    SPMD_CHECK(!tp.barrier_test());
    SPMD_CHECK(tp.barrier_wait_hint() == hint::spin);  // only rank 2, on the other CPU
    flag(0).store(2, std::memory_order_release);
    while (!tp.barrier_test()) ::sched_yield();
  } else {
    await(flag(0), me);
    tp.barrier_arrive();
    flag(1 + me).store(1, std::memory_order_release);
    while (!tp.barrier_test()) ::sched_yield();
  }

  // The barrier's count is intact: ordinary barriers still separate phases.
  for (int round = 1; round <= 200; ++round) {
    if (me == round % 3) flag(3).store(round, std::memory_order_relaxed);
    upcxx::barrier();
    SPMD_CHECK(flag(3).load(std::memory_order_relaxed) == round);
    upcxx::barrier();
  }
  upcxx::barrier();
  upcxx::delete_array(mine);
  if (me == 0) std::printf("barrier hint: OK\n");
  upcxx::finalize();
  return 0;
}
