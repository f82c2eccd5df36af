// The caller's file and line for debug-codemode reports, in C++17 and later.
//
// detail::source_loc is C++20; the public headers must compile as C++17, so this small type
// takes its place. A defaulted argument `source_loc loc = source_loc::current()` records the
// location of the call that used the default, through the compiler builtins that
// detail::source_loc itself is built on (GCC, Clang and the compilers that imitate them).
#pragma once

#include "upcxx/version.hpp"

namespace upcxx::detail {

class source_loc {
 public:
  constexpr source_loc() = default;

  static constexpr source_loc current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                                      const char* function = __builtin_FUNCTION()) noexcept {
    source_loc loc;
    loc.file_ = file;
    loc.line_ = line;
    loc.function_ = function;
    return loc;
  }

  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
};

}  // namespace upcxx::detail
