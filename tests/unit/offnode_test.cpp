// Runs with GANNET_LOOPBACK_ASYNC=1 (set by CTest): the one rank's segment is reported as not
// load/store addressable and RMA completes only in a later poll, as for a rank on another
// machine. Checks the runtime's off-node paths and the debug check of local().
#include <gtest/gtest.h>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

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
