// A class with UPCXX_SERIALIZED_DELETE (or deriving from one) has no deserialized value
// (spec 6.2.5, 6.2.6): asking for it says so first.
// expect: deserialized_value: T's serialization is deleted \(UPCXX_SERIALIZED_DELETE
// first: yes
#include <upcxx/upcxx.hpp>

struct point {
  int x = 0, y = 0;
  UPCXX_SERIALIZED_FIELDS(x, y)
};
struct pinned_point : point {
  UPCXX_SERIALIZED_DELETE()
};

int main() {
  pinned_point p;
  pinned_point q = upcxx::serialization_traits<pinned_point>::deserialized_value(p);
  (void)q;
}
