// gannet::overlap (issue 17): randomized programs of memput, memget, aggregate scopes,
// fence, phase_end, ordinary rput/rget and several kinds of phase boundary, on random
// overlapping ranges, every value read checked against a model of the blocking execution.
//
// Race-free by construction, so the blocking execution has one answer: rank a's array is cut
// into 2P slices; in a phase with pattern p, slice k of any array is written only by rank
// (a + k/2 + p) mod P when k + p is even, and read by everyone when it is odd. A rank reads
// its own write slices (seeing its own writes of the phase, possibly still outstanding) and
// the read-only ones (seeing what the previous phases wrote). Every rank simulates every rank's
// program on a model of all arrays (the programs are seeded, so each rank can), and checks its
// own reads against it. Patterns repeat (period 3, so prefetch histories hit) and change every
// 12 phases (so they miss and are pruned); the values written change every phase (so a stale
// prefetch shows).
//
// Usage: spmd_overlap [phases] [expect]   expect: "remote" (peers off-node with the layer on:
// puts must have been deferred and gets prefetched), "blocking" (GANNET_OVERLAP=0: nothing
// deferred), or "any".
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "gannet/exchange.hpp"
#include "gannet/overlap.hpp"

namespace ov = gannet::overlap;

namespace {

constexpr int L = 48;  // ints per slice

int P, S, M;  // ranks, slices per array, ints per array
std::vector<upcxx::global_ptr<int>> arrays;
std::vector<int> model;  // every array, in rank order

int value_of(int rank, int phase, int op, int j) {
  std::uint64_t h = (static_cast<std::uint64_t>(rank) * 1000003u + static_cast<std::uint64_t>(phase)) * 7919u +
                    static_cast<std::uint64_t>(op);
  h ^= h >> 17;
  return static_cast<int>(h % 1000000007u) + j;
}

bool writable(int k, int p) { return (k + p) % 2 == 0; }
int writer(int a, int k, int p) { return (a + k / 2 + p) % P; }

enum kind { k_put, k_get, k_agg_begin, k_agg_end, k_fence, k_phase_end, k_rput, k_rget };
struct op {
  kind what;
  int array = 0, offset = 0, count = 0;  // ints
};

// The op sequence of `rank` in a phase: depends on the pattern (not the phase) so it repeats.
std::vector<op> program(int rank, int epoch, int p) {
  std::mt19937 rng(static_cast<unsigned>(rank * 7907 + epoch * 131 + p * 17 + 1));
  std::vector<std::pair<int, int>> mine, readable;  // (array, slice)
  for (int a = 0; a < P; ++a)
    for (int k = 0; k < S; ++k) {
      if (!writable(k, p)) {
        readable.emplace_back(a, k);
      } else if (writer(a, k, p) == rank) {
        mine.emplace_back(a, k);
        readable.emplace_back(a, k);
      }
    }
  std::vector<op> ops;
  const int n = static_cast<int>(rng() % 48);
  bool in_agg = false;
  for (int i = 0; i < n; ++i) {
    const unsigned roll = rng() % 100;
    op o;
    if (roll < 36) {
      o.what = k_put;
    } else if (roll < 72) {
      o.what = k_get;
    } else if (roll < 78) {
      o.what = in_agg ? k_agg_end : k_agg_begin;
      in_agg = !in_agg;
    } else if (roll < 81) {
      o.what = k_fence;
    } else if (roll < 84) {
      o.what = k_phase_end;
    } else if (roll < 92) {
      o.what = k_rput;
    } else {
      o.what = k_rget;
    }
    if (in_agg && (o.what == k_fence || o.what == k_phase_end || o.what == k_rput || o.what == k_rget))
      o.what = k_get;  // inside a scope: memput/memget only (the rest would end it anyway)
    if (o.what == k_put || o.what == k_get || o.what == k_rput || o.what == k_rget) {
      const bool write = o.what == k_put || o.what == k_rput;
      if (write && mine.empty()) continue;
      const auto& from = write ? mine : readable;
      auto [a, k] = from[rng() % from.size()];
      const int off = static_cast<int>(rng() % L);
      // Mostly small; sometimes a whole slice or more than one (crossing into the next is
      // allowed only within the same kind of slice, so stay inside this one).
      int len = 1 + static_cast<int>(rng() % static_cast<unsigned>(L - off));
      o.array = a;
      o.offset = k * L + off;
      o.count = len;
    }
    ops.push_back(o);
  }
  if (in_agg) ops.push_back(op{k_agg_end});
  return ops;
}

struct deferred_check {
  std::vector<int> got, want;
  int op, array, offset;
};

[[noreturn]] void fail_read(int phase, int opi, int array, int offset, int j, int got, int want, const char* how) {
  std::fprintf(stderr, "[rank %d] check failed: phase %d op %d (%s) read array %d [%d] = %d, expected %d\n",
               upcxx::rank_me(), phase, opi, how, array, offset + j, got, want);
  std::exit(3);
}

void check_read(int phase, const deferred_check& d, const char* how) {
  for (std::size_t j = 0; j < d.want.size(); ++j)
    if (d.got[j] != d.want[j])
      fail_read(phase, d.op, d.array, d.offset, static_cast<int>(j), d.got[j], d.want[j], how);
}

// Applies `rank`'s writes of a phase to the model (another rank's program: its writes touch
// only its own write slices, which nobody else reads in the phase).
void apply_writes(int rank, int phase) {
  const auto ops = program(rank, phase / 12, phase % 3);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const op& o = ops[i];
    if (o.what != k_put && o.what != k_rput) continue;
    int* m = model.data() + static_cast<std::size_t>(o.array) * M + o.offset;
    for (int j = 0; j < o.count; ++j) m[j] = value_of(rank, phase, static_cast<int>(i), j);
  }
}

// A barrier with a call site of its own (the compiler would merge identical calls in one
// function, and identical functions: the store keeps them apart).
volatile int g_barrier_kind = 0;
template <int K>
[[gnu::noinline]] void barrier_at() {
  g_barrier_kind = K;
  upcxx::barrier();
  g_barrier_kind = -1;
}

void run_phase(int phase) {
  const int p = phase % 3;
  const int me = upcxx::rank_me();
  const auto ops = program(me, phase / 12, p);
  if (const char* t = std::getenv("SPMD_OVERLAP_TRACE"); t && std::atoi(t) == phase)
    for (std::size_t i = 0; i < ops.size(); ++i)
      std::fprintf(stderr, "[rank %d] op %zu: kind %d array %d offset %d count %d\n", me, i, ops[i].what,
                   ops[i].array, ops[i].offset, ops[i].count);
  std::deque<deferred_check> in_scope;  // memgets inside the open aggregate scope
  std::optional<ov::aggregate> scope;
  std::vector<int> buf;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const op& o = ops[i];
    int* m = model.data() + static_cast<std::size_t>(o.array) * M + o.offset;
    upcxx::global_ptr<int> g = arrays[static_cast<std::size_t>(o.array)] + o.offset;
    const auto n = static_cast<std::size_t>(o.count);
    switch (o.what) {
      case k_put:
      case k_rput:
        buf.resize(n);
        for (int j = 0; j < o.count; ++j) buf[static_cast<std::size_t>(j)] = value_of(me, phase, static_cast<int>(i), j);
        if (o.what == k_put) {
          ov::memput(g, buf.data(), n);
        } else {
          upcxx::rput(buf.data(), g, n).wait();
        }
        std::memcpy(m, buf.data(), n * sizeof(int));
        std::fill(buf.begin(), buf.end(), -1);  // the source may be reused at once
        break;
      case k_get:
      case k_rget: {
        deferred_check d{std::vector<int>(n, -7), std::vector<int>(m, m + o.count), static_cast<int>(i), o.array,
                         o.offset};
        if (scope) {
          // Valid only at the end of the scope: kept, checked there.
          in_scope.push_back(std::move(d));
          ov::memget(in_scope.back().got.data(), g, n);
          break;
        }
        if (o.what == k_get) {
          ov::memget(d.got.data(), g, n);
        } else {
          upcxx::rget(g, d.got.data(), n).wait();
        }
        check_read(phase, d, o.what == k_get ? "memget" : "rget");
        break;
      }
      case k_agg_begin:
        scope.emplace();
        break;
      case k_agg_end:
        scope.reset();
        for (const auto& d : in_scope) check_read(phase, d, "memget in an aggregate scope");
        in_scope.clear();
        break;
      case k_fence:
        ov::fence();
        break;
      case k_phase_end:
        ov::phase_end(static_cast<std::uint64_t>(p));
        break;
    }
  }
  // The others' writes of this phase, for the phases to come.
  for (int r = 0; r < P; ++r)
    if (r != me) apply_writes(r, phase);
  // The phase boundary: most often a barrier, sometimes another synchronization.
  switch (phase % 6) {
    case 3:
      upcxx::barrier_async().wait();
      break;
    case 4: {
      const int sum = upcxx::reduce_all(1, upcxx::op_fast_add).wait();
      SPMD_CHECK(sum == P);
      break;
    }
    default:
      // One call site per pattern in even phases, so that each pattern has a history of its
      // own; one shared call site in odd ones, where the history sees the patterns mixed.
      if (phase % 2 == 1) {
        upcxx::barrier();
      } else if (p == 0) {
        barrier_at<0>();
      } else if (p == 1) {
        barrier_at<1>();
      } else {
        barrier_at<2>();
      }
  }
}

// An RPC that announces new data discards the prefetches of the phase: rank r+1 writes its
// own memory and tells rank r by rpc_ff; r reads it after the barrier that began the phase
// (where, from the second round on, it has prefetched the old value).
int g_flag = 0;
void announce_round() {
  const int me = upcxx::rank_me();
  const bool reader = me % 2 == 0 && me + 1 < P, writer = me % 2 == 1;
  upcxx::global_ptr<int> x = arrays[static_cast<std::size_t>(me % 2 == 0 ? me + 1 : me)] + (M - 1);
  for (int round = 1; round <= 8; ++round) {
    upcxx::barrier();  // one call site: one phase identity
    if (writer) {
      *x.local() = 5000 + round;
      upcxx::rpc_ff(me - 1, [](int r) { g_flag = r; }, round);
    }
    if (reader) {
      while (g_flag != round) upcxx::progress();
      int got = 0;
      ov::memget(&got, upcxx::global_ptr<const int>(x), 1);
      if (got != 5000 + round)
        fail_read(round, 0, me + 1, M - 1, 0, got, 5000 + round, "memget after an announcing RPC");
    }
  }
  upcxx::barrier();
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int phases = argc > 1 ? std::atoi(argv[1]) : 60;
  const std::string expect = argc > 2 ? argv[2] : "any";
  P = upcxx::rank_n();
  S = 2 * P;
  M = S * L;
  const int me = upcxx::rank_me();
  upcxx::global_ptr<int> mine = upcxx::new_array<int>(static_cast<std::size_t>(M));
  for (int i = 0; i < M; ++i) mine.local()[i] = me * 1000003 + i;
  arrays = gannet::all_gather(mine);
  model.resize(static_cast<std::size_t>(P) * M);
  for (int a = 0; a < P; ++a)
    for (int i = 0; i < M; ++i) model[static_cast<std::size_t>(a) * M + i] = a * 1000003 + i;
  upcxx::barrier();

  for (int phase = 0; phase < phases; ++phase) run_phase(phase);
  // Every array as the model says, read by the owner.
  for (int i = 0; i < M; ++i) SPMD_CHECK(mine.local()[i] == model[static_cast<std::size_t>(me) * M + i]);
  upcxx::barrier();
  announce_round();

  const auto st = ov::stats();
  const bool remote = !upcxx::local_team_contains((me + 1) % P) || P == 1;
  if (expect == "remote" && P > 1) {
    // The layer did its work: puts left outstanding, gets served from prefetches, RPCs that
    // made prefetches stale, scopes sent as non-contiguous transfers.
    SPMD_CHECK(st.puts > 0 && st.puts_deferred > 0);
    SPMD_CHECK(st.prefetch_issued > 0 && st.prefetch_hits > 0);
    SPMD_CHECK(st.aggregate_sends > 0);
    if (me % 2 == 0 && me + 1 < P) SPMD_CHECK(st.prefetch_stale > 0);
  } else if (expect == "blocking") {
    SPMD_CHECK(st.puts_deferred == 0 && st.prefetch_issued == 0 && st.aggregate_sends == 0);
  }
  if (me == 0)
    std::printf("spmd_overlap OK: %d ranks, %d phases, rank 0: %llu puts (%llu deferred, %llu conflicts), %llu gets "
                "(%llu prefetched, %llu hits, %llu stale, %llu unused), %llu aggregated in %llu transfers%s\n",
                P, phases, (unsigned long long)st.puts, (unsigned long long)st.puts_deferred,
                (unsigned long long)st.put_conflicts, (unsigned long long)st.gets,
                (unsigned long long)st.prefetch_issued, (unsigned long long)st.prefetch_hits,
                (unsigned long long)st.prefetch_stale, (unsigned long long)st.prefetch_unused,
                (unsigned long long)st.aggregated, (unsigned long long)st.aggregate_sends,
                remote ? "" : " (peers on this machine: plain copies)");
  upcxx::delete_array(mine);
  upcxx::finalize();
  return 0;
}
