// expect: static assertion failed: upcxx::rput/rget: the element type must be TriviallySerializable
// rput needs a TriviallySerializable element type (spec 8.2.1 ¶2).
#include <string>
#include <upcxx/upcxx.hpp>
void f(upcxx::global_ptr<std::string> g) { upcxx::rput(std::string("x"), g); }
