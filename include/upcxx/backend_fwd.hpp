// UPC++'s backend macros, and <upcxx/backend_fwd.hpp>, a header name the reference
// implementation installs (it declares init, ranks and progress; so does init.hpp here).
//
// UPC++'s `upcxx` wrapper, `upcxx-meta PPFLAGS` and CMake target define UPCXX_BACKEND=1 and,
// by threadmode, UPCXX_BACKEND_GASNET_SEQ=1 or UPCXX_BACKEND_GASNET_PAR=1; programs test them
// before including anything (`#if UPCXX_BACKEND`) and after (`#if !UPCXX_BACKEND_GASNET_PAR`
// `#error "UPCXX_BACKEND=gasnet_par required."`). Gannet's wrapper, upcxx-meta, CMake targets
// and pkg-config files define them the same way. This header gives the same values to a
// build that defined none (a plain compiler with -I), from UPCXX_THREADMODE, and refuses a
// command line whose macros contradict each other, since a program that takes its par path
// in a seq build races.
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

#if UPCXX_BACKEND_GASNET_SEQ && UPCXX_BACKEND_GASNET_PAR
#error "UPCXX_BACKEND_GASNET_SEQ and UPCXX_BACKEND_GASNET_PAR are both set: pick one threadmode (upcxx -threadmode=seq|par)"
#elif UPCXX_BACKEND_GASNET_PAR && !defined(UPCXX_THREADMODE)
#error "UPCXX_BACKEND_GASNET_PAR is set but this is a threadmode seq build: build with upcxx -threadmode=par (or -DUPCXX_THREADMODE=1)"
#elif UPCXX_BACKEND_GASNET_SEQ && defined(UPCXX_THREADMODE)
#error "UPCXX_BACKEND_GASNET_SEQ is set but UPCXX_THREADMODE selects threadmode par: use upcxx -threadmode=par, UPCXX_THREADMODE=par upcxx-meta, Gannet::upcxx_par or pkg-config upcxx-par"
#endif

#include "upcxx/init.hpp"
