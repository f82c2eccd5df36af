// Version and configuration macros of the UPC++ specification (§2.3) and the programmer's
// guide (§2.4). Header-only; no other upcxx header is needed to use them.
#pragma once

// Every public header includes this one first, so that an older language mode fails here,
// with one line that says what to do, before any C++17 construct is parsed.
#if !defined(__cplusplus) || __cplusplus < 201703L
#error "Gannet (UPC++) needs C++17 or later: compile with -std=c++17 or newer"
#endif

// The newest UPC++ release whose host API Gannet completes, as that release spells it
// ([YYYY][MM][PP]), and the specification revision it implements ([YYYY][MM]00): code that
// tests `UPCXX_VERSION >= 20230305` for is_ready() (or any gate up to 2025.10) takes the path
// it takes with UPC++ 2025.10.0. The mapping, release by release: docs/compatibility.md.
#define UPCXX_VERSION 20251000L
#define UPCXX_SPEC_VERSION 20251000L

#define GANNET_VERSION_MAJOR 0
#define GANNET_VERSION_MINOR 1
#define GANNET_VERSION_PATCH 0

// The wrapper `upcxx` and the CMake package define UPCXX_CODEMODE (non-zero: "opt") and
// UPCXX_THREADMODE (non-zero: "par"). Undefined means "debug" and "seq", as in UPC++. A
// value of 0 is treated as undefined so that -DUPCXX_CODEMODE=0 selects debug.
#if defined(UPCXX_CODEMODE) && !(UPCXX_CODEMODE + 0)
#undef UPCXX_CODEMODE
#endif
#if defined(UPCXX_THREADMODE) && !(UPCXX_THREADMODE + 0)
#undef UPCXX_THREADMODE
#endif

// Only one network in this build: processes on one machine (smp). The MPI transport, when
// built, is chosen at run time and does not change compilation.
#define UPCXX_NETWORK_SMP 1

// The same two numbers as functions (the reference implementation's), for a program that
// compares the library it runs with to the headers it was compiled with.
namespace upcxx {
inline long release_version() { return UPCXX_VERSION; }
inline long spec_version() { return UPCXX_SPEC_VERSION; }
}  // namespace upcxx

// No GPU memory kind in this build: UPCXX_KIND_CUDA, UPCXX_KIND_HIP and UPCXX_KIND_ZE stay
// undefined, so `#if UPCXX_KIND_CUDA` / `#ifdef UPCXX_KIND_CUDA` programs take their host path.

// Objects passed or returned by value (rput/rget/broadcast/reductions of a value, a
// future's result() and wait() on an lvalue future, deserialized_value()) and an RPC's
// top-level arguments must be small: past these sizes a by-value copy through the stack is
// refused at compile time with a static_assert naming the by-pointer alternative, as UPC++
// does. A program may raise them (-DUPCXX_MAX_VALUE_SIZE=n, -DUPCXX_MAX_RPC_ARG_SIZE=n).
#ifndef UPCXX_MAX_VALUE_SIZE
#define UPCXX_MAX_VALUE_SIZE 512
#endif
#ifndef UPCXX_MAX_RPC_ARG_SIZE
#define UPCXX_MAX_RPC_ARG_SIZE 512
#endif
#define UPCXX_DETAIL_STR2(x) #x
#define UPCXX_DETAIL_STR(x) UPCXX_DETAIL_STR2(x)
#define UPCXX_DETAIL_VALUE_SIZE_MSG(fn, alternative)                                                          \
  fn ": the value's type is larger than UPCXX_MAX_VALUE_SIZE (" UPCXX_DETAIL_STR(UPCXX_MAX_VALUE_SIZE)       \
     " bytes): by-value copies of it go through the stack; use " alternative " instead (or raise the limit "  \
     "with -DUPCXX_MAX_VALUE_SIZE=n)"
namespace upcxx::detail {
template <typename T>
inline constexpr bool value_size_ok = sizeof(T) <= UPCXX_MAX_VALUE_SIZE;
}  // namespace upcxx::detail

// Header-level correctness checks (local() of a remote pointer, use before init, bad ranks)
// are on in debug codemode. A program may force them with -DUPCXX_ASSERT_ENABLED=1.
#ifndef UPCXX_ASSERT_ENABLED
#ifdef UPCXX_CODEMODE
#define UPCXX_ASSERT_ENABLED 0
#else
#define UPCXX_ASSERT_ENABLED 1
#endif
#endif
