// upcxx_memberof_general names fields, not references nor array elements (spec 3.2).
// expect: upcxx_memberof_general: MEMBER must name a field that is not a reference
// first: yes
#include <upcxx/upcxx.hpp>

struct holder {
  int value = 0;
  int& alias;
  holder() : alias(value) {}
};

int main() {
  upcxx::global_ptr<holder> h = upcxx::new_<holder>();
  upcxx::global_ptr<int> p = upcxx_memberof_general(h, alias).wait();
  (void)p;
}
