// expect: the last argument must be a completion object
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<int> g, const int* s) {
  std::array<std::ptrdiff_t, 1> st{4};
  std::array<std::size_t, 1> e{8};
  upcxx::rput_strided(s, st, g, st, e, 42);
}
