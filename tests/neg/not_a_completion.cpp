// expect: static assertion failed: upcxx::rput/rget: the argument after the pointers and count must be a completion object
// The last argument of rget must be a completion object.
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<int> g) { (void)upcxx::rget(g, 42); }
