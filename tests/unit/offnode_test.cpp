// Runs with GANNET_LOOPBACK_ASYNC=1 (set by CTest): the one rank's segment is reported as not
// load/store addressable and RMA completes only in a later poll, as for a rank on another
// machine. Checks the runtime's off-node paths and the debug check of local().
#include <gtest/gtest.h>

#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "../spmd/as_rpc_matrix.hpp"

namespace {

TEST(OffNode, PointersAreNotLocal) {
  upcxx::init();
  auto g = upcxx::new_<int>(5);
  EXPECT_FALSE(g.is_local());
  EXPECT_TRUE(upcxx::global_ptr<int>().is_local()) << "null is always local";
  EXPECT_FALSE(upcxx::local_team_contains(0) && g.is_local());
  // all_gather reads peers' scratch through transport gets, completed in progress.
  struct two {
    int first;
    double second;
  };
  auto v = gannet::all_gather(two{3, 1.5});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first, 3);
  EXPECT_EQ(v[0].second, 1.5);
  upcxx::finalize();
}

TEST(OffNode, RmaCompletesThroughTheTransportInProgress) {
  upcxx::init();
  auto g = upcxx::new_array<long>(64);
  // Eager requests cannot complete at injection off-node: notifications come in progress.
  upcxx::future<> put = upcxx::rput(7L, g + 1, upcxx::operation_cx::as_eager_future());
  EXPECT_FALSE(put.ready());
  EXPECT_TRUE(upcxx::progress_required()) << "the put still needs internal progress";
  put.wait();
  EXPECT_FALSE(upcxx::progress_required());
  upcxx::future<long> get = upcxx::rget(g + 1);
  EXPECT_FALSE(get.ready());
  EXPECT_EQ(get.wait(), 7);

  // Bulk with source and operation futures, a promise and LPCs.
  long src[64];
  for (int i = 0; i < 64; ++i) src[i] = 1000 + i;
  upcxx::promise<> p;
  int lpcs = 0;
  auto [source_done, op_done] = upcxx::rput(
      src, g, 64,
      upcxx::source_cx::as_future() | upcxx::operation_cx::as_future() | upcxx::operation_cx::as_promise(p) |
          upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { ++lpcs; }));
  upcxx::future<> all = p.finalize();
  EXPECT_FALSE(op_done.ready());
  EXPECT_FALSE(all.ready()) << "the promise holds a dependency until delivery";
  upcxx::discharge();  // internal progress only: the data moves, notifications wait
  EXPECT_FALSE(upcxx::progress_required());
  EXPECT_FALSE(op_done.ready());
  EXPECT_EQ(lpcs, 0);
  upcxx::when_all(source_done, op_done, all).wait();
  upcxx::progress();
  EXPECT_EQ(lpcs, 1);

  long back[64] = {};
  upcxx::promise<long> one;
  upcxx::rget(g + 63, upcxx::operation_cx::as_promise(one));
  upcxx::rget(g, back, 64).wait();
  EXPECT_EQ(back[10], 1010);
  EXPECT_EQ(one.finalize().wait(), 1063);

  // Conjoining futures that complete later.
  upcxx::future<> conj = upcxx::make_future();
  for (int i = 0; i < 64; ++i) conj = upcxx::when_all(conj, upcxx::rput(long(i), g + i));
  EXPECT_FALSE(conj.ready());
  conj.wait();
  EXPECT_EQ(upcxx::rget(g + 20).wait(), 20);
  upcxx::delete_array(g);
  upcxx::finalize();
}

// remote_cx::as_rpc on the off-node path: the call is sent from progress, when the put's
// remote completion arrives, for every completion kind and function object form.
TEST(OffNode, AsRpcRunsOnceForEveryCompletionAndFunctionObject) {
  using namespace as_rpc_matrix;
  upcxx::init();
  auto area = upcxx::new_array<int>(area_ints);
  EXPECT_FALSE(area.is_local());
  reset();
  AS_RPC_SEND_ALL_FORMS(area, 0);
  const int expected_total = n_kinds * n_forms;
  for (long i = 0; total_count() < expected_total && i < 100000000L; ++i) upcxx::progress();
  for (int i = 0; i < 1000; ++i) upcxx::progress();  // room for a duplicate to show up
  EXPECT_EQ(total_count(), expected_total);
  for (int k = 0; k < n_kinds; ++k) {
    for (int f = 0; f < n_forms; ++f) {
      EXPECT_EQ(g_count[k][f], 1) << "kind " << k << " form " << f;
      EXPECT_EQ(g_value[k][f], value_for(k, f, 0) + adjust[f]) << "kind " << k << " form " << f;
    }
  }
  EXPECT_EQ(g_bad_data, 0);
  // The puts' data arrived.
  for (int k = 0; k < n_kinds; ++k) {
    for (int f = 0; f < n_forms; ++f) {
      int first = upcxx::rget(area + slot_of(k, f)).wait();
      EXPECT_EQ(first, value_for(k, f, 0));
      if (k >= 3) {
        EXPECT_EQ(upcxx::rget(area + slot_of(k, f) + bulk_n - 1).wait(), value_for(k, f, 0) + bulk_n - 1);
      }
    }
  }
  upcxx::delete_array(area);
  upcxx::finalize();
}

// Large calls and results from a rank whose heap cannot be addressed are fetched with RMA
// gets, which complete in a later poll: calls made after a large one wait for it, so calls
// still run in the order they were made, and the sender's copy is freed afterwards.
TEST(OffNode, LargeCallsAreFetchedInOrder) {
  upcxx::init();
  const std::size_t used_before = upcxx::shared_segment_used();
  static std::vector<long> s_ran;
  s_ran.clear();
  constexpr long calls = 12;
  for (long i = 0; i < calls; ++i) {
    // Two large calls in a row (4, 5) and large ones between small ones.
    const std::size_t n = (i == 1 || i == 4 || i == 5 || i == 9) ? 100000 : 3;
    upcxx::rpc_ff(0, [](long seq, const std::vector<long>& v) {
      if (v.size() == 3 || (v.front() == seq && v.back() == seq)) s_ran.push_back(seq);
    }, i, std::vector<long>(n, i));
  }
  while (static_cast<long>(s_ran.size()) < calls) upcxx::progress();
  std::vector<long> expect(calls);
  for (long i = 0; i < calls; ++i) expect[i] = i;
  EXPECT_EQ(s_ran, expect);
  // A large result comes back the same way.
  auto v = upcxx::rpc(0, [](long k) { return std::vector<long>(200000, k); }, 7L).wait();
  ASSERT_EQ(v.size(), 200000u);
  EXPECT_EQ(v.front(), 7);
  EXPECT_EQ(v.back(), 7);
  while (upcxx::shared_segment_used() != used_before) upcxx::progress();
  EXPECT_EQ(upcxx::shared_segment_used(), used_before);
  upcxx::finalize();
}

TEST(OffNode, LocalOfRemotePointerDiesWithLocation) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        upcxx::init();
        auto g = upcxx::new_<int>(5);
        (void)g.local();
      },
      "offnode_test.cpp:[0-9]+: global_ptr::local\\(\\) on a pointer to rank 0 .*is_local\\(\\) is false");
}

}  // namespace
