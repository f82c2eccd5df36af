// rget has operation completion only (spec 8.2.2): a source_cx is refused.
// expect: upcxx::rget has no source completion
// first: yes
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::global_ptr<int> g = upcxx::new_<int>(0);
  int x;
  upcxx::rget(g, &x, 1, upcxx::source_cx::as_future()).wait();
}
