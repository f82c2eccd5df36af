// An rpc must not return a team& either.
// expect: upcxx::rpc: the function must not return a dist_object& or a team&
// first: yes
#include <upcxx/upcxx.hpp>

int main() { upcxx::rpc(0, []() -> upcxx::team& { return upcxx::world(); }).wait(); }
