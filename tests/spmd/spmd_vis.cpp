// Non-contiguous RMA and copy between ranks through gannet-run (1, 2 and 4 ranks). Every rank
// puts strided, irregular and regular sections into its right neighbour's shared array,
// gets sections of its right neighbour's source area, and copies between the neighbours on
// both sides (a third-party copy at 3+ ranks), with futures, promises,
// LPCs and remote_cx::as_rpc. Each as_rpc body checks at the target that its operation's
// data is already there, and each runs exactly once.
#include <array>
#include <cstdio>
#include <cstdint>
#include <utility>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

using elem = std::int64_t;

// Regions of every rank's shared array, in elements.
constexpr std::size_t strided_at = 0, irregular_at = 4096, regular_at = 8192, copy_at = 12288, source_at = 16384,
                      total = 20480;
constexpr std::size_t cols = 16, rows = 32, row_stride = 40;  // strided: 16 x 32 in rows of 40
constexpr int irregular_runs = 60;
constexpr std::size_t regular_len = 8, regular_gap = 24, regular_runs = 40;  // 320 elements
constexpr std::size_t copy_len = 1000;

elem value(int writer, std::size_t i) { return writer * 1000003LL + static_cast<elem>(i) * 7 + 1; }
elem source_value(int owner, std::size_t i) { return -(owner * 1000003LL + static_cast<elem>(i) * 3 + 5); }

elem* g_mine = nullptr;  // this rank's array, for the RPC bodies
int g_rpc_runs = 0, g_rpc_bad = 0;

// The irregular destination runs: run k starts at k * 50 and holds k % 7 + 1 elements.
std::size_t irregular_len(int k) { return static_cast<std::size_t>(k % 7 + 1); }

// RPC bodies: the region `which` at this rank must hold what `writer` put there.
void check_arrival(int which, int writer) {
  ++g_rpc_runs;
  bool ok = true;
  std::size_t seq = 0;
  switch (which) {
    case 0:
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c, ++seq) ok = ok && g_mine[strided_at + r * row_stride + c] == value(writer, seq);
      break;
    case 1:
      for (int k = 0; k < irregular_runs; ++k)
        for (std::size_t i = 0; i < irregular_len(k); ++i, ++seq)
          ok = ok && g_mine[irregular_at + static_cast<std::size_t>(k) * 50 + i] == value(writer, seq);
      break;
    case 2:
      for (std::size_t k = 0; k < regular_runs; ++k)
        for (std::size_t i = 0; i < regular_len; ++i, ++seq)
          ok = ok && g_mine[regular_at + k * regular_gap + i] == value(writer, seq);
      break;
    default:
      // The copy's writer is the source's owner.
      for (std::size_t i = 0; i < copy_len; ++i) ok = ok && g_mine[copy_at + i] == source_value(writer, i);
  }
  if (!ok) ++g_rpc_bad;
}

}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto mine = upcxx::new_array<elem>(total);
  g_mine = mine.local();
  for (std::size_t i = 0; i < total; ++i) g_mine[i] = -1;
  for (std::size_t i = 0; i < total - source_at; ++i) g_mine[source_at + i] = source_value(me, i);
  auto all = gannet::all_gather(mine);
  upcxx::barrier();
  upcxx::global_ptr<elem> dst = all[static_cast<std::size_t>(right)];

  std::vector<elem> src(4096);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = value(me, i);

  // Strided put: a dense 16 x 32 block into rows of 40, with a future and an RPC.
  std::array<std::ptrdiff_t, 2> src_strides{sizeof(elem), cols * sizeof(elem)};
  std::array<std::ptrdiff_t, 2> dst_strides{sizeof(elem), row_stride * sizeof(elem)};
  std::array<std::size_t, 2> extents{cols, rows};
  upcxx::future<> f1 = upcxx::rput_strided(src.data(), src_strides, dst + strided_at, dst_strides, extents,
                                           upcxx::operation_cx::as_future() | upcxx::remote_cx::as_rpc(check_arrival, 0, me));

  // Irregular put: one source run, 60 destination runs, tracked by a promise.
  upcxx::promise<> pro;
  std::vector<std::pair<const elem*, std::size_t>> src_runs;
  std::vector<std::pair<upcxx::global_ptr<elem>, std::size_t>> dst_runs;
  std::size_t irregular_total = 0;
  for (int k = 0; k < irregular_runs; ++k) {
    dst_runs.emplace_back(dst + irregular_at + static_cast<std::size_t>(k) * 50, irregular_len(k));
    irregular_total += irregular_len(k);
  }
  src_runs.emplace_back(src.data(), irregular_total);
  upcxx::rput_irregular(src_runs.begin(), src_runs.end(), dst_runs.begin(), dst_runs.end(),
                        upcxx::operation_cx::as_promise(pro) | upcxx::remote_cx::as_rpc(check_arrival, 1, me));

  // Regular put: 5 source runs of 64 into 40 runs of 8, with source and operation futures.
  std::vector<const elem*> src_ptrs;
  for (std::size_t k = 0; k < 5; ++k) src_ptrs.push_back(src.data() + k * 64);
  std::vector<upcxx::global_ptr<elem>> dst_ptrs;
  for (std::size_t k = 0; k < regular_runs; ++k) dst_ptrs.push_back(dst + regular_at + k * regular_gap);
  auto [s3, f3] = upcxx::rput_regular(src_ptrs.begin(), src_ptrs.end(), 64, dst_ptrs.begin(), dst_ptrs.end(),
                                      regular_len,
                                      upcxx::source_cx::as_future() | upcxx::operation_cx::as_future() |
                                          upcxx::remote_cx::as_rpc(check_arrival, 2, me));

  // Copy from the left neighbour's source area to the right neighbour's copy area: the data
  // never touches this rank's memory on one machine. The RPC runs at the right neighbour.
  upcxx::copy(upcxx::global_ptr<const elem>(all[static_cast<std::size_t>(left)] + source_at), dst + copy_at,
              copy_len, upcxx::operation_cx::as_promise(pro) | upcxx::remote_cx::as_rpc(check_arrival, 3, left));

  upcxx::when_all(f1, s3, f3, pro.finalize()).wait();

  // Gets from the right neighbour's source area (nobody writes it).
  const upcxx::global_ptr<const elem> rsrc = all[static_cast<std::size_t>(right)] + source_at;
  std::vector<elem> got(4096, 0);
  // Strided: every 3rd element of 20 rows of 30, into a dense 10 x 20 block.
  std::array<std::ptrdiff_t, 2> gs{3 * sizeof(elem), 30 * sizeof(elem)}, gd{sizeof(elem), 10 * sizeof(elem)};
  std::array<std::size_t, 2> ge{10, 20};
  upcxx::rget_strided(rsrc, gs, got.data(), gd, ge).wait();
  for (std::size_t r = 0; r < 20; ++r)
    for (std::size_t c = 0; c < 10; ++c) SPMD_CHECK(got[r * 10 + c] == source_value(right, r * 30 + c * 3));

  // Irregular: runs k*37 of length k%5+1 (k < 50), with a promise, into one run.
  upcxx::promise<> gpro;
  std::vector<std::pair<upcxx::global_ptr<const elem>, std::size_t>> gsrc;
  std::size_t gtotal = 0;
  for (std::size_t k = 0; k < 50; ++k) {
    gsrc.emplace_back(rsrc + k * 37, k % 5 + 1);
    gtotal += k % 5 + 1;
  }
  std::vector<std::pair<elem*, std::size_t>> gdst{{got.data() + 1000, gtotal}};
  upcxx::rget_irregular(gsrc.begin(), gsrc.end(), gdst.begin(), gdst.end(), upcxx::operation_cx::as_promise(gpro));
  gpro.finalize().wait();
  std::size_t seq = 1000;
  for (std::size_t k = 0; k < 50; ++k)
    for (std::size_t i = 0; i < k % 5 + 1; ++i) SPMD_CHECK(got[seq++] == source_value(right, k * 37 + i));

  // Regular: 16 runs of 4 (every 10th) into 4 runs of 16, with an LPC.
  int lpcs = 0;
  std::vector<upcxx::global_ptr<const elem>> rptrs;
  for (std::size_t k = 0; k < 16; ++k) rptrs.push_back(rsrc + k * 10);
  std::vector<elem*> lptrs;
  for (std::size_t k = 0; k < 4; ++k) lptrs.push_back(got.data() + 2000 + k * 100);
  upcxx::rget_regular(rptrs.begin(), rptrs.end(), 4, lptrs.begin(), lptrs.end(), 16,
                      upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++lpcs; }));
  while (lpcs == 0) upcxx::progress();
  for (std::size_t j = 0; j < 64; ++j)
    SPMD_CHECK(got[2000 + (j / 16) * 100 + j % 16] == source_value(right, (j / 4) * 10 + j % 4));

  // Copy from the right neighbour to private memory.
  std::vector<elem> priv(copy_len, 0);
  upcxx::copy(rsrc, priv.data(), copy_len).wait();
  for (std::size_t i = 0; i < copy_len; ++i) SPMD_CHECK(priv[i] == source_value(right, i));

  // The left neighbour's three puts and the copy its left neighbour started, each checked by
  // its RPC. They run in this rank's user-level progress: wait for them without a bound (a
  // lost one hangs and fails on the test's timeout), then make sure no duplicate follows.
  while (g_rpc_runs < 4) upcxx::progress();
  upcxx::barrier();
  for (int i = 0; i < 100; ++i) upcxx::progress();
  if (g_rpc_runs != 4) std::fprintf(stderr, "[rank %d] %d RPCs, %d bad\n", me, g_rpc_runs, g_rpc_bad);
  SPMD_CHECK(g_rpc_runs == 4);
  SPMD_CHECK(g_rpc_bad == 0);
  for (int which = 0; which < 4; ++which) {
    const int writer = which == 3 ? (left + n - 1) % n : left;
    int runs_before = g_rpc_runs;
    check_arrival(which, writer);  // the data is still there
    SPMD_CHECK(g_rpc_runs == runs_before + 1);
  }
  SPMD_CHECK(g_rpc_bad == 0);
  upcxx::barrier();
  upcxx::delete_array(mine);
  if (me == 0) std::printf("spmd_vis: OK on %d ranks\n", n);
  upcxx::finalize();
}
