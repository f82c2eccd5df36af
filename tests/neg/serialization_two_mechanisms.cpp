// expect: redeclaration of .*upcxx_serialization
// At most one class serialization mechanism per class (spec 6.2 ¶3).
#include <upcxx/serialization.hpp>
struct S {
  int a, b;
  UPCXX_SERIALIZED_FIELDS(a)
  UPCXX_SERIALIZED_VALUES(b)
};
