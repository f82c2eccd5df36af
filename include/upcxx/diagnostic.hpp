// The reference implementation's diagnostics header: fatal_error, UPCXX_FATAL_ERROR and the
// assertion macros (UPCXX_ASSERT, UPCXX_ASSERT_ALWAYS, detail/diagnostics.hpp).
//
// fatal_error(msg, title, func, file, line) prints one line on stderr, prefixed by the rank
// like every Gannet error ("rank 3: error: file:line: title: msg (in func)"), and aborts the
// process; the launcher then ends the job with a non-zero status and names the rank. It may
// be called before init() and after finalize(). Programs call it as `upcxx::fatal_error`
// (UPC++ 2020.10 and earlier) or `upcxx::detail::fatal_error` (where UPC++ 2021.3 moved it);
// both name the same functions here. The 2020.3 form without `func`, fatal_error(msg,
// title, file, line), is accepted too.
#pragma once

#include "upcxx/version.hpp"

#include <ostream>
#include <sstream>
#include <string>

#include "upcxx/detail/diagnostics.hpp"

namespace upcxx {

// title defaults to "fatal error"; func, file and line are printed when given.
[[noreturn]] void fatal_error(const char* msg, const char* title = nullptr, const char* func = nullptr,
                              const char* file = nullptr, int line = 0);
[[noreturn]] void fatal_error(const char* msg, const char* title, const char* file, int line);
[[noreturn]] inline void fatal_error(const std::string& msg, const char* title = nullptr, const char* func = nullptr,
                                     const char* file = nullptr, int line = 0) {
  fatal_error(msg.c_str(), title, func, file, line);
}
[[noreturn]] inline void fatal_error(const std::string& msg, const char* title, const char* file, int line) {
  fatal_error(msg.c_str(), title, file, line);
}

namespace detail {
using ::upcxx::fatal_error;

[[noreturn]] inline void fatal_error_stream(const std::ostream& message, const char* func, const char* file,
                                            int line) {
  ::upcxx::fatal_error(static_cast<const std::ostringstream&>(message).str(), nullptr, func, file, line);
}
}  // namespace detail

}  // namespace upcxx

// UPCXX_FATAL_ERROR(streamed message): fatal_error with the caller's function, file and line.
#ifndef UPCXX_FATAL_ERROR
#define UPCXX_FATAL_ERROR(ios_msg) \
  ::upcxx::detail::fatal_error_stream(::std::ostringstream() << ios_msg, __func__, __FILE__, __LINE__)
#endif
