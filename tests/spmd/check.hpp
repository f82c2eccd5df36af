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

// Atomic access to a plain object in the shared heap that other ranks update. These
// programs also build as C++17 (the *_cxx17 tests), which has no std::atomic_ref.
template <typename T>
T spmd_atomic_load(const T* p) {
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}
template <typename T>
void spmd_atomic_store(T* p, T v) {
  __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}
template <typename T>
T spmd_atomic_fetch_add(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
