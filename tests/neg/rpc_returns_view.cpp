// expect: must not return a view
// first: yes
#include <upcxx/upcxx.hpp>
std::vector<int> g_items{1, 2, 3};
void f() {
  // The view's elements would live in the callee's incoming message (spec 6.7 ¶9).
  auto fut = upcxx::rpc(0, [] { return upcxx::make_view(g_items); });
  (void)fut;
}
