// A collective whose own send waits for room in a full ring, and meanwhile receives its
// partner's message for the same collective (2 ranks, a team other than world, so the message
// path): the message must wait in the inbox and be consumed once the send returns, not drive
// the collective a second time from inside the send (which sent the round twice and could
// finish and recycle the state under the outer call).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {
long g_calls = 0;
}

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me();
  SPMD_CHECK(upcxx::rank_n() == 2);
  upcxx::team t = upcxx::world().split(0, me);  // world's members, on the message path
  // Rank 1's ring holds 4096 slots of 128 bytes; a batch of seven 1 KiB calls takes 58 of
  // them, so about 70 batches fit. Around that many calls, the last batch waits in rank 0's
  // buffer and the barrier's first message, which must send it first, finds no room and
  // polls. The exact count depends on the ring's layout (padding at its end), so the rounds
  // sweep a range of counts around it.
  const int first = argc > 1 ? std::atoi(argv[1]) : 490;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 16;
  std::array<char, 1000> payload{};
  long expected = 0;
  for (int r = 0; r < rounds; ++r) {
    const int calls = first + 2 * r;
    expected += calls;
    upcxx::barrier();
    if (me == 0) {
      for (int i = 0; i < calls; ++i) upcxx::rpc_ff(1, [](const std::array<char, 1000>&) { ++g_calls; }, payload);
      upcxx::future<> f = upcxx::barrier_async(t);  // blocks in its send until rank 1 drains
      f.wait();
    } else {
      // Stay away from progress while rank 0 fills our ring and blocks, then send our part of
      // the barrier (into rank 0's ring, which has room) and stay away a little longer.
      ::usleep(200000);
      upcxx::future<> f = upcxx::barrier_async(t);
      ::usleep(100000);
      f.wait();
      while (g_calls < expected) upcxx::progress();
    }
  }
  // Every collective on the team completed and left nothing behind (a round sent twice leaves
  // an orphan message at the partner, which destroy() reports).
  upcxx::barrier();
  t.destroy();
  if (me == 1) SPMD_CHECK(g_calls == expected);
  if (me == 0) std::printf("spmd_coll_reentry: OK\n");
  upcxx::finalize();
}
