// Gannet's guarantee beyond the specification (docs/compatibility.md): an rpc or rpc_ff that
// a rank initiated before it entered a barrier of a team has run at its target, if the
// target is in that team, before the target's barrier completes. Every round, every rank
// sends to every member of the team an rpc_ff, an rpc (its future dropped into a vector that
// is "waited" the sloppy way real programs do: when_all of the vector, which is a value), and
// an rpc_ff with a large argument (70 KB: alone in its message on one machine, fetched by RMA
// from another; every 16th round 300 KB: through the sender's heap); then enters the barrier
// and, right after it, counts what arrived: nothing in between may make progress.
//
// Barriers: barrier() of world, barrier_async(world).wait(), barrier() and barrier_async of
// a split team (half of world), and of local_team().
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

// Counts per exchange, by its sequence number mod 4: a faster rank's calls of the next
// exchange may run here while we are still inside this one's final barrier.
std::uint64_t g_small[4] = {};  // rpc_ff and rpc bodies
std::uint64_t g_large[4] = {};
std::uint64_t g_large_bytes[4] = {};
int g_seq = 0;
std::uint64_t g_from_self[4] = {};

enum class how { world_barrier, world_async, team_barrier, team_async, local_barrier };
const char* name_of(how h) {
  switch (h) {
    case how::world_barrier: return "barrier(world)";
    case how::world_async: return "barrier_async(world)";
    case how::team_barrier: return "barrier(split team)";
    case how::team_async: return "barrier_async(split team)";
    case how::local_barrier: return "barrier(local_team)";
  }
  return "?";
}

void round_trip(how h, const upcxx::team& tm, int round) {
  const int slot = g_seq++ % 4;
  const std::size_t big = round % 16 == 15 ? 300 * 1024 : 70 * 1024;
  std::vector<char> payload(big, static_cast<char>(round));
  std::vector<upcxx::future<>> futs;
  for (int i = 0; i < tm.rank_n(); ++i) {
    const upcxx::intrank_t target = tm[(tm.rank_me() + i) % tm.rank_n()];
    upcxx::rpc_ff(target, [](int k, int from) { ++g_small[k]; g_from_self[k] += from == upcxx::rank_me(); }, slot, upcxx::rank_me());
    futs.push_back(upcxx::rpc(target, [](int k) { ++g_small[k]; }, slot));
    upcxx::rpc_ff(
        target,
        [](const std::vector<char>& v, int r, int k) {
          for (char c : v)
            if (c != static_cast<char>(r)) {
              std::fprintf(stderr, "check failed: large argument corrupted\n");
              std::exit(3);
            }
          ++g_large[k];
          g_large_bytes[k] += v.size();
        },
        payload, round, slot);
  }
  // What a real program does and believes waits for every RPC: it does not (UPC++'s
  // when_all takes the vector as a value and returns a ready future).
  // (Debug codemode warns at this call: tests/neg/when_all_of_vector.cpp.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  upcxx::when_all(futs).wait();
#pragma GCC diagnostic pop
  switch (h) {
    case how::world_barrier: upcxx::barrier(); break;
    case how::world_async: upcxx::barrier_async().wait(); break;
    case how::team_barrier:
    case how::local_barrier: upcxx::barrier(tm); break;
    case how::team_async: upcxx::barrier_async(tm).wait(); break;
  }
  const std::uint64_t n = static_cast<std::uint64_t>(tm.rank_n());
  if (g_small[slot] != 2 * n || g_large[slot] != n || g_large_bytes[slot] != n * big) {
    std::fprintf(stderr, "[rank %d] check failed: after %s in round %d (%d of its own rpc_ff ran): %llu of %llu small and %llu of %llu large RPCs ran\n",
                 upcxx::rank_me(), name_of(h), round, (int)g_from_self[slot], static_cast<unsigned long long>(g_small[slot]),
                 static_cast<unsigned long long>(2 * n), static_cast<unsigned long long>(g_large[slot]),
                 static_cast<unsigned long long>(n));
    std::exit(3);
  }
  g_small[slot] = g_large[slot] = g_large_bytes[slot] = g_from_self[slot] = 0;
  for (auto& f : futs) f.wait();  // now really: the replies
  // The next round's calls must not run before everyone has counted this one.
  upcxx::barrier(tm);
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  upcxx::team half = upcxx::world().split(upcxx::rank_me() % 2, upcxx::rank_me());
  for (int r = 0; r < rounds; ++r) {
    round_trip(how::world_barrier, upcxx::world(), r);
    round_trip(how::world_async, upcxx::world(), r);
    round_trip(how::team_barrier, half, r);
    round_trip(how::team_async, half, r);
    round_trip(how::local_barrier, upcxx::local_team(), r);
  }
  half.destroy();
  upcxx::barrier();
  if (upcxx::rank_me() == 0) std::printf("spmd_barrier_delivery OK (%d rounds)\n", rounds);
  upcxx::finalize();
}
