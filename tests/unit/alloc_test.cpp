// The on-node fast paths allocate nothing (issue 3, DESIGN performance principle 2): this
// executable replaces the global operator new with a counting one and runs the paths.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include <upcxx/upcxx.hpp>

namespace {
std::atomic<long> g_allocations{0};
}

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

}  // namespace
