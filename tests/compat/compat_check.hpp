// The one helper the compat programs share: a check that names the failed condition and ends
// the job. Everything else in tests/compat is plain UPC++ as its users write it.
#pragma once
#include <cstdio>
#include <cstdlib>

#define COMPAT_CHECK(cond)                                                                            \
  do {                                                                                                \
    if (!(cond)) {                                                                                    \
      std::fprintf(stderr, "compat check failed: %s at %s:%d (rank %d)\n", #cond, __FILE__, __LINE__, \
                   upcxx::initialized() ? upcxx::rank_me() : -1);                                     \
      std::abort();                                                                                   \
    }                                                                                                 \
  } while (0)
