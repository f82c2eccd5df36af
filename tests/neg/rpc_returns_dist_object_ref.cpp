// An rpc must not return a dist_object& (it names the target's object, which the initiator
// cannot use): rejected with the rule first.
// expect: upcxx::rpc: the function must not return a dist_object& or a team&
// first: yes
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::dist_object<int> d(1);
  upcxx::rpc(0, [](upcxx::dist_object<int>& mine) -> upcxx::dist_object<int>& { return mine; }, d).wait();
}
