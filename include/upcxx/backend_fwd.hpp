// UPC++'s backend macros, and <upcxx/backend_fwd.hpp>, a header name the reference
// implementation installs (it declares init, ranks and progress; so does init.hpp here).
//
// UPC++'s `upcxx` wrapper, `upcxx-meta PPFLAGS` and CMake target define UPCXX_BACKEND=1 and,
// by threadmode, UPCXX_BACKEND_GASNET_SEQ=1 or UPCXX_BACKEND_GASNET_PAR=1; programs test them
// before including anything (`#if UPCXX_BACKEND`) and after (`#if !UPCXX_BACKEND_GASNET_PAR`
// `#error "UPCXX_BACKEND=gasnet_par required."`). Gannet's wrapper, upcxx-meta, CMake targets
// and pkg-config files define them the same way. This header gives the same values to a
// build that defined none (a plain compiler with -I), from UPCXX_THREADMODE, and makes a
// command line whose macros contradict each other agree with UPCXX_THREADMODE.
#pragma once

#include "upcxx/version.hpp"

#ifndef UPCXX_BACKEND
#define UPCXX_BACKEND 1
#endif

#if !defined(UPCXX_BACKEND_GASNET_SEQ) && !defined(UPCXX_BACKEND_GASNET_PAR)
#ifdef UPCXX_THREADMODE
#define UPCXX_BACKEND_GASNET_PAR 1
#else
#define UPCXX_BACKEND_GASNET_SEQ 1
#endif
#endif
#ifndef UPCXX_BACKEND_GASNET_SEQ
#define UPCXX_BACKEND_GASNET_SEQ 0
#endif
#ifndef UPCXX_BACKEND_GASNET_PAR
#define UPCXX_BACKEND_GASNET_PAR 0
#endif
#ifndef UPCXX_BACKEND_GASNET
#define UPCXX_BACKEND_GASNET 1
#endif

// UPCXX_THREADMODE is what the library obeys: a command line that also says the other
// threadmode (a hand-written -DUPCXX_THREADMODE=1 beside a seq tool's flags) gets backend
// macros that match it, so the program's own `#if` tests take the path the library runs.
#if defined(UPCXX_THREADMODE) && (UPCXX_BACKEND_GASNET_SEQ || !UPCXX_BACKEND_GASNET_PAR)
#undef UPCXX_BACKEND_GASNET_SEQ
#undef UPCXX_BACKEND_GASNET_PAR
#define UPCXX_BACKEND_GASNET_SEQ 0
#define UPCXX_BACKEND_GASNET_PAR 1
#elif !defined(UPCXX_THREADMODE) && (UPCXX_BACKEND_GASNET_PAR || !UPCXX_BACKEND_GASNET_SEQ)
#undef UPCXX_BACKEND_GASNET_SEQ
#undef UPCXX_BACKEND_GASNET_PAR
#define UPCXX_BACKEND_GASNET_SEQ 1
#define UPCXX_BACKEND_GASNET_PAR 0
#endif

#include "upcxx/init.hpp"
