// Foundation figures next to the limits measured in the same run:
//   barrier() latency (ns per barrier) at the job's rank count, against the cross-process
//   cache-line half round trip and against plain_barrier: the same processes meeting through
//   one atomic counter in shared memory with no library (waiting with sched_yield when ranks
//   outnumber cores, as they must then let each other run; yield_handover is the cost of
//   one such context switch); against aware_barrier, the same counter whose waiters yield
//   only while a rank that has not arrived last ran on their CPU (the rule Gannet's central
//   barrier follows; without oversubscription it is plain_barrier); and a store through
//   global_ptr::local() into another rank's heap, against the plain 8-byte store loop.
// Run: gannet-run -n 2 gannet-bench-foundation   (rank 0 prints; min and median of repeats)
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

int main() {
  const gb::limits lim = gb::print_limits_on_first_rank();
  gb::stats handover{};
  if (!std::getenv("GANNET_RANK") || std::atoi(std::getenv("GANNET_RANK")) == 0) {
    handover = gb::yield_handover();
    gb::print_row("yield_handover", handover, "switch");
  }

  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();

  // ---- barrier, alternating with the plain barrier of the same processes ----
  cpu_set_t cpus;
  int cores = ::sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  const bool oversubscribed = n > cores;
  auto counter_here = upcxx::new_array<std::uint64_t>(2);
  auto counter = gannet::all_gather(counter_here)[0];
  auto* arrivals = counter.local();
  std::uint64_t plain_epoch = 0;
  auto plain_barrier = [&] {
    ++plain_epoch;
    std::atomic_ref<std::uint64_t> count(arrivals[0]), done(arrivals[1]);
    if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == plain_epoch * n) {
      done.store(plain_epoch, std::memory_order_release);
      return;
    }
    while (done.load(std::memory_order_acquire) < plain_epoch)
      if (oversubscribed) ::sched_yield();
  };
  // Line 0: arrivals and done; line 1 + r: rank r's last barrier and CPU.
  constexpr int line = 8;  // words per cache line
  auto aware_here = upcxx::new_array<std::uint64_t>(line * (1 + n));
  auto* aware = gannet::all_gather(aware_here)[0].local();
  for (int i = 0; i < line * (1 + n); ++i) aware[i] = 0;
  upcxx::barrier();
  std::uint64_t aware_epoch = 0;
  auto aware_barrier = [&] {
    ++aware_epoch;
    std::atomic_ref<std::uint64_t> count(aware[0]), done(aware[1]);
    auto epoch_of = [&](int r) { return std::atomic_ref<std::uint64_t>(aware[line * (1 + r)]); };
    auto cpu_of = [&](int r) { return std::atomic_ref<std::uint64_t>(aware[line * (1 + r) + 1]); };
    cpu_of(me).store(static_cast<std::uint64_t>(::sched_getcpu()), std::memory_order_relaxed);
    epoch_of(me).store(aware_epoch, std::memory_order_relaxed);
    if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == aware_epoch * n) {
      done.store(aware_epoch, std::memory_order_release);
      return;
    }
    unsigned spins = 0;
    while (done.load(std::memory_order_acquire) < aware_epoch) {
      if (!oversubscribed) continue;
      auto const cpu = static_cast<std::uint64_t>(::sched_getcpu());
      cpu_of(me).store(cpu, std::memory_order_relaxed);
      bool needed = false;
      for (int r = 0; r < n && !needed; ++r)
        needed = epoch_of(r).load(std::memory_order_relaxed) < aware_epoch &&
                 cpu_of(r).load(std::memory_order_relaxed) == cpu;
      if (needed || ++spins >= 256) {
        ::sched_yield();
        spins = 0;
      }
    }
  };
  constexpr int repeats = 15, iters = 20000;
  std::vector<double> per_barrier, per_plain, per_aware;
  for (int r = 0; r < repeats; ++r) {
    upcxx::barrier();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) upcxx::barrier();
    auto t1 = std::chrono::steady_clock::now();
    per_barrier.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
    upcxx::barrier();
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) plain_barrier();
    t1 = std::chrono::steady_clock::now();
    per_plain.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
    upcxx::barrier();
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) aware_barrier();
    t1 = std::chrono::steady_clock::now();
    per_aware.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  auto summarize = [&](const std::vector<double>& per) {
    gb::stats s;
    s.min_ns = *std::min_element(per.begin(), per.end());
    s.median_ns = gb::detail::median_of(per);
    s.repeats = repeats;
    s.ops = iters;
    return s;
  };
  gb::stats bar = summarize(per_barrier), plain = summarize(per_plain), aw = summarize(per_aware);
  upcxx::barrier();
  upcxx::delete_array(counter_here);
  upcxx::delete_array(aware_here);

  // ---- stores through local() into the next rank's heap ----
  constexpr std::size_t words = 32 * 1024 / sizeof(long);  // 32 KiB, as the store limit
  auto mine = upcxx::new_array<long>(words);
  auto all = gannet::all_gather(mine);
  upcxx::global_ptr<long> target = all[(me + 1) % n];
  // The same loop as the store limit (volatile, unrolled by 8), through a pointer that
  // local() translated into the other process's heap.
  gb::stats st = gb::measure([&](std::uint64_t count) {
    std::uint64_t const passes = (count + words - 1) / words;
    for (std::uint64_t pass = 0; pass < passes; ++pass) {
      auto* const p = reinterpret_cast<std::uint64_t volatile*>(target.local());
      for (std::size_t i = 0; i < words; i += 8) {
        p[i + 0] = pass;
        p[i + 1] = pass;
        p[i + 2] = pass;
        p[i + 3] = pass;
        p[i + 4] = pass;
        p[i + 5] = pass;
        p[i + 6] = pass;
        p[i + 7] = pass;
      }
    }
    return passes * words;
  });
  upcxx::barrier();

  if (me == 0) {
    gb::print_row("plain_barrier_n" + std::to_string(n), plain, "barrier", "limit");
    gb::print_row("aware_barrier_n" + std::to_string(n), aw, "barrier", "limit");
    gb::print_row("barrier_n" + std::to_string(n), bar, "barrier", "gannet");
    std::printf("ratio barrier_n%d/pingpong_half_rtt min=%.2f  (round trip: %.2f)\n", n,
                bar.min_ns / lim.pingpong_half_rtt.min_ns, bar.min_ns / (2 * lim.pingpong_half_rtt.min_ns));
    std::printf("ratio barrier_n%d/plain_barrier_n%d min=%.2f\n", n, n, bar.min_ns / plain.min_ns);
    std::printf("ratio barrier_n%d/aware_barrier_n%d min=%.2f\n", n, n, bar.min_ns / aw.min_ns);
    std::printf("ratio plain_barrier_n%d/pingpong_half_rtt min=%.2f  (round trip: %.2f); cores=%d%s\n", n,
                plain.min_ns / lim.pingpong_half_rtt.min_ns, plain.min_ns / (2 * lim.pingpong_half_rtt.min_ns), cores,
                oversubscribed ? " (ranks outnumber cores)" : "");
    if (handover.min_ns > 0 && oversubscribed) {
      // Floor with ranks outnumbering cores: between two barriers every core must run each
      // of its ranks, so at least one context switch per core per barrier.
      std::printf("ratio barrier_n%d/yield_handover min=%.2f\n", n, bar.min_ns / handover.min_ns);
      std::printf("ratio yield_handover/pingpong_half_rtt min=%.2f  (round trip: %.2f)\n",
                  handover.min_ns / lim.pingpong_half_rtt.min_ns,
                  handover.min_ns / (2 * lim.pingpong_half_rtt.min_ns));
    }
    gb::print_row("store_via_local", st, "store", "gannet");
    std::printf("ratio store_via_local/store_8b min=%.2f\n", st.min_ns / lim.store_8b.min_ns);
  }
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
