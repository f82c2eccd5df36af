// remote_cx::as_rpc through gannet-run (2 and 4 ranks): every completion that can carry it
// (rput of a value and bulk rput, alone and composed with source_cx/operation_cx futures)
// with every kind of function object (as_rpc_matrix.hpp). Each rank sends to its right
// neighbour, so each rank receives exactly one call per (kind, form), from its left one.
#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "as_rpc_matrix.hpp"
#include "check.hpp"

int main() {
  upcxx::init();
  using namespace as_rpc_matrix;
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  auto area = upcxx::new_array<int>(area_ints);
  auto areas = gannet::all_gather(area);
  reset();
  upcxx::barrier();

  AS_RPC_SEND_ALL_FORMS(areas[right], me);

  const int expected_total = n_kinds * n_forms;
  for (long i = 0; total_count() < expected_total; ++i) {
    SPMD_CHECK(i < 2000000000L);  // a lost call would spin here until the test's timeout
    upcxx::progress();
  }
  // A duplicate would arrive by now: every sender has finished sending before the barrier,
  // and calls started before a barrier have run at their target when it completes.
  upcxx::barrier();
  for (int i = 0; i < 1000; ++i) upcxx::progress();

  SPMD_CHECK(total_count() == expected_total);
  for (int k = 0; k < n_kinds; ++k) {
    for (int f = 0; f < n_forms; ++f) {
      if (g_count[k][f] != 1 || g_value[k][f] != value_for(k, f, left) + adjust[f]) {
        std::fprintf(stderr, "[rank %d] as_rpc kind %d form %d: ran %d times, value %d (expected once, %d)\n", me, k,
                     f, g_count[k][f], g_value[k][f], value_for(k, f, left) + adjust[f]);
        SPMD_CHECK(false);
      }
    }
  }
  SPMD_CHECK(g_bad_data == 0);  // every call saw its put's data, and the serialized functor arrived whole

  upcxx::barrier();
  upcxx::delete_array(area);
  upcxx::say() << "spmd_as_rpc OK";
  upcxx::finalize();
  return 0;
}
