// An RPC argument's type larger than UPCXX_MAX_RPC_ARG_SIZE (512 bytes) is refused: a view
// sends the same bytes without the copies.
// expect: upcxx::rpc_ff: an argument's type is larger than UPCXX_MAX_RPC_ARG_SIZE
// first: yes
#include <upcxx/upcxx.hpp>

struct grid {
  double cells[128];
};

int main() {
  static grid g;
  upcxx::rpc_ff(0, [](const grid&) {}, g);
}
