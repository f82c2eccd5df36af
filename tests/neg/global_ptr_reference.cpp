// global_ptr<T> points to objects: a reference type is refused (spec 3.2).
// expect: global_ptr<T>: T must not be a reference type
// first: yes
#include <upcxx/upcxx.hpp>

upcxx::global_ptr<int&> p;
