// Remote atomic latency on this machine ("Optimization of Asynchronous Communication
// Operations through Eager Notifications" §IV-A, atomics), next to the limits measured
// in the same run: fetch_add producing its value, fetch_add into memory (the Eager
// Notifications paper, §III-B) and the non-fetching add, each waited on at once, eager and
// deferred, with the word on another rank of this machine.
// Run: gannet-run -n 2 gannet-bench-atomics   (rank 0 measures; rank 1 waits in a barrier)
#include <cstdint>
#include <cstdio>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

int main() {
  const gb::limits lim = gb::print_limits_on_first_rank();

  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  upcxx::atomic_domain<std::int64_t> ad({upcxx::atomic_op::fetch_add, upcxx::atomic_op::add});
  auto mine = upcxx::new_<std::int64_t>(0);
  upcxx::global_ptr<std::int64_t> gp = gannet::all_gather(mine)[(me + 1) % n];

  if (me == 0) {
    auto row = [&](const char* name, gb::stats s) {
      gb::print_row(name, s, "op", "gannet");
      std::printf("ratio %s/memcpy_8b min=%.2f median=%.2f\n", name, s.min_ns / lim.memcpy_8b.min_ns,
                  s.median_ns / lim.memcpy_8b.median_ns);
    };
    auto loop = [](auto body) {
      return gb::measure([&](std::uint64_t count) {
        for (std::uint64_t i = 0; i < count; ++i) body();
        return count;
      });
    };
    constexpr auto relaxed = std::memory_order_relaxed;
    std::int64_t out = 0;
    for (int round = 0; round < 2; ++round) {  // twice: the second round is the one to read
      row("fetch_add_value_eager",
          loop([&] { (void)ad.fetch_add(gp, 1, relaxed, upcxx::operation_cx::as_eager_future()).wait(); }));
      row("fetch_add_value_defer",
          loop([&] { (void)ad.fetch_add(gp, 1, relaxed, upcxx::operation_cx::as_defer_future()).wait(); }));
      row("fetch_add_into_eager",
          loop([&] { ad.fetch_add(gp, 1, &out, relaxed, upcxx::operation_cx::as_eager_future()).wait(); }));
      row("fetch_add_into_defer",
          loop([&] { ad.fetch_add(gp, 1, &out, relaxed, upcxx::operation_cx::as_defer_future()).wait(); }));
      row("add_eager", loop([&] { ad.add(gp, 1, relaxed, upcxx::operation_cx::as_eager_future()).wait(); }));
      row("add_defer", loop([&] { ad.add(gp, 1, relaxed, upcxx::operation_cx::as_defer_future()).wait(); }));
    }
    std::printf("# targets: value-producing fetch_add <= 6x memcpy_8b; into-memory and non-fetching <= 4x\n");
  }
  upcxx::barrier();
  ad.destroy();
  upcxx::delete_(mine);
  upcxx::finalize();
  return 0;
}
