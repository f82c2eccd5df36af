// rpc_ff's arguments must be Serializable too (spec 9.2); the rule is the first error.
// expect: upcxx::rpc_ff: every argument must be Serializable
// first: yes
#include <upcxx/upcxx.hpp>

struct handle {
  handle() {}
  handle(const handle&) {}
  virtual ~handle() {}
};

int main() { upcxx::rpc_ff(0, [](const handle&) {}, handle{}); }
