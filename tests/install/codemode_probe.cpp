// Reports the build mode a program got from the wrapper or package that compiled it, as the
// UPC++ headers see it (version.hpp treats UPCXX_CODEMODE=0 as undefined). Needs no init.
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
  std::printf("codemode=%s threadmode=%s optimized=%s asserts=%d\n", codemode, threadmode,
              optimized, UPCXX_ASSERT_ENABLED);
  return 0;
}
