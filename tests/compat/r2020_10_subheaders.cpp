// Programs include the reference implementation's sub-headers directly instead of
// <upcxx/upcxx.hpp>: <upcxx/rput.hpp>, <upcxx/utility.hpp>, <upcxx/future/when_all.hpp>...
// This program includes every header name UPC++ 2020.10 and later releases install under
// include/upcxx/ (docs/compatibility.md lists them; the memory-kind and diagnostic headers are
// tested with their API), never the umbrella header, and uses a name from each.
// The install test compiles each installed header alone as well.
#include <upcxx/allocate.hpp>
#include <upcxx/atomic.hpp>
#include <upcxx/backend.hpp>
#include <upcxx/backend_fwd.hpp>
#include <upcxx/barrier.hpp>
#include <upcxx/bind.hpp>
#include <upcxx/broadcast.hpp>
#include <upcxx/ccs.hpp>
#include <upcxx/ccs_fwd.hpp>
#include <upcxx/command.hpp>
#include <upcxx/completion.hpp>
#include <upcxx/concurrency.hpp>
#include <upcxx/copy.hpp>
#include <upcxx/digest.hpp>
#include <upcxx/dist_object.hpp>
#include <upcxx/exceptions.hpp>
#include <upcxx/future.hpp>
#include <upcxx/future/apply.hpp>
#include <upcxx/future/core.hpp>
#include <upcxx/future/future1.hpp>
#include <upcxx/future/fwd.hpp>
#include <upcxx/future/impl_result.hpp>
#include <upcxx/future/impl_shref.hpp>
#include <upcxx/future/impl_then_lazy.hpp>
#include <upcxx/future/impl_when_all.hpp>
#include <upcxx/future/make_future.hpp>
#include <upcxx/future/promise.hpp>
#include <upcxx/future/then.hpp>
#include <upcxx/future/when_all.hpp>
#include <upcxx/global_fnptr.hpp>
#include <upcxx/global_ptr.hpp>
#include <upcxx/global_ptr_impl.hpp>
#include <upcxx/intru_queue.hpp>
#include <upcxx/lpc.hpp>
#include <upcxx/lpc_dormant.hpp>
#include <upcxx/memberof.hpp>
#include <upcxx/optional.hpp>
#include <upcxx/os_env.hpp>
#include <upcxx/persona.hpp>
#include <upcxx/reduce.hpp>
#include <upcxx/rget.hpp>
#include <upcxx/rpc.hpp>
#include <upcxx/rput.hpp>
#include <upcxx/segment_allocator.hpp>
#include <upcxx/serialization.hpp>
#include <upcxx/team.hpp>
#include <upcxx/team_fwd.hpp>
#include <upcxx/upcxx_config.hpp>
#include <upcxx/utility.hpp>
#include <upcxx/version.hpp>
#include <upcxx/view.hpp>
#include <upcxx/vis.hpp>
// These bring in the whole library, as UPC++'s do.
#include <upcxx/backend/gasnet/runtime.hpp>
#include <upcxx/backend/gasnet/runtime_fwd.hpp>
#include <upcxx/upcxx_internal.hpp>

#include <iostream>
#include <new>
#include <type_traits>
#include <vector>

#include "compat_check.hpp"

#if !UPCXX_BACKEND || !(UPCXX_BACKEND_GASNET_SEQ || UPCXX_BACKEND_GASNET_PAR)
#error "the backend macros are not set"
#endif
#if UPCXX_VERSION < 20201000L  // upcxx_config.hpp, version.hpp
#error "UPCXX_VERSION is older than 2020.10"
#endif

struct cell {
  long a;
  long b;
};

int main() {
  upcxx::init();  // backend.hpp, backend_fwd.hpp
  const upcxx::intrank_t me = upcxx::rank_me(), n = upcxx::rank_n();
  const upcxx::intrank_t right = (me + 1) % n;

  // allocate.hpp, segment_allocator.hpp, global_ptr.hpp, global_ptr_impl.hpp
  upcxx::global_ptr<long> mine = upcxx::new_array<long>(4);
  COMPAT_CHECK(mine && mine.where() == me && upcxx::shared_segment_size() > 0);
  // dist_object.hpp, future.hpp, future/*.hpp
  upcxx::dist_object<upcxx::global_ptr<long>> cells(mine);
  upcxx::global_ptr<long> theirs = cells.fetch(right).wait();
  upcxx::barrier();  // barrier.hpp

  // rput.hpp, rget.hpp, completion.hpp, command.hpp
  upcxx::rput(100L + me, theirs, upcxx::operation_cx::as_future()).wait();
  upcxx::barrier();
  COMPAT_CHECK(upcxx::rget(mine).wait() == 100 + (me + n - 1) % n);
  // copy.hpp, vis.hpp
  long pair[2] = {7, 8};
  upcxx::copy(pair, theirs + 2, 2).wait();
  upcxx::barrier();
  COMPAT_CHECK(mine.local()[2] == 7 && mine.local()[3] == 8);

  // memberof.hpp
  upcxx::global_ptr<cell> c = upcxx::new_<cell>(cell{1, 2});
  COMPAT_CHECK(upcxx::rget(upcxx_memberof(c, b)).wait() == 2);
  upcxx::delete_(c);

  // rpc.hpp, serialization.hpp, view.hpp
  std::vector<int> values{1, 2, 3};
  int sum = upcxx::rpc(right, [](upcxx::view<int> v) {
              int s = 0;
              for (int x : v) s += x;
              return s;
            }, upcxx::make_view(values)).wait();
  COMPAT_CHECK(sum == 6);

  // broadcast.hpp, reduce.hpp, team.hpp, team_fwd.hpp
  COMPAT_CHECK(upcxx::broadcast(42 + 0 * me, 0).wait() == 42);
  COMPAT_CHECK(upcxx::reduce_all(1, upcxx::op_fast_add).wait() == n);
  const upcxx::team& world = upcxx::world();
  COMPAT_CHECK(world.rank_n() == n && upcxx::local_team().rank_n() >= 1);

  // atomic.hpp
  upcxx::atomic_domain<long> ad({upcxx::atomic_op::fetch_add, upcxx::atomic_op::load});
  ad.fetch_add(theirs, 1, std::memory_order_relaxed).wait();
  upcxx::barrier();
  COMPAT_CHECK(ad.load(mine, std::memory_order_relaxed).wait() == 101 + (me + n - 1) % n);
  ad.destroy();

  // future/make_future.hpp, future/when_all.hpp, future/then.hpp, future/promise.hpp
  upcxx::promise<int> p;
  p.fulfill_result(5);
  upcxx::future<int, int> both = upcxx::when_all(p.get_future(), upcxx::make_future(6));
  COMPAT_CHECK(both.then([](int x, int y) { return x * y; }).wait() == 30);

  // persona.hpp, lpc.hpp, lpc_dormant.hpp
  bool ran = false;
  upcxx::current_persona().lpc([&ran] { ran = true; }).wait();
  COMPAT_CHECK(ran && upcxx::master_persona().active_with_caller());

  // digest.hpp, optional.hpp, os_env.hpp, utility.hpp, exceptions.hpp
  COMPAT_CHECK(upcxx::digest::zero().eat(me) == upcxx::digest::zero().eat(me));
  upcxx::optional<int> none;
  COMPAT_CHECK(!none.has_value());
  COMPAT_CHECK(upcxx::os_env<int>("GANNET_COMPAT_SURELY_UNSET", 9) == 9);
  static_assert(std::is_base_of<std::bad_alloc, upcxx::bad_shared_alloc>::value,
                "bad_shared_alloc is a bad_alloc");

  upcxx::delete_array(mine);
  upcxx::barrier();
  if (me == 0) {
    upcxx::say("") << "sub-headers: every name found";
    std::cout << "r2020_10_subheaders: OK" << std::endl;
  }
  upcxx::finalize();
}
