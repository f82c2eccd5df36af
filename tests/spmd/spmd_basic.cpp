// Multi-rank behaviour of the foundation, run through gannet-run at 2 and 4 ranks:
//   spmd_basic EXPECTED_RANKS EXPECTED_HEAP_BYTES
// rank queries, teams, every segment mapped everywhere (is_local/local/to_global_ptr across
// ranks), stores through local() visible to the owner after a barrier, and barrier
// correctness under many iterations.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  SPMD_CHECK(argc == 3);
  SPMD_CHECK(n == std::atoi(argv[1]));
  SPMD_CHECK(upcxx::shared_segment_size() == std::strtoull(argv[2], nullptr, 10));
  SPMD_CHECK(upcxx::world().rank_me() == me && upcxx::world().rank_n() == n);
  SPMD_CHECK(upcxx::local_team().rank_n() == n);
  for (int r = 0; r < n; ++r) {
    SPMD_CHECK(upcxx::local_team_contains(r));
    SPMD_CHECK(upcxx::world()[r] == r && upcxx::local_team()[r] == r);
  }

  constexpr int len = 4096;
  upcxx::global_ptr<long> mine = upcxx::new_array<long>(len);
  for (int i = 0; i < len; ++i) mine.local()[i] = -1;
  std::vector<upcxx::global_ptr<long>> all = gannet::all_gather(mine);
  SPMD_CHECK(all[me] == mine);

  std::set<upcxx::global_ptr<long>> distinct(all.begin(), all.end());
  SPMD_CHECK(static_cast<int>(distinct.size()) == n);
  for (int r = 0; r < n; ++r) {
    SPMD_CHECK(all[r].where() == r);
    SPMD_CHECK(all[r].is_local());
    long* p = all[r].local();
    SPMD_CHECK(p != nullptr);
    // A raw pointer into another rank's segment maps back to the same global pointer.
    SPMD_CHECK(upcxx::to_global_ptr(p) == all[r]);
    SPMD_CHECK(upcxx::try_global_ptr(p + 17) == all[r] + 17);
    // Every rank writes its own slot of every rank's array.
    p[me] = 1000L * me + r;
  }
  int on_stack = 0;
  SPMD_CHECK(upcxx::try_global_ptr(&on_stack).is_null());
  upcxx::barrier();
  for (int w = 0; w < n; ++w) SPMD_CHECK(mine.local()[w] == 1000L * w + me);
  for (int i = n; i < len; ++i) SPMD_CHECK(mine.local()[i] == -1);

  // Printing is consistent across ranks: the same pointer prints the same everywhere.
  std::ostringstream os;
  os << all[0];
  struct text {
    char s[64];
  } t{};
  std::strncpy(t.s, os.str().c_str(), sizeof t.s - 1);
  auto texts = gannet::all_gather(t);
  for (int r = 0; r < n; ++r) SPMD_CHECK(std::strcmp(texts[r].s, t.s) == 0);

  // Barrier: between barriers every rank adds 1 to a counter in rank 0's heap; after each
  // barrier every rank must see exactly n * iteration (no rank ran ahead).
  auto counter = gannet::all_gather(me == 0 ? upcxx::new_<long>(0) : upcxx::global_ptr<long>())[0];
  long* c = counter.local();
  const int iters = 2000;
  for (int it = 1; it <= iters; ++it) {
    spmd_atomic_fetch_add(c, 1L);
    upcxx::barrier();
    SPMD_CHECK(spmd_atomic_load(c) == static_cast<long>(n) * it);
    upcxx::barrier();
  }
  upcxx::barrier();
  if (me == 0) upcxx::delete_(counter);
  upcxx::delete_array(mine);
  SPMD_CHECK(upcxx::shared_segment_used() == 0);

  // Nested init/finalize: the inner pair changes nothing.
  upcxx::init();
  upcxx::finalize();
  SPMD_CHECK(upcxx::initialized());
  upcxx::say() << "spmd_basic OK";
  upcxx::finalize();
  SPMD_CHECK(!upcxx::initialized());

  // Re-initialization after a full finalize (spec §2.1 ¶1): the job is the same.
  upcxx::init();
  SPMD_CHECK(upcxx::rank_me() == me && upcxx::rank_n() == n);
  auto again = gannet::all_gather(me * 3);
  for (int r = 0; r < n; ++r) SPMD_CHECK(again[r] == r * 3);
  upcxx::finalize();
  return 0;
}
