// Foundation figures next to the limits measured in the same run:
//   barrier() latency (ns per barrier) at the job's rank count, against the cross-process
//   cache-line half round trip; and a store through global_ptr::local() into another rank's
//   heap, against the plain 8-byte store loop.
// Run: gannet-run -n 2 gannet-bench-foundation   (rank 0 prints; min and median of repeats)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

int main() {
  const gb::limits lim = gb::print_limits_on_first_rank();

  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();

  // ---- barrier ----
  constexpr int repeats = 15, iters = 20000;
  std::vector<double> per_barrier;
  for (int r = 0; r < repeats; ++r) {
    upcxx::barrier();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) upcxx::barrier();
    auto t1 = std::chrono::steady_clock::now();
    per_barrier.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  gb::stats bar;
  bar.min_ns = *std::min_element(per_barrier.begin(), per_barrier.end());
  bar.median_ns = gb::detail::median_of(per_barrier);
  bar.repeats = repeats;
  bar.ops = iters;

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
    gb::print_row("barrier_n" + std::to_string(n), bar, "barrier", "gannet");
    std::printf("ratio barrier_n%d/pingpong_half_rtt min=%.2f  (round trip: %.2f)\n", n,
                bar.min_ns / lim.pingpong_half_rtt.min_ns, bar.min_ns / (2 * lim.pingpong_half_rtt.min_ns));
    gb::print_row("store_via_local", st, "store", "gannet");
    std::printf("ratio store_via_local/store_8b min=%.2f\n", st.min_ns / lim.store_8b.min_ns);
  }
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
