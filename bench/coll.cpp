// Collective latencies next to the limits measured in the same run, and the round trip of an
// RPC to a rank that waits in barrier() against one to a rank spinning in progress():
//   barrier(), barrier_async().wait(), broadcast and reduce_all of one int64_t, reduce_one;
//   rpc(peer, []{}).wait() with the target in progress() / in barrier() / in
//   barrier_async().wait().
// Run: gannet-run -n N gannet-bench-coll   (every rank takes part; rank 0 prints)
// bench/mpi_coll.cpp measures Open MPI's MPI_Barrier, MPI_Bcast and MPI_Allreduce the same way.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "limits.hpp"
#include "timed.hpp"

namespace gb = gannet::bench;
using gb::each;

namespace {
bool g_stop = false;
}  // namespace

int main(int argc, char** argv) {
  const gb::limits lim = gb::print_limits_on_first_rank();
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const long iters = argc > 1 ? std::atol(argv[1]) : 20000;
  const int repeats = 11;
  const double rtt = 2 * lim.pingpong_half_rtt.min_ns;
  auto row = [&](const char* name, gb::stats s) {
    if (me != 0) return;
    gb::print_row(name, s, "op", "gannet");
    std::printf("ratio %s/pingpong_rtt min=%.2f median=%.2f ranks=%d\n", name, s.min_ns / rtt,
                s.median_ns / (2 * lim.pingpong_half_rtt.median_ns), n);
  };

  std::int64_t sink = 0;
  row("barrier", gb::timed(repeats, iters, each([] { upcxx::barrier(); })));
  row("barrier_async_wait", gb::timed(repeats, iters, each([] { upcxx::barrier_async().wait(); })));
  row("broadcast_int64", gb::timed(repeats, iters, each([&] { sink += upcxx::broadcast(std::int64_t{me}, 0).wait(); })));
  row("reduce_one_int64", gb::timed(repeats, iters, each([&] { sink += upcxx::reduce_one(std::int64_t{me}, upcxx::op_fast_add, 0).wait(); })));
  row("reduce_all_int64", gb::timed(repeats, iters, each([&] { sink += upcxx::reduce_all(std::int64_t{me}, upcxx::op_fast_add).wait(); })));
  std::vector<double> vec(1024, 1.0), out(1024);
  row("reduce_all_8KiB", gb::timed(repeats, iters / 10, each([&] {
        upcxx::reduce_all(vec.data(), out.data(), vec.size(), upcxx::op_fast_add).wait();
      })));

  // RPC round trips from rank 0 to rank 1 while rank 1 waits in different ways.
  if (n >= 2) {
    enum class how { progress, barrier, barrier_async };
    auto round_trips = [&](how h) {
      gb::stats s{};
      upcxx::barrier();
      if (me == 0) {
        s = gb::measure([&](std::uint64_t k) {
          for (std::uint64_t i = 0; i < k; ++i) upcxx::rpc(1, [] {}).wait();
          return k;
        });
        if (h == how::progress) upcxx::rpc_ff(1, [] { g_stop = true; });
      } else if (me == 1 && h == how::progress) {
        while (!g_stop) upcxx::progress();
        g_stop = false;
      }
      // Rank 1 (and the others) wait here while rank 0 measures.
      if (h == how::barrier_async) upcxx::barrier_async().wait();
      else upcxx::barrier();
      return s;
    };
    for (int round = 0; round < 2; ++round) {  // alternate the variants, twice
      gb::stats p = round_trips(how::progress);
      gb::stats b = round_trips(how::barrier);
      gb::stats a = round_trips(how::barrier_async);
      row("rpc_rtt_target_in_progress", p);
      row("rpc_rtt_target_in_barrier", b);
      row("rpc_rtt_target_in_barrier_async", a);
      if (me == 0)
        std::printf("ratio rpc_rtt_target_in_barrier/rpc_rtt_target_in_progress min=%.2f  barrier_async/progress min=%.2f\n",
                    b.min_ns / p.min_ns, a.min_ns / p.min_ns);
    }
  }
  if (me == 0) std::printf("# sink %lld\n", static_cast<long long>(sink));
  upcxx::finalize();
  return 0;
}
