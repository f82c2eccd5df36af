// upcxx::experimental::os_env: typed reads of environment variables, a utility of the UPC++
// reference implementation that programs use for their own settings. Not in the
// specification; in upcxx:: until UPC++ 2021.3 moved it into experimental, and both spellings
// work here (docs/compatibility.md).
//   int n = upcxx::experimental::os_env<int>("MY_ITERS", 100);   // 100 when unset
//   std::int64_t b = upcxx::os_env("MY_BUF", std::int64_t{1} << 20, 1024);  // "64MB", or KiB
// The value is read as with operator>> from the whole variable; a variable that is unset, or
// that does not read as a T, gives the default. Booleans also read as yes/no, true/false and
// on/off, in any case.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>

namespace upcxx {
namespace detail {
[[noreturn]] void fail_os_env(const std::string& name, const char* why);
bool os_env_bool(const char* text, bool* out);
bool os_env_size(const char* text, std::size_t unit, std::int64_t* out);

template <typename T>
bool os_env_read(const char* text, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return os_env_bool(text, out);
  } else if constexpr (std::is_same_v<T, std::string>) {
    *out = text;
    return true;
  } else {
    std::istringstream in{std::string(text)};
    T value{};
    if (!(in >> value)) return false;
    in >> std::ws;
    if (!in.eof()) return false;
    *out = value;
    return true;
  }
}
}  // namespace detail

namespace experimental {

// The variable's value; a fatal error when it is unset or does not read as a T.
template <typename T>
T os_env(const std::string& name) {
  const char* text = std::getenv(name.c_str());
  if (!text) detail::fail_os_env(name, "is not set");
  T value{};
  if (!detail::os_env_read(text, &value)) detail::fail_os_env(name, "does not hold a value of the requested type");
  return value;
}

template <typename T>
T os_env(const std::string& name, const T& otherwise) {
  const char* text = std::getenv(name.c_str());
  T value{};
  if (text && detail::os_env_read(text, &value)) return value;
  return otherwise;
}

// A memory size: "64MB", "2G", "512k" (powers of 1024), or a bare number counted in units of
// mem_size_multiplier bytes (0 or 1: bytes).
inline std::int64_t os_env(const std::string& name, const std::int64_t& otherwise, std::size_t mem_size_multiplier) {
  const char* text = std::getenv(name.c_str());
  std::int64_t value = 0;
  if (text && detail::os_env_size(text, mem_size_multiplier, &value)) return value;
  return otherwise;
}

}  // namespace experimental

using experimental::os_env;

}  // namespace upcxx
