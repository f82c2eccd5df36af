// An RPC's result travels back, so it must be Serializable (spec 9.2, 6.1): a
// std::unique_ptr is not; the error says so first.
// expect: upcxx::rpc: the function's result .*must be Serializable
#include <memory>

#include <upcxx/upcxx.hpp>

int main() {
  auto f = upcxx::rpc(0, [] { return std::make_unique<int>(1); });
  (void)f;
}
