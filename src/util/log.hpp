// Fatal errors and diagnostics shared by the runtime, the transports and the tools.
//
// The util room (src/util): this file, crash reports (crash.hpp), size parsing (size_parse.hpp: the sizes UPC++ users
// write, shared by the launcher and init) and the traffic counters (traffic.hpp, behind
// gannet::traffic()). Every other room and the launcher use it. May include: nothing else of
// src/ (scripts/check-layering.sh), only the standard library and, for the counters' public
// face, include/gannet/traffic.hpp. Threading: every function may be called from any thread
// at any time, before init and after finalize; a message is formatted into one buffer and
// written with one write(2), so lines of different ranks and threads do not interleave
// mid-line; set_log_prefix() is called once, by the first init() (the prefix is a plain
// buffer). Progress: none; nothing here polls, waits or calls back into the library.
//
// Three kinds of errors: bugs hit GANNET_ASSERT (debug builds of the library and the
// header-level UPCXX_ASSERT in debug codemode), misuse that only shows at run time is
// reported by fatal() with the caller's file:line, and transport faults come back as a
// status. fatal() prints one line prefixed by the rank and aborts the process.
#pragma once

#include <cstdarg>

namespace gannet::util {

// Sets the prefix for every diagnostic of this process, e.g. "rank 3" (empty before init).
void set_log_prefix(const char* prefix);
// The prefix ("gannet" before init, "gannet rank 3" after).
const char* log_prefix();

[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void fatal_at(const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// A fatal error that is not a crash (no backtrace, util/crash.hpp): prints like fatal(), up to
// 8 KiB, and ends the process with status 1.
[[noreturn]] void fatal_quiet(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace gannet::util

#define GANNET_FATAL(...) ::gannet::util::fatal_at(__FILE__, __LINE__, __VA_ARGS__)

#ifdef GANNET_DEBUG_LIBRARY
#define GANNET_ASSERT(cond)                                                 \
  do {                                                                      \
    if (!(cond)) ::gannet::util::fatal_at(__FILE__, __LINE__, "assertion failed: %s", #cond); \
  } while (0)
#else
#define GANNET_ASSERT(cond) \
  do {                      \
  } while (0)
#endif
