// Crash reports: a rank that dies by SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT (which
// fatal() and an uncaught exception end in) prints what killed it and a symbolized
// backtrace of the failing thread before it dies, so that a multi-process job says where
// it failed instead of only "rank 3: killed by SIGSEGV". GANNET_BACKTRACE=0 turns the
// backtrace off; GANNET_FREEZE_ON_ERROR=1 makes the failing rank print its pid and host
// and wait for a debugger instead of dying.
//
// Part of the util room (log.hpp says what it may include). Threading: the handlers run on
// the failing thread; the first thread to fail reports, one failing after it waits for that
// report to end. The report uses only async-signal-safe calls apart from the loader's
// symbol lookup (dladdr), and starts addr2line (binutils, present wherever a compiler is)
// with vfork and execve for file:line; without it the report names functions only.
#pragma once

namespace gannet::util {

// Installs the handlers where a signal still has its default action (a sanitizer's or the
// program's own handler is left alone), and the terminate handler. Idempotent; a later
// call takes back the signals that were ours at the first call and that something else
// (MPI_Init) took since.
void install_crash_handlers();

// A line the report adds (e.g. "UPC++ is not initialized"), or nullptr; set once by the
// core, called from the signal handler, so it must only read memory.
void set_crash_note(const char* (*note)());

// Called once a crash is reported, before the rank dies or freezes: the trace writes what
// it can (util/observe.cpp).
void set_crash_flush(void (*flush)());

}  // namespace gannet::util
