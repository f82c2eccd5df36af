// expect: bitwise operations need an integer type
// Bitwise atomics are not defined for floating-point domains (spec 13.3 Table 13.1).
#include <upcxx/upcxx.hpp>
void f(upcxx::atomic_domain<double>& ad, upcxx::global_ptr<double> p) {
  ad.bit_xor(p, 1.0, std::memory_order_relaxed).wait();
}
