// A non-contiguous get moves elements of one type T on both sides (spec 15.2).
// expect: upcxx::rget_regular: the source runs' and the destination runs' element types must be the same T
// first: yes
#include <vector>

#include <upcxx/upcxx.hpp>

int main() {
  upcxx::global_ptr<long> src = upcxx::new_array<long>(4);
  std::vector<upcxx::global_ptr<long>> from{src};
  double into[4];
  std::vector<double*> to{into};
  upcxx::rget_regular(from.begin(), from.end(), 4, to.begin(), to.end(), 4).wait();
}
