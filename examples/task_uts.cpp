// Unbalanced Tree Search (UTS; Olivier et al., LCPC 2006) with gannet::task_pool: a T1-like
// geometric tree walked with one task per node, against a serial walk and against ideal
// (serial time / ranks).
//
// The tree, UTS's "GEO" shape with fixed branching (T1 is b0 = 4, d = 10): a node is a
// 64-bit id and a depth, the root being id 19 at depth 0. A node below the depth limit d has
// k children, k drawn from the geometric distribution P(k) = p (1 - p)^k, k >= 0, with
// p = 1 / (1 + b0), whose mean is b0 = 4 (UTS's inverse-CDF draw, k = floor(log(1 - u) /
// log(1 - p)) for u uniform in [0, 1)); a node at depth >= d has none. Child i's id is a
// hash of (parent id, i), so the tree is the same whoever walks it.
//
// UTS derives a node's random draw from SHA-1 of the node's descriptor, and that SHA-1 is its
// per-node cost. Here a cheaper hash stands in for it: `rounds` chained rounds of splitmix64
// from the node's id (default 32, a fraction of a microsecond), the per-node work, which
// also makes tasks not empty. The draw takes the first round's output, so that the tree
// does not depend on `rounds`; every walker sums the last round's outputs into a checksum,
// which keeps the work from being optimized away.
//
// Versions, each timed from the root's visit until every rank knows the walk is done:
//   serial     rank 0 alone, depth first with an explicit stack
//   ideal      the serial time divided by the ranks
//   task_pool  a task per node, at its owner (a hash of its id modulo the ranks); a task
//              draws its node's children and spawns one task for each at the child's owner,
//              and run() returns at global termination
// Each rank counts the nodes it visited, the leaves, their checksum and the deepest depth;
// the sums over ranks (the maximum, for the depth) must equal the serial walk's, and the
// pool's own counts (pool.stats()) must agree: one task run and one spawned per node, every
// task sent to another rank received there.
//
//   gannet-run -n 2 task_uts [depth] [repeats] [rounds]
// depth defaults to 10 as in T1 (989,687 nodes from this root), repeats to 3, rounds to 32.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

namespace {

// ---- the tree ----

// splitmix64's finalizer (with its increment).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr double b0 = 4.0;                     // expected children of a node above the limit
constexpr std::uint64_t root_id = 19;          // UTS T1's root seed (-r 19); our hash differs
constexpr std::uint64_t owner_salt = 0x5851f42d4c957f2dULL;

struct tree {
  int depth_limit = 10;  // nodes at this depth or deeper have no children
  int rounds = 32;      // splitmix64 rounds per node: the per-node work
  double log_q = std::log(1.0 - 1.0 / (1.0 + b0));  // log(1 - p)
};
tree g_tree;

// A node's hash, UTS's SHA-1 of the node descriptor (cheaper): `rounds` chained rounds of
// splitmix64 from its id. `draw` gets the first round's output.
std::uint64_t node_hash(std::uint64_t id, std::uint64_t& draw) {
  std::uint64_t h = mix(id);
  draw = h;
  for (int r = 1; r < g_tree.rounds; ++r) h = mix(h);
  return h;
}

// The number of children of a node at `depth` whose hash drew h: geometric with mean b0 above
// the limit (inverse CDF of u in [0, 1), from h's top 53 bits), none at or below it.
int num_children(std::uint64_t h, int depth) {
  if (depth >= g_tree.depth_limit) return 0;
  const double u = static_cast<double>(h >> 11) * 0x1p-53;
  return static_cast<int>(std::floor(std::log1p(-u) / g_tree.log_q));
}

// Child i's id: a hash of (parent id, i).
std::uint64_t child_id(std::uint64_t parent, int i) {
  return mix(parent ^ (0xd1b54a32d192ed03ULL * (static_cast<std::uint64_t>(i) + 1)));
}

int owner(std::uint64_t id) { return static_cast<int>(mix(id ^ owner_salt) % static_cast<std::uint64_t>(upcxx::rank_n())); }

// What a walker counts.
struct tally {
  std::uint64_t nodes = 0, leaves = 0, checksum = 0;
  int max_depth = 0;
  // Visits a node: its hash (the work), its counts; returns its number of children.
  int visit(std::uint64_t id, int depth) {
    std::uint64_t draw;
    const std::uint64_t h = node_hash(id, draw);
    const int k = num_children(draw, depth);
    ++nodes;
    leaves += k == 0;
    checksum += h;
    max_depth = std::max(max_depth, depth);
    return k;
  }
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- serial: rank 0 alone, an explicit stack ----
struct serial_result {
  double ms;
  tally t;
};
serial_result walk_serial() {
  const double t0 = now_ms();
  tally t;
  std::vector<std::pair<std::uint64_t, int>> stack;  // (id, depth)
  stack.reserve(1024);
  stack.push_back({root_id, 0});
  while (!stack.empty()) {
    const auto [id, depth] = stack.back();
    stack.pop_back();
    const int k = t.visit(id, depth);
    for (int i = 0; i < k; ++i) stack.push_back({child_id(id, i), depth + 1});
  }
  return {now_ms() - t0, t};
}

// ---- task_pool: a task per node, at its owner ----
tally g_tally;  // this rank's

void visit_task(gannet::task_pool& pool, std::uint64_t id, int depth) {
  const int k = g_tally.visit(id, depth);
  for (int i = 0; i < k; ++i) {
    const std::uint64_t c = child_id(id, i);
    pool.spawn(owner(c), visit_task, c, depth + 1);
  }
}

struct pool_result {
  double ms;
  bool ok;
  double max_over_mean;  // of the nodes per rank
  double sent_share;     // of the spawns, to other ranks
};

pool_result walk_pool(const tally& want) {
  g_tally = tally{};
  gannet::task_pool pool;
  upcxx::barrier();
  const double t0 = now_ms();
  if (upcxx::rank_me() == 0) pool.spawn(owner(root_id), visit_task, root_id, 0);
  pool.run();
  upcxx::barrier();
  const double ms = now_ms() - t0;

  auto sum = [](std::uint64_t v) { return upcxx::reduce_all(v, upcxx::op_fast_add).wait(); };
  const std::uint64_t nodes = sum(g_tally.nodes), leaves = sum(g_tally.leaves), checksum = sum(g_tally.checksum);
  const std::uint64_t most = upcxx::reduce_all(g_tally.nodes, upcxx::op_fast_max).wait();
  const int depth = upcxx::reduce_all(g_tally.max_depth, upcxx::op_fast_max).wait();
  const gannet::task_stats s = pool.stats();
  const std::uint64_t ran = sum(s.run), spawned = sum(s.spawned), sent = sum(s.sent), received = sum(s.received);
  // Each task ran its node; a task at rank 0 spawned the root, and every node's parent the node.
  const bool ok = nodes == want.nodes && leaves == want.leaves && checksum == want.checksum &&
                  depth == want.max_depth && ran == want.nodes && spawned == want.nodes && sent == received &&
                  s.run == g_tally.nodes;
  const bool all_ok = upcxx::reduce_all(ok ? 0 : 1, upcxx::op_fast_add).wait() == 0;
  const double mean = static_cast<double>(nodes) / upcxx::rank_n();
  return {ms, all_ok, mean > 0 ? static_cast<double>(most) / mean : 0.0,
          spawned > 0 ? static_cast<double>(sent) / static_cast<double>(spawned) : 0.0};
}

double min_of(std::vector<double> v) { return *std::min_element(v.begin(), v.end()); }
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  if (argc > 1) g_tree.depth_limit = std::atoi(argv[1]);
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  if (argc > 3) g_tree.rounds = std::atoi(argv[3]);
  if (g_tree.depth_limit < 0 || g_tree.depth_limit > 30 || repeats < 1 || g_tree.rounds < 1) {
    if (me == 0) std::fprintf(stderr, "usage: task_uts [depth 0..30] [repeats >= 1] [rounds >= 1]\n");
    upcxx::finalize();
    return 1;
  }

  std::vector<double> serial, pool;
  serial_result want{};
  bool ok = true;
  pool_result last{};
  for (int r = 0; r < repeats; ++r) {
    // Serial: rank 0 alone (the others wait in the broadcast).
    if (me == 0) want = walk_serial();
    want = upcxx::broadcast(want, 0).wait();
    serial.push_back(want.ms);
    last = walk_pool(want.t);
    ok = ok && last.ok;
    pool.push_back(last.ms);
  }
  if (me == 0) {
    const tally& t = want.t;
    const double ideal = min_of(serial) / n;
    auto rate = [&](double ms) { return static_cast<double>(t.nodes) / (ms * 1e3); };  // Mnodes/s
    std::printf("task_uts: geometric tree (UTS GEO, fixed branching; T1-like), b0 = %.0f, depth limit %d, root %llu, "
                "%d splitmix64 rounds per node\n",
                b0, g_tree.depth_limit, static_cast<unsigned long long>(root_id), g_tree.rounds);
    std::printf("  %llu nodes (%llu leaves), max depth %d; %d rank%s, %d repeats\n",
                static_cast<unsigned long long>(t.nodes), static_cast<unsigned long long>(t.leaves), t.max_depth, n,
                n == 1 ? "" : "s", repeats);
    std::printf("  %-26s %10s %10s %10s %12s\n", "version", "min ms", "median ms", "Mnodes/s", "min / ideal");
    std::printf("  %-26s %10.2f %10.2f %10.2f %12s\n", "serial (one rank, stack)", min_of(serial), median_of(serial),
                rate(min_of(serial)), "");
    std::printf("  %-26s %10.2f %10s %10.2f %12.3f\n", "ideal (serial / ranks)", ideal, "", rate(ideal), 1.0);
    std::printf("  %-26s %10.2f %10.2f %10.2f %12.3f\n", "task_pool", min_of(pool), median_of(pool), rate(min_of(pool)),
                min_of(pool) / ideal);
    std::printf("  task_pool: %.1f%% of spawns to other ranks, busiest rank %.3fx the mean nodes\n",
                100.0 * last.sent_share, last.max_over_mean);
    std::printf("task_uts: %s\n", ok ? "results verified" : "RESULTS WRONG");
  }
  upcxx::finalize();
  return ok ? 0 : 1;
}
