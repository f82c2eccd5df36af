#include "util/size_parse.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace gannet::util {

std::optional<size_spec> parse_size(std::string_view text, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<size_spec> {
    if (why) *why = reason;
    return std::nullopt;
  };
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  bool seen_dot = false;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !seen_dot))) {
    if (text[i] == '.') seen_dot = true;
    ++i;
  }
  if (i == start) return fail("expected a number with an optional unit (KB, MB, GB, TB) or a percentage");
  std::string number(text.substr(start, i - start));
  double value = std::strtod(number.c_str(), nullptr);
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit;
  for (; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) break;
    unit.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return fail("unexpected text after the size");

  size_spec s;
  if (unit == "%") {
    if (!(value > 0) || value > 100) return fail("a percentage must be greater than 0 and at most 100");
    s.percent = value;
    return s;
  }
  double mult;
  if (unit.empty() || unit == "B") mult = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB") mult = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MIB") mult = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GIB") mult = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TB" || unit == "TIB") mult = 1024.0 * 1024 * 1024 * 1024;
  else return fail("unknown unit (use B, KB, MB, GB, TB or %)");
  double bytes = std::floor(value * mult);
  if (bytes < 1) return fail("the size must be at least one byte");
  if (bytes > 9.0e18) return fail("the size is too large");
  s.bytes = static_cast<std::uint64_t>(bytes);
  return s;
}

std::uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::uint64_t resolve_size(const size_spec& s, int local_ranks) {
  if (s.percent == 0) return s.bytes;
  if (local_ranks < 1) local_ranks = 1;
  double total = static_cast<double>(physical_memory_bytes()) * s.percent / 100.0;
  return static_cast<std::uint64_t>(total / local_ranks);
}

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string upcxx_heap_from_env(const char** name) {
  auto digits_only = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (const char* v = std::getenv("UPCXX_SHARED_HEAP_SIZE"); v && *v) {
    *name = "UPCXX_SHARED_HEAP_SIZE";
    std::string t = v;
    std::string upper;
    for (char c : t) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "MAX") return "50%";
    return digits_only(t) ? t + "MB" : t;
  }
  if (const char* v = std::getenv("UPCXX_SEGMENT_MB"); v && *v) {
    *name = "UPCXX_SEGMENT_MB";
    std::string t = v;
    return digits_only(t) ? t + "MB" : t;
  }
  *name = nullptr;
  return {};
}

}  // namespace gannet::util
