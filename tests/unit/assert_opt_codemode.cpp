// UPCXX_ASSERT and UPCXX_ASSERT_ALWAYS as a program built in opt codemode sees them (this one
// translation unit of future_test defines UPCXX_CODEMODE). It includes only the diagnostics
// header, so that no inline API function is compiled here in another codemode than in the
// rest of the test.
#define UPCXX_CODEMODE 1
#include <upcxx/detail/diagnostics.hpp>

static_assert(!UPCXX_ASSERT_ENABLED, "opt codemode turns the debug checks off");

// Returns how many of the increments below ran: UPCXX_ASSERT compiles away (neither its
// condition nor its message runs); UPCXX_ASSERT_ALWAYS evaluates its condition, and builds
// its message only when the condition fails.
int opt_codemode_assert_evaluations() {
  int n = 0;
  UPCXX_ASSERT(++n > 100);
  UPCXX_ASSERT(++n > 100, "message " << ++n);
  UPCXX_ASSERT_ALWAYS(++n > 0);
  UPCXX_ASSERT_ALWAYS(++n > 0, "message " << ++n);
  return n;
}

// A failing UPCXX_ASSERT_ALWAYS in opt codemode, with a streamed message.
void opt_codemode_assert_always_fails(int x) { UPCXX_ASSERT_ALWAYS(x > 0, "x was " << x << " in opt codemode"); }
