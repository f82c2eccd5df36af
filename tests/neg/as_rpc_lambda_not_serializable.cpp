// remote_cx::as_rpc checks its function object where the program wrote it, as rpc does: a
// lambda capturing a std::string by value is neither trivially copyable nor Serializable.
// expect: upcxx::remote_cx::as_rpc: an RPC's function object must be a function, a lambda or functor
// first: yes
#include <string>

#include <upcxx/upcxx.hpp>

void f(upcxx::global_ptr<int> g) {
  std::string s = "x";
  upcxx::rput(1, g, upcxx::remote_cx::as_rpc([s] { (void)s.size(); }));
}
