// How programs test which UPC++ they are built against: the version macros (a gate per
// feature, as UPC++'s own tests write them), the functions that report the library's version,
// and the memory-kind macros, which a host-only build leaves undefined.
#include <upcxx/upcxx.hpp>

#include <iostream>

#include "compat_check.hpp"

#if UPCXX_VERSION < 20230305
#error "is_ready() is gated on UPCXX_VERSION >= 20230305 in programs of that era"
#endif
#if UPCXX_SPEC_VERSION < 20230300
#error "UPCXX_SPEC_VERSION reports a revision before 2023.3"
#endif
#if defined(UPCXX_KIND_CUDA) || defined(UPCXX_KIND_HIP) || defined(UPCXX_KIND_ZE)
#error "a host-only build must leave the GPU memory-kind macros undefined"
#endif
#ifndef UPCXX_NETWORK_SMP
#error "UPCXX_NETWORK_SMP is not defined"
#endif

int main() {
  upcxx::init();
  COMPAT_CHECK(upcxx::release_version() == UPCXX_VERSION);
  COMPAT_CHECK(upcxx::spec_version() == UPCXX_SPEC_VERSION);
  upcxx::future<> f = upcxx::make_future();
#if UPCXX_VERSION >= 20230305
  COMPAT_CHECK(f.is_ready());
#else
  COMPAT_CHECK(f.ready());
#endif
  upcxx::barrier();
  if (upcxx::rank_me() == 0) std::cout << "r2023_9_version_macros: OK" << std::endl;
  upcxx::finalize();
}
