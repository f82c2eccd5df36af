// A program whose communication is known exactly, for the trace and statistics test
// (tests/spmd/trace_test.sh checks the files GANNET_TRACE and GANNET_STATS write against
// these counts). Every rank, with next = me+1 and after = me+2 (mod P):
//   5 rput to next, 3 rget from next, 2 rpc round trips to next, 3 rpc_ff to after,
//   2 barrier(), 1 reduce_all, 1 gannet::gather_all.
#include <cstdio>
#include <cstdlib>

#include <gannet/collectives.hpp>
#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

namespace {
int g_bodies = 0;  // rpc and rpc_ff bodies run here
}

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int next = (me + 1) % n, after = (me + 2) % n;
  const upcxx::global_ptr<long> mine = upcxx::new_array<long>(8);
  // (gannet::all_gather is the runtime's own exchange: it records nothing.)
  const upcxx::global_ptr<long> there = gannet::all_gather(mine)[static_cast<std::size_t>(next)];
  upcxx::barrier();  // barrier 1
  for (int i = 0; i < 5; ++i) upcxx::rput(static_cast<long>(me * 100 + i), there + i).wait();
  long got[2];
  upcxx::rget(there, got, 2).wait();
  long one = upcxx::rget(there + 4).wait();
  upcxx::rget(there + 3).wait();
  for (int i = 0; i < 2; ++i) {
    const int v = upcxx::rpc(next, [](int x) { ++g_bodies; return x + 1; }, i).wait();
    if (v != i + 1) std::abort();
  }
  for (int i = 0; i < 3; ++i) upcxx::rpc_ff(after, [] { ++g_bodies; });
  // Every rank receives 2 calls from me-1 and 3 from me-2.
  while (g_bodies < 5) upcxx::progress();
  const long sum = upcxx::reduce_all(1L, upcxx::op_fast_add).wait();
  std::vector<long> all(static_cast<std::size_t>(n));
  gannet::gather_all(&one, all.data(), 1).wait();
  upcxx::barrier();  // barrier 2
  if (sum != n || got[0] != me * 100L || got[1] != me * 100L + 1 || one != me * 100L + 4 ||
      all[static_cast<std::size_t>(next)] != next * 100L + 4) {
    std::printf("rank %d: wrong values\n", me);
    return 1;
  }
  if (me == 0) std::printf("spmd_trace OK\n");
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
