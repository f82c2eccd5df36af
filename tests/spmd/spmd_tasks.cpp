// The task pool (<gannet/tasks.hpp>, issue 13) on randomized task trees.
//
// A tree is a pure function of its seed: task `id` runs at rank owner(id), does a random
// amount of work, sometimes waits on an rpc to a random rank, and spawns fanout(id) children
// to random ranks (ids derived from its own). Every rank can therefore walk the tree alone
// and know how many tasks each rank must run. Checked, over several rounds of one pool:
// every task runs exactly once and on its rank; run() returns only when every task has run
// (the counts add up at its return, and nothing arrives afterwards); the pool's counters
// agree across ranks; arguments of every kind (trivial, string, vector, view, dist_object&,
// team&) arrive intact; pools on a split team work beside the world pool.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <unordered_set>
#include <vector>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct tree {
  std::uint64_t seed;
  int ranks;
  int max_depth;
  int owner(std::uint64_t id) const { return static_cast<int>(mix(id ^ seed) % static_cast<std::uint64_t>(ranks)); }
  int fanout(std::uint64_t id, int depth) const {
    if (depth >= max_depth) return 0;
    std::uint64_t h = mix(id * 3 + seed);
    return static_cast<int>(h % 5);  // 0..4 children: mean 2, a tree that sometimes dies out early
  }
  std::uint64_t child(std::uint64_t id, int i) const { return mix(id * 31 + static_cast<std::uint64_t>(i) + 1); }
  int work(std::uint64_t id) const { return static_cast<int>(mix(id + 7) % 2000); }
  bool waits(std::uint64_t id) const { return mix(id + 11) % 8 == 0; }
  int kind(std::uint64_t id) const { return static_cast<int>(mix(id + 13) % 4); }
};

// Per-rank record of one round.
struct round_state {
  tree t;
  std::unordered_set<std::uint64_t> ran;
  std::uint64_t bad = 0;  // tasks that ran on the wrong rank or with wrong arguments
};
round_state* g_round = nullptr;
volatile std::uint64_t g_sink = 0;

void spin(int n) {
  std::uint64_t x = 0;
  for (int i = 0; i < n; ++i) x = x * 6364136223846793005ULL + 1;
  g_sink = x;
}

void visit(gannet::task_pool& pool, std::uint64_t id, int depth);

// The same task reached through each argument kind.
struct by_functor {
  std::uint64_t id;
  void operator()(gannet::task_pool& pool, int depth) const { visit(pool, id, depth); }
};
void by_string(gannet::task_pool& pool, std::uint64_t id, int depth, const std::string& s) {
  if (s != "task " + std::to_string(id)) ++g_round->bad;
  visit(pool, id, depth);
}
void by_view(gannet::task_pool& pool, std::uint64_t id, int depth, upcxx::view<std::uint64_t> v,
             std::vector<int> w) {
  std::uint64_t k = 0;
  for (std::uint64_t x : v) {
    if (x != id + k) ++g_round->bad;
    ++k;
  }
  if (k != 3 || w.size() != static_cast<std::size_t>(depth)) ++g_round->bad;
  visit(pool, id, depth);
}

void spawn_one(gannet::task_pool& pool, std::uint64_t id, int depth, upcxx::dist_object<int>& dobj) {
  const int to = g_round->t.owner(id);
  switch (g_round->t.kind(id)) {
    case 0:
      pool.spawn(to, [](gannet::task_pool& p, std::uint64_t i, int d) { visit(p, i, d); }, id, depth);
      break;
    case 1:
      pool.spawn(to, by_functor{id}, depth);
      break;
    case 2:
      pool.spawn(to, by_string, id, depth, std::string("task ") + std::to_string(id));
      break;
    default: {
      std::uint64_t vals[3] = {id, id + 1, id + 2};
      std::vector<int> w(static_cast<std::size_t>(depth), 5);
      if (id % 2) {
        pool.spawn(to, by_view, id, depth, upcxx::make_view(vals, vals + 3), w);
      } else {
        // dist_object& and team& arguments.
        pool.spawn(
            to,
            [](gannet::task_pool& p, upcxx::dist_object<int>& d, upcxx::team& tm, std::uint64_t i, int dd) {
              if (*d != upcxx::rank_me() * 10 || &tm != &upcxx::world()) ++g_round->bad;
              visit(p, i, dd);
            },
            dobj, upcxx::world(), id, depth);
      }
    }
  }
}

upcxx::dist_object<int>* g_dobj = nullptr;

void visit(gannet::task_pool& pool, std::uint64_t id, int depth) {
  const tree& t = g_round->t;
  if (t.owner(id) != upcxx::rank_me()) ++g_round->bad;
  if (!g_round->ran.insert(id).second) ++g_round->bad;  // ran twice
  spin(t.work(id));
  if (t.waits(id)) {
    // Wait on communication inside a task: the rank keeps taking arrivals meanwhile.
    const int other = static_cast<int>(mix(id + 17) % static_cast<std::uint64_t>(upcxx::rank_n()));
    std::uint64_t r = upcxx::rpc(other, [](std::uint64_t x) { return x * 3; }, id).wait();
    if (r != id * 3) ++g_round->bad;
  }
  const int f = t.fanout(id, depth);
  for (int i = 0; i < f; ++i) spawn_one(pool, t.child(id, i), depth + 1, *g_dobj);
}

// How many tasks of the tree rooted at `id` each rank runs.
void walk(const tree& t, std::uint64_t id, int depth, std::vector<std::uint64_t>& per_rank) {
  ++per_rank[static_cast<std::size_t>(t.owner(id))];
  const int f = t.fanout(id, depth);
  for (int i = 0; i < f; ++i) walk(t, t.child(id, i), depth + 1, per_rank);
}

std::uint64_t sum_all(std::uint64_t v) { return upcxx::reduce_all(v, upcxx::op_fast_add).wait(); }

void one_round(gannet::task_pool& pool, std::uint64_t seed, int roots, int max_depth) {
  round_state rs{tree{seed, upcxx::rank_n(), max_depth}, {}, 0};
  g_round = &rs;
  std::vector<std::uint64_t> expect(static_cast<std::size_t>(upcxx::rank_n()), 0);
  std::vector<std::uint64_t> root_ids;
  for (int r = 0; r < roots; ++r) {
    std::uint64_t id = mix(seed + static_cast<std::uint64_t>(r) * 1000003ULL);
    root_ids.push_back(id);
    walk(rs.t, id, 0, expect);
  }
  const gannet::task_stats before = pool.stats();
  // Roots are spawned by the rank r % rank_n before run(), to their owners.
  upcxx::barrier();
  for (int r = 0; r < roots; ++r)
    if (r % upcxx::rank_n() == upcxx::rank_me()) spawn_one(pool, root_ids[static_cast<std::size_t>(r)], 0, *g_dobj);
  pool.run();
  const gannet::task_stats after = pool.stats();
  const std::uint64_t ran = after.run - before.run;
  // At run()'s return every task of the tree has run here.
  SPMD_CHECK(pool.pending() == 0);
  SPMD_CHECK(ran == expect[static_cast<std::size_t>(upcxx::rank_me())]);
  SPMD_CHECK(rs.ran.size() == ran);
  SPMD_CHECK(rs.bad == 0);
  // Nothing arrives after run() returned, not even after everyone has returned.
  upcxx::barrier();
  for (int i = 0; i < 200; ++i) upcxx::progress();
  upcxx::barrier();
  SPMD_CHECK(pool.stats().received == after.received);
  SPMD_CHECK(pool.pending() == 0);
  // The counters agree across ranks.
  SPMD_CHECK(sum_all(after.sent - before.sent) == sum_all(after.received - before.received));
  SPMD_CHECK(sum_all(after.spawned - before.spawned) + 0 == sum_all(ran));
  g_round = nullptr;
}

// Chains: one task alive per chain, hopping to the next rank with almost no work, while the
// other ranks sit idle and run termination waves: the pattern where counting in one wave
// (instead of two) declares termination too early.
int g_hops = 0;
void hop(gannet::task_pool& pool, int left) {
  ++g_hops;
  if (left > 0) pool.spawn((pool.team().rank_me() + 1) % pool.team().rank_n(), hop, left - 1);
}
void chain_rounds(gannet::task_pool& pool, int rounds, int length) {
  for (int round = 0; round < rounds; ++round) {
    g_hops = 0;
    pool.spawn(upcxx::rank_me(), hop, length - 1);
    pool.run();
    // rank_n chains of `length` tasks, each rank running every rank_n-th hop of each.
    SPMD_CHECK(sum_all(static_cast<std::uint64_t>(g_hops)) == static_cast<std::uint64_t>(length) * upcxx::rank_n());
    SPMD_CHECK(g_hops == length);
  }
}

// Late spawns: rank 0 has already reported itself idle to a wave when a task reaches it from
// rank 1; that task sends one task back and queues local work that sends another later.
// Rank 1 stays busy until the first is back and run, then reports: one counting wave would
// balance (rank 1's send against its receipt) and end rank 1's run() before the second
// task arrives; two waves must not.
int g_late = 0;
void late_noop(gannet::task_pool&) { ++g_late; }
void late_local(gannet::task_pool& pool) {
  spin(3000000);
  pool.spawn(1, late_noop);
}
void late_a(gannet::task_pool& pool) {
  pool.spawn(1, late_noop);
  pool.spawn(0, late_local);
}
void late_b(gannet::task_pool& pool) {
  spin(1000000);
  pool.spawn(0, late_a);
  while (pool.pending() == 0) upcxx::progress();  // rank 1 is next idle with the first reply run
}
void late_rounds(gannet::task_pool& pool, int rounds) {
  if (upcxx::rank_n() < 2) return;
  for (int round = 0; round < rounds; ++round) {
    g_late = 0;
    if (upcxx::rank_me() == 1) pool.spawn(1, late_b);
    pool.run();
    SPMD_CHECK(g_late == (upcxx::rank_me() == 1 ? 2 : 0));
    upcxx::barrier();
  }
}

}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();
  upcxx::dist_object<int> dobj(me * 10);
  g_dobj = &dobj;
  {
    gannet::task_pool pool;
    // An empty pool terminates, twice in a row.
    pool.run();
    pool.run();
    SPMD_CHECK(pool.stats().run == 0);
    const int rounds = std::getenv("SPMD_TASKS_ROUNDS") ? std::atoi(std::getenv("SPMD_TASKS_ROUNDS")) : 12;
    std::uint64_t total = 0;
    for (int round = 0; round < rounds; ++round) {
      const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(round) * 7919;
      one_round(pool, seed, 1 + round % 5, 6 + round % 5);
      total += pool.stats().run;
    }
    chain_rounds(pool, 20, 200);
    late_rounds(pool, 10);
    // A task spawned to this rank and to every other rank, run by a pool on a split team, next
    // to the world pool: the two pools do not see each other's tasks.
    upcxx::team half = upcxx::world().split(me % 2, me);
    gannet::task_pool hp(half);
    static int half_ran = 0;
    for (int r = 0; r < half.rank_n(); ++r)
      hp.spawn(r, [](gannet::task_pool& p, int from) {
        ++half_ran;
        if (from == p.team().rank_me()) p.spawn((from + 1) % p.team().rank_n(), [](gannet::task_pool&) { ++half_ran; });
      }, half.rank_me());
    hp.run();
    SPMD_CHECK(half_ran == half.rank_n() + 1);
    SPMD_CHECK(hp.stats().run == static_cast<std::uint64_t>(half_ran));
    SPMD_CHECK(pool.pending() == 0);
    upcxx::barrier();
    half.destroy();
    if (me == 0) std::printf("spmd_tasks: %d rounds, %llu tasks run on rank 0\n", rounds, static_cast<unsigned long long>(total));
  }
  // Tasks and termination waves that reach a rank before it has constructed the pool wait for
  // it: rank 1 constructs its pool late, after the others have spawned to it and started run().
  {
    static int early_ran = 0;
    if (me == 1) {
      struct timespec ts{0, 50 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
    gannet::task_pool pool;
    if (me != 1 && upcxx::rank_n() > 1)
      pool.spawn(1, [](gannet::task_pool&, std::string s) { early_ran += s == "early" ? 1 : 100; }, std::string("early"));
    if (me != 1 && upcxx::rank_n() > 1) pool.spawn(1, [](gannet::task_pool&, int x) { early_ran += x; }, 1);
    pool.run();
    SPMD_CHECK(early_ran == (me == 1 ? 2 * (upcxx::rank_n() - 1) : 0));
  }
  // Tasks still queued when a pool is destroyed are dropped, not run (and not leaked: ASan).
  {
    gannet::task_pool pool;
    pool.spawn(me, [](gannet::task_pool&, std::string) { std::abort(); }, std::string(100, 'x'));
    std::uint64_t v[2] = {1, 2};
    pool.spawn(me, [](gannet::task_pool&, upcxx::view<std::uint64_t>) { std::abort(); }, upcxx::make_view(v, v + 2));
    SPMD_CHECK(pool.pending() == 2);
  }
  upcxx::barrier();
  if (me == 0) std::printf("spmd_tasks OK\n");
  upcxx::finalize();
}
