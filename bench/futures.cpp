// The microbenchmarks of "Optimization of Asynchronous Communication Operations through
// Eager Notifications" §IV-A on this machine, next to the limits measured in the
// same run: rput(0., gp).wait() and rget(gp).wait() with gp on another rank, eager and
// deferred; one promise tracking many rputs; when_all conjoining many rput futures.
// Run: gannet-run -n 2 gannet-bench-futures   (rank 0 measures; rank 1 waits in a barrier)
#include <cstdio>
#include <string>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

int main() {
  const gb::limits lim = gb::print_limits_on_first_rank();

  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  auto mine = upcxx::new_<double>(0.0);
  upcxx::global_ptr<double> gp = gannet::all_gather(mine)[(me + 1) % n];

  if (me == 0) {
    auto row = [&](const char* name, gb::stats s) {
      gb::print_row(name, s, "op", "gannet");
      std::printf("ratio %s/memcpy_8b min=%.2f  /store_8b min=%.2f\n", name, s.min_ns / lim.memcpy_8b.min_ns,
                  s.min_ns / lim.store_8b.min_ns);
    };
    auto loop = [](auto body) {
      return gb::measure([&](std::uint64_t count) {
        for (std::uint64_t i = 0; i < count; ++i) body();
        return count;
      });
    };
    row("rput_wait_eager", loop([&] { upcxx::rput(0., gp, upcxx::operation_cx::as_eager_future()).wait(); }));
    row("rput_wait_defer", loop([&] { upcxx::rput(0., gp, upcxx::operation_cx::as_defer_future()).wait(); }));
    row("rget_wait_eager", loop([&] { (void)upcxx::rget(gp, upcxx::operation_cx::as_eager_future()).wait(); }));
    row("rget_wait_defer", loop([&] { (void)upcxx::rget(gp, upcxx::operation_cx::as_defer_future()).wait(); }));

    auto promise_run = [&](auto cx_factory) {
      return gb::measure([&](std::uint64_t count) {
        upcxx::promise<> p;
        for (std::uint64_t i = 0; i < count; ++i) upcxx::rput(0., gp, cx_factory(p));
        p.finalize().wait();
        return count;
      });
    };
    auto promise_eager = promise_run([](upcxx::promise<>& p) { return upcxx::operation_cx::as_eager_promise(p); });
    auto promise_defer = promise_run([](upcxx::promise<>& p) { return upcxx::operation_cx::as_defer_promise(p); });
    row("rput_promise_eager", promise_eager);
    row("rput_promise_defer", promise_defer);

    auto when_all_run = [&](auto cx) {
      return gb::measure([&](std::uint64_t count) {
        upcxx::future<> f = upcxx::make_future();
        for (std::uint64_t i = 0; i < count; ++i) f = upcxx::when_all(f, upcxx::rput(0., gp, cx));
        f.wait();
        return count;
      });
    };
    auto conj_eager = when_all_run(upcxx::operation_cx::as_eager_future());
    auto conj_defer = when_all_run(upcxx::operation_cx::as_defer_future());
    row("rput_when_all_eager", conj_eager);
    row("rput_when_all_defer", conj_defer);
    std::printf("ratio rput_when_all_eager/rput_promise_eager min=%.2f\n", conj_eager.min_ns / promise_eager.min_ns);
    std::printf("ratio rput_when_all_defer/rput_promise_defer min=%.2f\n", conj_defer.min_ns / promise_defer.min_ns);
  }
  upcxx::barrier();
  upcxx::delete_(mine);
  upcxx::finalize();
  return 0;
}
