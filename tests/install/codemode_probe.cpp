// Reports the build mode a program got from the wrapper or package that compiled it, as the
// UPC++ headers see it (version.hpp treats UPCXX_CODEMODE=0 as undefined), and the backend
// macros the build defined before any header is read, as UPC++ programs test them (`#if
// UPCXX_BACKEND` guarding the include). Needs no init.
#if !defined(UPCXX_BACKEND)
#define PROBE_BACKEND "none"
#elif UPCXX_BACKEND_GASNET_SEQ + 0 && !(UPCXX_BACKEND_GASNET_PAR + 0)
#define PROBE_BACKEND "gasnet_seq"
#elif UPCXX_BACKEND_GASNET_PAR + 0 && !(UPCXX_BACKEND_GASNET_SEQ + 0)
#define PROBE_BACKEND "gasnet_par"
#else
#define PROBE_BACKEND "inconsistent"
#endif

#include <upcxx/upcxx.hpp>

#include <cstdio>

int main() {
#ifdef UPCXX_CODEMODE
  const char* codemode = "opt";
#else
  const char* codemode = "debug";
#endif
#ifdef UPCXX_THREADMODE
  const char* threadmode = "par";
#else
  const char* threadmode = "seq";
#endif
#ifdef __OPTIMIZE__
  const char* optimized = "yes";
#else
  const char* optimized = "no";
#endif
  std::printf("codemode=%s threadmode=%s optimized=%s asserts=%d backend=%s\n", codemode, threadmode,
              optimized, UPCXX_ASSERT_ENABLED, PROBE_BACKEND);
  return 0;
}
