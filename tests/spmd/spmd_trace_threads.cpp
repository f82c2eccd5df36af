// GANNET_TRACE in threadmode par (tests/spmd/trace_threads_test.sh checks the files): each
// rank's master thread and two worker threads communicate at once, each through its own
// persona, and every thread's spans must land on a track of its own. Per rank, with
// next = me+1 (mod P):
//   master thread: 1 rput to next, then serves calls until both workers are done;
//   worker k (k = 1, 2): k+1 rputs to next, 1 rpc round trip to next (its reply reaches the
//   worker's persona), 1 rpc_ff to next.
// So every rank runs 4 bodies (2 rpc and 2 rpc_ff, from the previous rank's workers) on its
// master thread.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#if !UPCXX_THREADMODE
#error "build this test with UPCXX_THREADMODE=1"
#endif

namespace {
std::atomic<int> g_bodies{0};
}

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int next = (me + 1) % n;
  const upcxx::global_ptr<long> mine = upcxx::new_array<long>(16);
  const upcxx::global_ptr<long> there = gannet::all_gather(mine)[static_cast<std::size_t>(next)];
  upcxx::barrier();
  upcxx::rput(static_cast<long>(me), there).wait();
  std::atomic<int> done{0}, failures{0};
  std::vector<std::thread> workers;
  for (int k = 1; k <= 2; ++k)
    workers.emplace_back([&, k] {
      upcxx::persona p;
      upcxx::persona_scope scope(p);
      for (int i = 0; i <= k; ++i) upcxx::rput(static_cast<long>(me * 10 + k), there + 1 + k * 3 + i).wait();
      if (upcxx::rpc(next, [](int x) { ++g_bodies; return x * 2; }, k).wait() != 2 * k) ++failures;
      upcxx::rpc_ff(next, [] { ++g_bodies; });
      ++done;
    });
  while (done.load() < 2 || g_bodies.load() < 4) upcxx::progress();
  for (auto& t : workers) t.join();
  upcxx::barrier();
  if (failures.load()) {
    std::printf("rank %d: wrong rpc results\n", me);
    return 1;
  }
  if (me == 0) std::printf("spmd_trace_threads OK\n");
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
