// rpc has source and operation completion (spec 9.3); remote_cx::as_rpc does not apply.
// expect: upcxx::rpc has source and operation completion only
// first: yes
#include <upcxx/upcxx.hpp>

int main() { upcxx::rpc(0, upcxx::remote_cx::as_rpc([] {}), [] {}); }
