// Failure reporting used by the header-level checks: UPCXX_ASSERT, UPCXX_ASSERT_ALWAYS and the
// debug-codemode precondition checks. Every report names the caller's file and line.
#pragma once

#include "upcxx/version.hpp"

#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "upcxx/detail/source_loc.hpp"

namespace upcxx::detail {

// Prints "[rank N] file:line: what" on stderr and aborts the process (the launcher then ends
// the job and names the rank).
[[noreturn]] void fail_at(const char* file, int line, const std::string& what);
[[noreturn]] inline void fail_at(const detail::source_loc& loc, const std::string& what) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()), what);
}

// fail_at with the text of `message`, an std::ostringstream (UPCXX_ASSERT's streamed form).
[[noreturn]] inline void fail_at_stream(const char* file, int line, const std::ostream& message) {
  fail_at(file, line, static_cast<const std::ostringstream&>(message).str());
}

// Reports that an exception escaped a user callback (`kind`: "an LPC callback", ...) into the
// library, which the specification prohibits (UPC++ 2021.9 diagnoses it in debug codemode),
// with the exception's what() when it is a std::exception, and aborts.
[[noreturn]] void fail_callback_threw(const char* kind, const char* what) noexcept;

// Calls a user callback that the library runs; in debug codemode an exception leaving it is
// reported (fail_callback_threw) where it happened, instead of unwinding through library
// frames to an unexplained std::terminate. In opt codemode: a plain call.
template <typename Fn>
decltype(auto) guard_callback([[maybe_unused]] const char* kind, Fn&& fn) {
#if UPCXX_ASSERT_ENABLED
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    fail_callback_threw(kind, e.what());
  } catch (...) {
    fail_callback_threw(kind, nullptr);
  }
#else
  return std::forward<Fn>(fn)();
#endif
}

}  // namespace upcxx::detail

// The message of the two-argument forms is anything that can follow `std::ostream <<`
// (`"x was " << x`); it is built only when the condition fails.
#define UPCXX_DETAIL_ASSERT_1(cond) \
  ((cond) ? (void)0 : ::upcxx::detail::fail_at(__FILE__, __LINE__, "assertion failed: " #cond))
// No lambda: the macro must also work in a namespace-scope initializer, where a lambda may
// not capture. The first << binds to the temporary stream, the rest to the ostream& it returns.
#define UPCXX_DETAIL_ASSERT_2(cond, msg)                                                     \
  ((cond) ? (void)0                                                                          \
          : ::upcxx::detail::fail_at_stream(__FILE__, __LINE__,                              \
                                            ::std::ostringstream() << "assertion failed: " #cond ": " << msg))
#define UPCXX_DETAIL_ASSERT_PICK(_1, _2, name, ...) name

// UPCXX_ASSERT_ALWAYS(cond) and UPCXX_ASSERT_ALWAYS(cond, streamed message) (UPC++ 2021.9,
// docs/implementation-defined.md there): checked in every codemode.
#define UPCXX_ASSERT_ALWAYS(...) \
  UPCXX_DETAIL_ASSERT_PICK(__VA_ARGS__, UPCXX_DETAIL_ASSERT_2, UPCXX_DETAIL_ASSERT_1, )(__VA_ARGS__)

// UPCXX_ASSERT(cond) and UPCXX_ASSERT(cond, streamed message): checked in debug codemode
// only; in opt codemode it expands to nothing that is evaluated (neither the condition nor
// the message), as in UPC++.
#if UPCXX_ASSERT_ENABLED
#define UPCXX_ASSERT(...) UPCXX_ASSERT_ALWAYS(__VA_ARGS__)
#else
#define UPCXX_ASSERT(...) ((void)0)
#endif
