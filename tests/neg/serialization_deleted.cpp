// expect: Writer::write\(object\): the object's type must be Serializable
// first: yes
// UPCXX_SERIALIZED_DELETE makes a class, and its derived classes, not Serializable (spec 6.2.5 ¶7).
#include <upcxx/serialization.hpp>
struct B {
  int a;
  UPCXX_SERIALIZED_FIELDS(a)
};
struct D : B {
  UPCXX_SERIALIZED_DELETE()
};
void f(upcxx::detail::serial_writer& w) { w.write(D{}); }
