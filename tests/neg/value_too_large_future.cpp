// wait() on an lvalue future copies the value out: refused past UPCXX_MAX_VALUE_SIZE
// (wait_reference() does not copy).
// expect: upcxx::future::result\(\)/wait\(\) of an lvalue future: the value's type is larger
// first: yes
#include <upcxx/upcxx.hpp>

struct grid {
  double cells[128];
};

int main() {
  upcxx::future<grid> f = upcxx::make_future(grid{});
  grid copy = f.wait();
  (void)copy;
}
