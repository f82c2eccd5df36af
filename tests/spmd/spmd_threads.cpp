// Threadmode par: several threads per rank communicate at once, each through its own
// persona — rput/rget with futures, rpc().wait() and rpc with an LPC completion aimed at
// the thread's persona — while the master thread serves incoming RPCs. Built with
// UPCXX_THREADMODE=1.
#include <atomic>
#include <thread>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

#if !UPCXX_THREADMODE
#error "build this test with UPCXX_THREADMODE=1"
#endif

namespace {
std::atomic<long> g_served{0};
}

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr int threads = 3, iters = 300;
  auto slots = upcxx::new_array<long>(threads * iters);
  auto all = gannet::all_gather(slots);
  const int right = (me + 1) % n;
  upcxx::barrier();

  std::atomic<int> finished{0};
  std::atomic<long> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      upcxx::persona mine;
      upcxx::persona_scope scope(mine);
      long lpc_hits = 0;
      for (int i = 0; i < iters; ++i) {
        long v = me * 1000000L + t * 1000L + i;
        auto at = all[right] + (t * iters + i);
        upcxx::rput(v, at).wait();
        if (upcxx::rget(at).wait() != v) failures++;
        int got = upcxx::rpc(right, [](int x) { g_served++; return x * 2; }, i).wait();
        if (got != 2 * i) failures++;
        upcxx::rpc(right, upcxx::operation_cx::as_lpc(mine, [&lpc_hits](int) { ++lpc_hits; }),
                   [](int x) { g_served++; return x; }, i);
      }
      while (lpc_hits < iters) upcxx::progress();  // LPCs run only in this persona's progress
      finished++;
    });
  }
  // The master persona serves the RPCs of every thread of every rank.
  while (finished.load() < threads) upcxx::progress();
  for (auto& th : pool) th.join();
  upcxx::barrier();
  SPMD_CHECK(failures.load() == 0);
  SPMD_CHECK(g_served.load() == 2L * threads * iters);
  for (int k = 0; k < threads * iters; ++k) {
    int t = k / iters, i = k % iters;
    int left = (me + n - 1) % n;
    SPMD_CHECK(slots.local()[k] == left * 1000000L + t * 1000L + i);
  }
  upcxx::barrier();
  upcxx::delete_array(slots);
  upcxx::say() << "spmd_threads OK";
  upcxx::finalize();
  return 0;
}
