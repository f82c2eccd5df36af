// The on-node fast paths allocate nothing (issue 3, DESIGN performance principle 2): this
// executable replaces the global operator new with a counting one and runs the paths.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>

#include <upcxx/upcxx.hpp>

namespace {
std::atomic<long> g_allocations{0};
}

// GCC 12 pairs the replaced operator new below with std::allocator's inlined frees and warns
// that malloc'd memory reaches free() through operator delete: it does, by design here.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

struct counter {
  long start = g_allocations.load();
  long delta() const { return g_allocations.load() - start; }
};

TEST(Allocations, OnNodeEagerPathsAllocateNothing) {
  upcxx::init();
  auto g = upcxx::new_<double>(0.0);
  upcxx::promise<> p;
  upcxx::future<> warm = upcxx::rput(1.0, g);  // first-use costs (thread-locals) before counting
  warm.wait();

  counter c;
  for (int i = 0; i < 10000; ++i) upcxx::rput(double(i), g).wait();
  EXPECT_EQ(c.delta(), 0) << "rput(x, gp).wait()";

  counter c2;
  double sum = 0;
  for (int i = 0; i < 10000; ++i) sum += upcxx::rget(g).wait();
  EXPECT_EQ(c2.delta(), 0) << "rget(gp).wait()";
  EXPECT_EQ(sum, 9999.0 * 10000);

  counter c3;
  for (int i = 0; i < 10000; ++i) upcxx::rput(double(i), g, upcxx::operation_cx::as_promise(p));
  EXPECT_EQ(c3.delta(), 0) << "rput(x, gp, operation_cx::as_promise(p))";

  counter c4;
  upcxx::future<> all = upcxx::make_future();
  for (int i = 0; i < 10000; ++i) all = upcxx::when_all(all, upcxx::rput(double(i), g));
  all.wait();
  EXPECT_EQ(c4.delta(), 0) << "when_all conjoining eager rput futures";

  counter c5;
  double buf[4] = {};
  for (int i = 0; i < 1000; ++i) upcxx::rget(g, buf, 1).wait();
  upcxx::future<> r = upcxx::make_future().then([] {});
  EXPECT_EQ(c5.delta(), 0) << "bulk rget, then() on a ready future<>";

  p.finalize().wait();
  upcxx::delete_(g);
  upcxx::finalize();
}

// Seed 000: on-node atomics with eager notification allocate nothing, whether they produce
// their value in the future, write it into memory, or fetch nothing.
TEST(Allocations, OnNodeEagerAtomicsAllocateNothing) {
  upcxx::init();
  {
    upcxx::atomic_domain<std::int64_t> ad({upcxx::atomic_op::fetch_add, upcxx::atomic_op::add});
    auto g = upcxx::new_<std::int64_t>(0);
    upcxx::promise<> p;
    ad.fetch_add(g, 1, std::memory_order_relaxed).wait();  // first-use costs before counting
    constexpr auto relaxed = std::memory_order_relaxed;

    counter c;
    std::int64_t sum = 0;
    for (int i = 0; i < 10000; ++i) sum += ad.fetch_add(g, 1, relaxed).wait();
    EXPECT_EQ(c.delta(), 0) << "fetch_add(gp, v, order).wait()";
    EXPECT_EQ(sum, 10000LL * 10001 / 2);

    counter c2;
    std::int64_t out = 0;
    for (int i = 0; i < 10000; ++i) ad.fetch_add(g, 1, &out, relaxed).wait();
    EXPECT_EQ(c2.delta(), 0) << "fetch_add(gp, v, &result, order).wait()";
    EXPECT_EQ(out, 20000);

    counter c3;
    for (int i = 0; i < 10000; ++i) ad.add(g, 1, relaxed, upcxx::operation_cx::as_promise(p));
    upcxx::future<> all = upcxx::make_future();
    for (int i = 0; i < 10000; ++i) all = upcxx::when_all(all, ad.fetch_add(g, 1, &out, relaxed));
    all.wait();
    EXPECT_EQ(c3.delta(), 0) << "add with a promise, fetch_add into memory conjoined by when_all";
    p.finalize().wait();
    ad.destroy();
    upcxx::delete_(g);
  }
  upcxx::finalize();
}

TEST(Allocations, OnNodeEagerNonContiguousPathsAllocateNothing) {
  upcxx::init();
  auto g = upcxx::new_array<double>(1024);
  double local[1024] = {};
  std::array<std::ptrdiff_t, 2> dense{8, 64}, padded{8, 96};
  std::array<std::size_t, 2> ext{8, 10};
  upcxx::rput_strided(local, dense, g, padded, ext).wait();  // first-use costs before counting

  counter c;
  for (int i = 0; i < 1000; ++i) {
    local[0] = i;
    upcxx::rput_strided(local, dense, g, padded, ext).wait();
    upcxx::rget_strided(g, padded, local + 512, dense, ext).wait();
  }
  EXPECT_EQ(c.delta(), 0) << "rput_strided/rget_strided(...).wait(), std::array form";
  EXPECT_EQ(local[512], 999.0) << "the data moved";

  counter c2;
  const std::ptrdiff_t ss[3] = {8, 16, 64}, ds[3] = {8, 16, 96};
  const std::size_t e3[3] = {2, 4, 3};
  for (int i = 0; i < 1000; ++i) upcxx::rput_strided<3>(local, ss, g, ds, e3).wait();
  EXPECT_EQ(c2.delta(), 0) << "rput_strided<3>(pointers).wait()";

  counter c3;
  const double* srcs[4] = {local, local + 16, local + 32, local + 48};
  upcxx::global_ptr<double> dsts[2] = {g, g + 100};
  for (int i = 0; i < 1000; ++i) upcxx::rput_regular(srcs, srcs + 4, 4, dsts, dsts + 2, 8).wait();
  EXPECT_EQ(c3.delta(), 0) << "rput_regular over arrays";

  counter c4;
  for (int i = 0; i < 1000; ++i) upcxx::copy(local, g, 64).wait();
  EXPECT_EQ(c4.delta(), 0) << "copy(T*, global_ptr)";

  upcxx::delete_array(g);
  upcxx::finalize();
}

}  // namespace
