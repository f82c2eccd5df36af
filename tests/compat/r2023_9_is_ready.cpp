// UPC++ 2023.9: future::is_ready() (ready() remains, deprecated), and discharge() and
// progress_required() without an argument select every persona the calling thread holds,
// while the forms taking a persona_scope keep working.
#include <cstdio>

#include <upcxx/upcxx.hpp>

#include "compat_check.hpp"

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();
  const int n = upcxx::rank_n();

  upcxx::future<int> ready = upcxx::make_future(3);
  COMPAT_CHECK(ready.is_ready() && ready.ready());
  upcxx::promise<> p;
  upcxx::future<> later = p.get_future();
  COMPAT_CHECK(!later.is_ready() && !later.ready());
  p.fulfill_anonymous(1);
  COMPAT_CHECK(later.is_ready());
  upcxx::future<int> reply = upcxx::rpc((me + 1) % n, [](int x) { return x + 1; }, me);
  while (!reply.is_ready()) upcxx::progress();
  COMPAT_CHECK(reply.result() == me + 1);

  // Traffic initiated under the master persona (communication in threadmode seq uses the
  // master persona), then a thread holding an extra persona on top of it: discharge() with
  // no argument covers the master persona below (2020.10's default, top_persona_scope(),
  // selected only the extra one).
  static int hits = 0;
  for (int i = 0; i < 50; ++i) upcxx::rpc_ff((me + 1) % n, [] { ++hits; });
  upcxx::persona extra;
  {
    upcxx::persona_scope scope(extra);
    COMPAT_CHECK(&upcxx::current_persona() == &extra);
    upcxx::discharge();
    COMPAT_CHECK(!upcxx::progress_required());
    // The explicit forms still compile and work: the innermost scope, and the whole stack.
    COMPAT_CHECK(!upcxx::progress_required(upcxx::top_persona_scope()));
    upcxx::discharge(upcxx::top_persona_scope());
    upcxx::discharge(upcxx::default_persona_scope());
    COMPAT_CHECK(!upcxx::progress_required(upcxx::default_persona_scope()));
  }
  for (int i = 0; i < 50; ++i) upcxx::rpc_ff((me + 1) % n, [] { ++hits; });
  upcxx::discharge(upcxx::default_persona_scope());
  COMPAT_CHECK(!upcxx::progress_required(upcxx::default_persona_scope()));
  // Back on the master persona: wait for our neighbour's 100 calls.
  while (hits < 100) upcxx::progress();
  upcxx::barrier();
  COMPAT_CHECK(hits == 100);
  COMPAT_CHECK(!upcxx::progress_required());
  if (me == 0) std::printf("r2023_9_is_ready: OK\n");
  upcxx::finalize();
  return 0;
}
