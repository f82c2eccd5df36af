// op_fast_* apply to arithmetic types only (spec 12.2 ¶21); op_add takes any type with +.
// expect: upcxx::op_fast_add: T must be an arithmetic type
// first: yes
#include <upcxx/upcxx.hpp>

struct money {
  long cents;
  money operator+(money o) const { return {cents + o.cents}; }
};

int main() { upcxx::reduce_all(money{1}, upcxx::op_fast_add).wait(); }
