// Threadmode par: several threads per rank communicate at once, each through its own
// persona — rput/rget with futures, rpc().wait() and rpc with an LPC completion aimed at
// the thread's persona — while the master thread serves incoming RPCs. Built with
// UPCXX_THREADMODE=1.
// Then a dedicated progress thread holds the master persona while worker threads call:
// replies reach each worker's persona from the progress thread, and the worker's promise,
// futures and as_lpc callback (with its captures) must be touched by the worker alone (the
// TSan build checks); RPC bodies take a user mutex that workers hold while they call
// rpc_ff (which deadlocked while bodies ran under the runtime lock).
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

#if !UPCXX_THREADMODE
#error "build this test with UPCXX_THREADMODE=1"
#endif

namespace {
std::atomic<long> g_served{0};
std::mutex g_user_mutex;
long g_replicated = 0;  // guarded by g_user_mutex
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

  // ---- a dedicated progress thread ----
  upcxx::liberate_master_persona();
  std::atomic<bool> stop{false};
  std::thread progress_thread([&] {
    upcxx::persona_scope master(upcxx::master_persona());
    while (!stop.load()) upcxx::progress();
  });
  constexpr int workers = 2;
  std::vector<std::thread> team;
  for (int t = 0; t < workers; ++t) {
    team.emplace_back([&] {
      upcxx::persona mine;
      upcxx::persona_scope scope(mine);
      const auto self = std::this_thread::get_id();
      upcxx::promise<> all_done;
      long on_thread = 0, off_thread = 0;
      for (int i = 0; i < iters; ++i) {
        {
          std::lock_guard<std::mutex> held(g_user_mutex);
          upcxx::rpc_ff(right, [](long k) {
            std::lock_guard<std::mutex> body(g_user_mutex);
            g_replicated += k;
          }, 1L);
        }
        upcxx::rpc(right, upcxx::operation_cx::as_promise(all_done), [] { g_served++; });
        auto captured = std::make_shared<int>(i);  // copied and destroyed by this thread only
        upcxx::rpc(right,
                   upcxx::operation_cx::as_lpc(mine, [captured, self, &on_thread, &off_thread](int v) {
                     (std::this_thread::get_id() == self && v == *captured ? on_thread : off_thread)++;
                   }),
                   [](int x) { return x; }, i);
        auto [sent, result] = upcxx::rpc(right, upcxx::source_cx::as_future() | upcxx::operation_cx::as_future(),
                                         [](int x) { return 3 * x; }, i);
        sent.wait();
        if (result.wait() != 3 * i) failures++;
      }
      all_done.finalize().wait();
      while (on_thread + off_thread < iters) upcxx::progress();
      if (off_thread != 0) failures++;
    });
  }
  for (auto& th : team) th.join();
  // Every rank's workers are done; the progress thread still serves until each rank's own
  // replicas have arrived.
  auto replicated = [] {
    std::lock_guard<std::mutex> held(g_user_mutex);
    return g_replicated;
  };
  while (replicated() < long{workers} * iters) std::this_thread::yield();
  stop.store(true);
  progress_thread.join();
  upcxx::persona_scope master_again(upcxx::master_persona());
  upcxx::barrier();
  SPMD_CHECK(failures.load() == 0);
  SPMD_CHECK(replicated() == long{workers} * iters);
  SPMD_CHECK(g_served.load() == 2L * threads * iters + long{workers} * iters);

  upcxx::barrier();
  upcxx::delete_array(slots);
  upcxx::say() << "spmd_threads OK";
  upcxx::finalize();
  return 0;
}
