// An RPC's arguments must be Serializable (spec 9.2): a class with a virtual destructor and a
// user-written copy constructor is not trivially copyable and says nothing about how it is
// serialized. The rule is the first error the compiler prints.
// expect: upcxx::rpc: every argument must be Serializable
// first: yes
#include <upcxx/upcxx.hpp>

struct particle {
  particle() {}
  particle(const particle& other) : mass(other.mass) {}
  virtual ~particle() {}
  double mass = 1;
};

int main() {
  particle p;
  upcxx::rpc(0, [](const particle& q) { return q.mass; }, p).wait();
}
