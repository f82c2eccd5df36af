// expect: T must be TriviallySerializable \(use broadcast_nontrivial
// first: yes
// broadcast of one value needs a TriviallySerializable type (spec 12.2 ¶39); the message names
// the form that serializes.
#include <string>
#include <upcxx/upcxx.hpp>
void f() { upcxx::broadcast(std::string("x"), 0).wait(); }
