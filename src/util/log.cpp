#include "util/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace gannet::util {
namespace {
char g_prefix[64] = "gannet";

// One write(2) per message so lines of different ranks do not interleave mid-line.
template <std::size_t Bytes = 1024>
void emit(const char* kind, const char* file, int line, const char* fmt, va_list ap) {
  char buf[Bytes];
  int n = 0;
  if (file)
    n = std::snprintf(buf, sizeof buf, "%s: %s: %s:%d: ", g_prefix, kind, file, line);
  else
    n = std::snprintf(buf, sizeof buf, "%s: %s: ", g_prefix, kind);
  if (n < 0) n = 0;
  if (n < static_cast<int>(sizeof buf)) {
    int m = std::vsnprintf(buf + n, sizeof buf - n, fmt, ap);
    if (m > 0) n += m;
  }
  if (n > static_cast<int>(sizeof buf) - 2) n = sizeof buf - 2;
  buf[n++] = '\n';
  std::fflush(stdout);
  ssize_t ignored = ::write(STDERR_FILENO, buf, n);
  (void)ignored;
}
}  // namespace

void set_log_prefix(const char* prefix) {
  std::snprintf(g_prefix, sizeof g_prefix, "%s", prefix);
}

const char* log_prefix() { return g_prefix; }

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error", nullptr, 0, fmt, ap);
  va_end(ap);
  std::abort();
}

void fatal_at(const char* file, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error", file, line, fmt, ap);
  va_end(ap);
  std::abort();
}

void fatal_quiet(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit<8192>("error", nullptr, 0, fmt, ap);
  va_end(ap);
  std::_Exit(1);
}

void warn(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("warning", nullptr, 0, fmt, ap);
  va_end(ap);
}

}  // namespace gannet::util
