// Failure reporting used by the header-level checks: UPCXX_ASSERT, UPCXX_ASSERT_ALWAYS and the
// debug-codemode precondition checks. Every report names the caller's file and line.
#pragma once

#include "upcxx/version.hpp"

#include <sstream>
#include <string>

#include "upcxx/detail/source_loc.hpp"

namespace upcxx::detail {

// Prints "[rank N] file:line: what" on stderr and aborts the process (the launcher then ends
// the job and names the rank).
[[noreturn]] void fail_at(const char* file, int line, const std::string& what);
[[noreturn]] inline void fail_at(const detail::source_loc& loc, const std::string& what) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()), what);
}

}  // namespace upcxx::detail

#define UPCXX_DETAIL_ASSERT_1(cond) \
  ((cond) ? (void)0 : ::upcxx::detail::fail_at(__FILE__, __LINE__, "assertion failed: " #cond))
#define UPCXX_DETAIL_ASSERT_2(cond, msg)                                                   \
  ((cond) ? (void)0                                                                          \
          : ::upcxx::detail::fail_at(__FILE__, __LINE__,                                     \
                                     (std::ostringstream{} << "assertion failed: " #cond ": " \
                                                           << msg).str()))
#define UPCXX_DETAIL_ASSERT_PICK(_1, _2, name, ...) name

// UPCXX_ASSERT_ALWAYS(cond [, streamed message]): checked in every codemode.
#define UPCXX_ASSERT_ALWAYS(...) \
  UPCXX_DETAIL_ASSERT_PICK(__VA_ARGS__, UPCXX_DETAIL_ASSERT_2, UPCXX_DETAIL_ASSERT_1, )(__VA_ARGS__)

// UPCXX_ASSERT(cond [, streamed message]): checked in debug codemode only; in opt codemode
// the condition is not evaluated.
#if UPCXX_ASSERT_ENABLED
#define UPCXX_ASSERT(...) UPCXX_ASSERT_ALWAYS(__VA_ARGS__)
#else
#define UPCXX_ASSERT(...) ((void)0)
#endif
