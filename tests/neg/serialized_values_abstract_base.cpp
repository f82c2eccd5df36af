// UPCXX_SERIALIZED_VALUES hands a base's value to the constructor, so the base cannot be
// abstract (spec 6.2.2, 6.2.5).
// expect: UPCXX_SERIALIZED_BASE\(B\) within UPCXX_SERIALIZED_VALUES: B must not be abstract
// first: yes
#include <upcxx/upcxx.hpp>

struct shape {
  int id = 0;
  virtual double area() const = 0;
};
struct square : shape {
  double side = 1;
  double area() const override { return side * side; }
  square() = default;
  square(shape&& s, double d) : shape(s), side(d) {}
  UPCXX_SERIALIZED_VALUES(UPCXX_SERIALIZED_BASE(shape), side)
};

int main() {
  square s;
  square t = upcxx::serialization_traits<square>::deserialized_value(s);
  (void)t;
}
