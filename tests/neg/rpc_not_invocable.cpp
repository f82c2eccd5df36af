// The target calls the function with rvalue copies of the arguments: an int& parameter
// cannot take one.
// expect: upcxx::rpc: the function cannot be called with these arguments as the target passes them
// first: yes
#include <upcxx/upcxx.hpp>

int main() {
  int x = 1;
  upcxx::rpc(0, [](int& y) { ++y; }, x).wait();
}
