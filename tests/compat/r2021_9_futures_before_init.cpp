// UPC++ 2021.9: make_future(), to_future(), when_all() and future copy, move and assignment
// may be used before upcxx::init() -- for instance to seed a conjoining loop with a future
// at namespace scope -- and the futures so built are used normally once UPC++ runs. The
// streamed-message forms of UPCXX_ASSERT and UPCXX_ASSERT_ALWAYS came in the same release.
#include <cstdio>
#include <string>
#include <utility>

#include <upcxx/upcxx.hpp>

#include "compat_check.hpp"

// Built during dynamic initialization, long before main() calls init().
upcxx::future<> g_seed = upcxx::make_future();
upcxx::future<int> g_answer = upcxx::make_future(42);
upcxx::future<std::string> g_name = upcxx::to_future(std::string("gannet"));
upcxx::future<int, std::string> g_both = upcxx::when_all(g_answer, g_name);

int main() {
  // Still before init: conjoin, copy, move, assign.
  upcxx::future<> conj = g_seed;
  for (int i = 0; i < 3; ++i) conj = upcxx::when_all(conj, upcxx::make_future());
  upcxx::future<int> a = upcxx::to_future(7);
  upcxx::future<int> b = upcxx::to_future(a);  // a future passes through
  upcxx::future<int> moved = std::move(b);
  upcxx::future<int, double> mixed = upcxx::when_all(moved, 2.5, upcxx::make_future());
  upcxx::future<std::string> name_copy;
  name_copy = g_name;
  upcxx::future<> pending;  // default-constructed: never ready
  COMPAT_CHECK(!upcxx::initialized());
  COMPAT_CHECK(conj.is_ready() && mixed.is_ready() && !pending.is_ready());
  UPCXX_ASSERT(moved.result() == 7, "moved.result() was " << moved.result());

  upcxx::init();
  const int me = upcxx::rank_me();
  // The results made before init read, wait and chain as any other future's.
  COMPAT_CHECK(g_answer.wait() == 42);
  COMPAT_CHECK(std::get<1>(g_both.wait_tuple()) == "gannet");
  COMPAT_CHECK(name_copy.result() == "gannet");
  COMPAT_CHECK(mixed.result<0>() == 7 && mixed.result<1>() == 2.5);
  upcxx::future<int> doubled = g_answer.then([](int x) { return 2 * x; });
  COMPAT_CHECK(doubled.wait() == 84);
  // The seed future conjoins with real communication.
  const int n = upcxx::rank_n();
  upcxx::global_ptr<int> mine = upcxx::new_array<int>(n);
  upcxx::dist_object<upcxx::global_ptr<int>> slots(mine);
  upcxx::future<> all = g_seed;
  for (int r = 0; r < n; ++r) {
    upcxx::global_ptr<int> there = slots.fetch(r).wait();
    all = upcxx::when_all(all, upcxx::rput(me + 1, there + me));
  }
  all.wait();
  upcxx::barrier();
  for (int r = 0; r < n; ++r) COMPAT_CHECK(mine.local()[r] == r + 1);
  UPCXX_ASSERT_ALWAYS(mine.local()[me] == me + 1, "slot " << me << " holds " << mine.local()[me]);
  upcxx::barrier();
  upcxx::delete_array(mine);
  upcxx::finalize();
  // And after finalize, as before init.
  upcxx::future<int> after = upcxx::when_all(upcxx::make_future(1), upcxx::future<>(conj));
  COMPAT_CHECK(after.is_ready() && after.result() == 1);
  if (me == 0) std::printf("r2021_9_futures_before_init: OK\n");
  return 0;
}
