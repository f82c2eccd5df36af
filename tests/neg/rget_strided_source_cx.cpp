// expect: have no source completion
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<int> g, int* d) {
  std::array<std::ptrdiff_t, 1> s{4};
  std::array<std::size_t, 1> e{8};
  upcxx::rget_strided(g, s, d, s, e, upcxx::source_cx::as_future());
}
