// new_<T> builds one object; an array type is new_array's job (spec 2.4).
// expect: upcxx::new_<T>: T must not be an array type
// first: yes
#include <upcxx/upcxx.hpp>

int main() { upcxx::global_ptr<int[5]> g = upcxx::new_<int[5]>(); }
