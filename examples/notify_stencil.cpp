// Pipelined stencil with notified access: the Parallel Research Kernels' Sync_p2p, as in
// "Notified Access: Extending Remote Memory Access Programming Models for Producer-Consumer
// Synchronization" §VI-A. A grid of `rows` x `cols` points is split by columns among the
// ranks; point (i, j) becomes A[i-1][j] + A[i][j-1] - A[i-1][j-1], so row i of a rank can
// start only once its left neighbour has finished row i and sent the value at its right
// edge. The ranks form a pipeline along the rows; each iteration ends with the corner value
// fed back to the start.
//
// The halo value travels three ways, timed one after the other in the same run:
//   notified  gannet::rput_notify into the neighbour's halo column, one persistent
//             notify_request per rank waiting for each row in turn
//   rpc       upcxx::rpc_ff that stores the value and counts arrivals
//   put_flag  upcxx::rput of the value, then of the row number into a flag word the
//             neighbour polls
// Each variant checks the PRK result (the corner equals iterations*(rows+cols-2)) and
// reports grid point updates per second (each reads three points and writes one).
//   gannet-run -n 2 notify_stencil [rows] [cols] [iterations]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gannet/notify.hpp>
#include <upcxx/upcxx.hpp>

namespace {

enum class variant { notified, rpc, put_flag };
const char* name_of(variant v) { return v == variant::notified ? "notified" : v == variant::rpc ? "rpc" : "put_flag"; }

// The halo column of this rank: value of the left neighbour's last column for each row.
upcxx::global_ptr<double> g_halo;
std::uint64_t g_rpc_rows = 0;  // halo values that have arrived by RPC (over all iterations)

struct grid {
  long rows, cols;          // global
  long first, width;        // my columns: [first, first + width)
  std::vector<double> a;    // rows x (width + 1): column 0 is the halo
  double& at(long i, long j) { return a[static_cast<std::size_t>(i * (width + 1) + j + 1)]; }
};

// One run of `iterations` pipeline sweeps; returns seconds, and the corner value on the last rank.
double sweep(variant v, grid& g, int iterations, double* corner) {
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = me + 1 < n ? me + 1 : -1, left = me > 0 ? me - 1 : -1;
  upcxx::dist_object<upcxx::global_ptr<double>> halo_of(g_halo);
  upcxx::dist_object<upcxx::global_ptr<std::uint64_t>> flag_of(upcxx::new_<std::uint64_t>(0));
  upcxx::global_ptr<double> right_halo = right >= 0 ? halo_of.fetch(right).wait() : nullptr;
  upcxx::global_ptr<std::uint64_t> right_flag = right >= 0 ? flag_of.fetch(right).wait() : nullptr;
  const auto* my_flag = reinterpret_cast<const std::atomic<std::uint64_t>*>(flag_of->local());
  double* halo = g_halo.local();
  gannet::notify_request row_from_left(left >= 0 ? left : 0, 0);
  std::uint64_t rows_in = 0, rows_out = 0;  // halo values received and sent (all iterations)
  g_rpc_rows = 0;

  // Initial values (PRK): A[0][j] = j and A[i][0] = i; global column 0 is rank 0's first.
  std::fill(g.a.begin(), g.a.end(), 0.0);
  for (long j = -1; j < g.width; ++j) g.at(0, j) = static_cast<double>(g.first + j);
  if (me == 0)
    for (long i = 0; i < g.rows; ++i) g.at(i, 0) = static_cast<double>(i);
  const long j0 = me == 0 ? 1 : 0;  // rank 0's first column is fixed

  upcxx::barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (long i = 1; i < g.rows; ++i) {
      if (left >= 0) {
        // Wait for row i's halo value.
        switch (v) {
          case variant::notified:
            row_from_left.start();
            row_from_left.wait();
            break;
          case variant::rpc:
            ++rows_in;
            while (g_rpc_rows < rows_in) upcxx::progress();
            break;
          case variant::put_flag:
            ++rows_in;
            while (my_flag->load(std::memory_order_acquire) < rows_in) upcxx::progress();
            break;
        }
        g.at(i, -1) = halo[i];
      }
      for (long j = j0; j < g.width; ++j) g.at(i, j) = g.at(i - 1, j) + g.at(i, j - 1) - g.at(i - 1, j - 1);
      if (right >= 0) {
        const double edge = g.at(i, g.width - 1);
        switch (v) {
          case variant::notified:
            // Only the neighbour waits for it: no completion here beyond the value's copy.
            gannet::rput_notify(edge, right_halo + i, 0, upcxx::source_cx::as_buffered());
            break;
          case variant::rpc:
            upcxx::rpc_ff(
                right,
                [](long row, double value) {
                  g_halo.local()[row] = value;
                  ++g_rpc_rows;
                },
                i, edge);
            break;
          case variant::put_flag: {
            upcxx::rput(edge, right_halo + i).wait();
            upcxx::rput(++rows_out, right_flag).wait();
            break;
          }
        }
      }
    }
    // The corner goes back to the start (PRK): the last rank tells rank 0. All variants use
    // the same path for it, a broadcast, so that only the per-row signal differs.
    double c = upcxx::broadcast(me == n - 1 ? g.at(g.rows - 1, g.width - 1) : 0.0, n - 1).wait();
    if (me == 0) g.at(0, 0) = -c;
    *corner = c;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  upcxx::barrier();
  upcxx::delete_(*flag_of);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const long rows = argc > 1 ? std::atol(argv[1]) : 20000;
  const long cols = argc > 2 ? std::atol(argv[2]) : 256 * n;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 10;
  if (cols < 2 * n || rows < 2 || iterations < 1) {
    if (me == 0) std::fprintf(stderr, "need rows >= 2, two columns per rank, one iteration\n");
    upcxx::finalize();
    return 1;
  }
  grid g;
  g.rows = rows;
  g.cols = cols;
  g.first = cols * me / n;
  g.width = cols * (me + 1) / n - g.first;
  g.a.resize(static_cast<std::size_t>(rows * (g.width + 1)));
  g_halo = upcxx::new_array<double>(static_cast<std::size_t>(rows));
  if (me == 0)
    std::printf("notify_stencil: %d ranks, %ld x %ld grid, %d iterations\n", n, rows, cols, iterations);

  bool ok = true;
  double best[3] = {1e30, 1e30, 1e30};
  for (int round = 0; round < 3; ++round) {  // alternate the variants: a noisy machine
    for (variant v : {variant::notified, variant::rpc, variant::put_flag}) {
      double corner = 0;
      const double s = sweep(v, g, iterations, &corner);
      const double expect = static_cast<double>(iterations) * static_cast<double>(rows + cols - 2);
      // PRK's check, on the last rank, which owns the corner.
      if (me == n - 1 && std::abs(corner - expect) > 1e-8 * expect) {
        std::printf("notify_stencil %s: corner %.1f, expected %.1f\n", name_of(v), corner, expect);
        ok = false;
      }
      double& b = best[static_cast<int>(v)];
      b = std::min(b, upcxx::reduce_all(s, upcxx::op_fast_max).wait());
    }
  }
  ok = upcxx::reduce_all(ok ? 1 : 0, upcxx::op_fast_min).wait() == 1;
  if (me == 0) {
    const double updates = static_cast<double>(iterations) * static_cast<double>(rows - 1) * static_cast<double>(cols);
    for (variant v : {variant::notified, variant::rpc, variant::put_flag})
      std::printf("%-9s %8.3f ms  %8.1f Mupdates/s  (4 memory operations each)\n", name_of(v), best[static_cast<int>(v)] * 1e3,
                  updates / best[static_cast<int>(v)] / 1e6);
    std::printf("ratio notified/rpc throughput %.2f, notified/put_flag %.2f\n", best[1] / best[0], best[2] / best[0]);
    std::printf("%s\n", ok ? "notify_stencil: results verified" : "notify_stencil: WRONG RESULTS");
  }
  upcxx::barrier();
  upcxx::delete_array(g_halo);
  upcxx::finalize();
  return ok ? 0 : 1;
}
