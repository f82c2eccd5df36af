// new_array default-constructs its elements, as new T[n] (spec 2.4).
// expect: upcxx::new_array<T>\(n\): T must be DefaultConstructible
// first: yes
#include <upcxx/upcxx.hpp>

struct sized {
  explicit sized(int n) : n(n) {}
  int n;
};

int main() { upcxx::new_array<sized>(4); }
