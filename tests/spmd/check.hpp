// A tiny assertion for multi-rank test programs: a failed check prints the rank, file, line
// and expression and exits non-zero, which makes gannet-run fail the whole job.
#pragma once

#include <cstdio>
#include <cstdlib>

#define SPMD_CHECK(cond)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", ::upcxx::rank_me(), __FILE__, \
                   __LINE__, #cond);                                                       \
      std::exit(3);                                                                         \
    }                                                                                       \
  } while (0)
