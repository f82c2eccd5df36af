// remote_cx::as_rpc's arguments are an RPC's (spec 7.3): they must be Serializable.
// expect: upcxx::remote_cx::as_rpc: every argument must be Serializable
// first: yes
#include <upcxx/upcxx.hpp>

struct cursor {
  cursor() {}
  cursor(const cursor&) {}
  virtual ~cursor() {}
};

int main() {
  upcxx::global_ptr<int> g = upcxx::new_<int>(0);
  upcxx::rput(1, g, upcxx::remote_cx::as_rpc([](const cursor&) {}, cursor{}) | upcxx::operation_cx::as_future())
      .wait();
}
