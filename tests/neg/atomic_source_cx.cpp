// Atomic operations have operation completion only (spec 13.3).
// expect: atomic_domain operations have only operation completion
// first: yes
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::atomic_domain<int> ad({upcxx::atomic_op::fetch_add});
  upcxx::global_ptr<int> g = upcxx::new_<int>(0);
  ad.fetch_add(g, 1, std::memory_order_relaxed, upcxx::source_cx::as_future());
}
