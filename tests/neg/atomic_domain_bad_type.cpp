// expect: T must be float, double, or a 32- or 64-bit integer type
// first: yes
// atomic_domain<T> accepts only the types of spec 13.3 ¶6.
#include <cstdint>
#include <upcxx/upcxx.hpp>
upcxx::atomic_domain<std::int16_t>* p;
void f() { p = new upcxx::atomic_domain<std::int16_t>({upcxx::atomic_op::load}); }
