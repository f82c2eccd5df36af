// An RPC's function object must be trivially copyable or Serializable (spec 6.5, 9.2): a
// lambda capturing a std::string by value is neither; the error says so first.
// expect: an RPC's function object must be a function, a lambda or functor that is trivially copyable
#include <string>

#include <upcxx/upcxx.hpp>

int main() {
  std::string s = "x";
  upcxx::rpc(0, [s] { return s.size(); }).wait();
}
