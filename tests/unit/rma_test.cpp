// rput/rget with every completion combination on the on-node path (one rank), and eager vs
// deferred notification (seed 000). Built twice: as is (as_future/as_promise eager) and
// with -DUPCXX_DEFER_COMPLETION (rma_defer_test), where they must be deferred.
#include <gtest/gtest.h>

#include <array>
#include <type_traits>

#include <upcxx/upcxx.hpp>

namespace {

using upcxx::future;
using upcxx::operation_cx;
using upcxx::promise;
using upcxx::source_cx;

#ifdef UPCXX_DEFER_COMPLETION
constexpr bool default_is_eager = false;
#else
constexpr bool default_is_eager = true;
#endif

class upcxx_env : public ::testing::Environment {
 public:
  void SetUp() override { upcxx::init(); }
  void TearDown() override { upcxx::finalize(); }
};

struct point {
  int x, y;
  double w;
};

TEST(Rma, ValuesMove) {
  auto g = upcxx::new_array<point>(8);
  upcxx::rput(point{1, 2, 3.5}, g + 3).wait();
  point back = upcxx::rget(g + 3).wait();
  EXPECT_EQ(back.x, 1);
  EXPECT_EQ(back.w, 3.5);

  std::array<point, 8> src{}, dst{};
  for (int i = 0; i < 8; ++i) src[i] = {i, -i, i * 0.5};
  upcxx::rput(src.data(), g, 8).wait();
  upcxx::rget(g, dst.data(), 8).wait();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(dst[i].y, -i);
  upcxx::global_ptr<const point> cg = g;
  EXPECT_EQ(upcxx::rget(cg + 7).wait().x, 7) << "rget from a pointer to const";
  upcxx::delete_array(g);
}

TEST(Rma, DefaultFuturesFollowTheCompletionMode) {
  auto g = upcxx::new_<double>(0.0);
  future<> f = upcxx::rput(1.25, g);
  future<double> v = upcxx::rget(g);
  EXPECT_EQ(f.ready(), default_is_eager);
  EXPECT_EQ(v.ready(), default_is_eager);
  upcxx::progress();
  ASSERT_TRUE(f.ready());
  ASSERT_TRUE(v.ready());
  EXPECT_EQ(v.result(), 1.25);

  // The explicit factories do not depend on the macro.
  EXPECT_TRUE(upcxx::rput(2.0, g, operation_cx::as_eager_future()).ready());
  EXPECT_FALSE(upcxx::rput(2.0, g, operation_cx::as_defer_future()).ready());
  EXPECT_TRUE(upcxx::rget(g, operation_cx::as_eager_future()).ready());
  auto d = upcxx::rget(g, operation_cx::as_defer_future());
  EXPECT_FALSE(d.ready());
  EXPECT_EQ(d.wait(), 2.0);
  upcxx::delete_(g);
}

TEST(Rma, PromisesEagerUntouchedDeferredCounted) {
  auto g = upcxx::new_array<long>(100);
  {
    promise<> p;
    for (int i = 0; i < 100; ++i) upcxx::rput(long{i}, g + i, operation_cx::as_eager_promise(p));
    future<> f = p.finalize();
    EXPECT_TRUE(f.ready()) << "eager: the operations never touched the promise";
  }
  {
    promise<> p;
    for (int i = 0; i < 100; ++i) upcxx::rput(long{i}, g + i, operation_cx::as_defer_promise(p));
    future<> f = p.finalize();
    EXPECT_FALSE(f.ready()) << "deferred: fulfilled only in progress";
    upcxx::progress();
    EXPECT_TRUE(f.ready());
  }
  {
    promise<> p;
    upcxx::rput(long{5}, g, operation_cx::as_promise(p));
    EXPECT_EQ(p.finalize().ready(), default_is_eager);
    upcxx::progress();
  }
  for (bool eager : {true, false}) {
    promise<long> p;
    if (eager) upcxx::rget(g + 42, operation_cx::as_eager_promise(p));
    else upcxx::rget(g + 42, operation_cx::as_defer_promise(p));
    future<long> f = p.finalize();
    EXPECT_EQ(f.ready(), eager) << "a value-producing event fills the promise";
    EXPECT_EQ(f.wait(), 42);
  }
  upcxx::delete_array(g);
}

TEST(Rma, EveryCompletionCombination) {
  auto g = upcxx::new_array<int>(16);
  std::array<int, 16> src{};
  for (int i = 0; i < 16; ++i) src[i] = 100 + i;
  promise<> p1, p2;
  int source_lpcs = 0, op_lpcs = 0;
  auto cxs = operation_cx::as_promise(p1) | source_cx::as_future() | operation_cx::as_future() |
             operation_cx::as_defer_future() | source_cx::as_lpc(upcxx::current_persona(), [&] { ++source_lpcs; }) |
             operation_cx::as_lpc(upcxx::current_persona(), [&] { ++op_lpcs; }) | source_cx::as_buffered() |
             source_cx::as_defer_promise(p2);
  std::tuple<future<>, future<>, future<>> r = upcxx::rput(src.data(), g, 16, cxs);
  EXPECT_EQ(std::get<0>(r).ready(), default_is_eager);
  EXPECT_EQ(std::get<1>(r).ready(), default_is_eager);
  EXPECT_FALSE(std::get<2>(r).ready());
  EXPECT_EQ(source_lpcs + op_lpcs, 0) << "LPCs run in progress";
  future<> done1 = p1.finalize(), done2 = p2.finalize();
  upcxx::progress();
  EXPECT_TRUE(std::get<0>(r).ready() && std::get<1>(r).ready() && std::get<2>(r).ready());
  EXPECT_TRUE(done1.ready() && done2.ready());
  EXPECT_EQ(source_lpcs, 1);
  EXPECT_EQ(op_lpcs, 1);
  EXPECT_EQ(upcxx::rget(g + 15).wait(), 115);

  // The same completion object reused for a second operation.
  auto again = upcxx::rput(src.data(), g, 16, cxs);
  upcxx::progress();
  EXPECT_TRUE(std::get<2>(again).ready());
  EXPECT_EQ(source_lpcs, 2);

  // Return types (spec 7.2.2).
  static_assert(std::is_void_v<decltype(upcxx::rput(1, g, operation_cx::as_promise(p1)))>);
  static_assert(std::is_same_v<decltype(upcxx::rget(g, operation_cx::as_future() | operation_cx::as_future())),
                               std::tuple<future<int>, future<int>>>);
  static_assert(std::is_same_v<decltype(upcxx::rput(1, g, source_cx::as_blocking() | operation_cx::as_future())),
                               future<>>);

  // LPC completion of a value-producing event receives the value.
  int seen = 0;
  upcxx::rget(g + 3, operation_cx::as_lpc(upcxx::current_persona(), [&](int v) { seen = v; }));
  upcxx::progress();
  EXPECT_EQ(seen, 103);
  upcxx::delete_array(g);
}

TEST(Rma, CallbacksOfDeferredCompletionsRunOnlyInUserProgress) {
  auto g = upcxx::new_<int>(0);
  int ran = 0;
  future<> f = upcxx::rput(1, g, operation_cx::as_defer_future()).then([&] { ++ran; });
  EXPECT_EQ(ran, 0) << "then() on a pending future never runs the callback";
  upcxx::progress(upcxx::progress_level::internal);
  EXPECT_EQ(ran, 0) << "internal progress delivers no notifications";
  upcxx::progress();
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(f.ready());
  upcxx::delete_(g);
}

TEST(Rma, ConjoinedFutures) {
  auto g = upcxx::new_array<double>(1000);
  future<> all = upcxx::make_future();
  for (int i = 0; i < 1000; ++i) all = upcxx::when_all(all, upcxx::rput(i * 1.0, g + i));
  all.wait();
  std::array<double, 1000> back{};
  upcxx::rget(g, back.data(), 1000).wait();
  EXPECT_EQ(back[999], 999.0);
  upcxx::delete_array(g);
}

TEST(RmaDeathTest, NullPointersAreCaughtWithTheCallersLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  upcxx::global_ptr<int> null;
  EXPECT_DEATH(upcxx::rput(1, null), "rma_test.cpp:[0-9]+: upcxx::rput with a null global_ptr");
  EXPECT_DEATH((void)upcxx::rget(null), "rma_test.cpp:[0-9]+: upcxx::rget with a null global_ptr");
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new upcxx_env);
  return RUN_ALL_TESTS();
}
