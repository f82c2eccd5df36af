// An RPC's function object must be trivially copyable or Serializable (spec 6.5, 9.2): a
// lambda capturing a std::string by value is neither; the error says so first.
// expect: upcxx::rpc: the function must be a function pointer, or a lambda or function object that is trivially copyable
// first: yes
#include <string>

#include <upcxx/upcxx.hpp>

int main() {
  std::string s = "x";
  upcxx::rpc(0, [s] { return s.size(); }).wait();
}
