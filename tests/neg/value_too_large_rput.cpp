// A by-value rput of a type larger than UPCXX_MAX_VALUE_SIZE (512 bytes) is refused: the
// bulk form takes a pointer.
// expect: upcxx::rput\(value, ...\): the value's type is larger than UPCXX_MAX_VALUE_SIZE
// first: yes
#include <upcxx/upcxx.hpp>

struct grid {
  double cells[128];
};

int main() {
  static grid g;
  upcxx::global_ptr<grid> there = upcxx::new_<grid>();
  upcxx::rput(g, there).wait();
}
