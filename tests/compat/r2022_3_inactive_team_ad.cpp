// UPC++ 2022.3: team and atomic_domain are default-constructible (inactive) and
// move-assignable, so they can be members built before they are set up.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <iostream>

#include "compat_check.hpp"

struct solver {
  upcxx::team row;                              // set up in setup()
  upcxx::atomic_domain<std::int64_t> counters;  // likewise

  void setup() {
    COMPAT_CHECK(!row.is_active());
    COMPAT_CHECK(!counters.is_active());
    row = upcxx::world().split(upcxx::rank_me() % 2, upcxx::rank_me());
    counters = upcxx::atomic_domain<std::int64_t>({upcxx::atomic_op::fetch_add, upcxx::atomic_op::load});
    COMPAT_CHECK(row.is_active());
    COMPAT_CHECK(counters.is_active());
  }
  void teardown() {
    counters.destroy();
    row.destroy();
  }
};

int main() {
  upcxx::init();
  solver s;
  s.setup();
  upcxx::global_ptr<std::int64_t> slot = nullptr;
  if (upcxx::rank_me() == 0) slot = upcxx::new_<std::int64_t>(0);
  slot = upcxx::broadcast(slot, 0).wait();
  std::int64_t before = s.counters.fetch_add(slot, 1, std::memory_order_relaxed).wait();
  COMPAT_CHECK(before >= 0 && before < upcxx::rank_n());
  upcxx::barrier();
  if (upcxx::rank_me() == 0) {
    COMPAT_CHECK(s.counters.load(slot, std::memory_order_relaxed).wait() == upcxx::rank_n());
    COMPAT_CHECK(s.row.rank_n() == (upcxx::rank_n() + 1) / 2);
  }
  upcxx::barrier();
  s.teardown();
  if (upcxx::rank_me() == 0) {
    upcxx::delete_(slot);
    std::cout << "r2022_3_inactive_team_ad: OK" << std::endl;
  }
  upcxx::finalize();
}
