// expect: (completion_object|no matching function)
// The last argument of rget must be a completion object.
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<int> g) { (void)upcxx::rget(g, 42); }
