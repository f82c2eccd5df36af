// MADNESS-like adaptive refinement ("Asynchronous Programming in UPC: A Case Study and
// Potential for Improvement" §3) with gannet::task_pool, against the case study's baseline
// (a lock-protected remote task queue) and against ideal (serial time / ranks).
//
// A function, a sum of narrow Gaussians in [0,1]^D (D = 1: binary tree; D = 3: octree), is
// projected on a tree of boxes. A refine task at box b (on b's owner: a hash of b's
// coordinates modulo the ranks) computes the coefficients of b's children (`refine_us` of
// work) and, for each child, spawns at the child's owner either a refine task, if the
// function still varies on the child's scale, or an insert task, which stores the child's
// coefficients in its owner's part of the tree (`insert_us` of work and a hash-map insert).
// Work per task follows the UPC case study's Table 1: 1D refine 3 us, insert 1 us; 3D
// about 100x heavier (refine 300 us, insert 15 us).
//
// Versions, each timed from rank 0's first spawn until every rank knows the tree is done:
//   ideal  the same tasks run by one rank from a plain FIFO, time divided by the ranks
//   pool   gannet::task_pool: spawn is one RPC record into the owner's queue, run()
//          detects termination
//   lock   the case study's baseline: each rank has a bounded task buffer in its shared heap
//          guarded by a lock word; a launch takes the owner's lock with a remote
//          compare-and-swap, reads the tail, rputs the task, bumps the tail and unlocks;
//          owners run their buffer, and idle ranks detect termination with two equal
//          reduce_all waves of (launched, executed)
// Every version checks that it stored exactly the serial run's leaves (count and checksum).
//
//   gannet-run -n 2 task_refine 1 [repeats] [scale]
//   gannet-run -n 2 task_refine 3 [repeats] [scale]
// `scale` multiplies the work per task (default 1).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <unordered_map>
#include <vector>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

namespace {

// ---- the problem ----

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct box {
  std::int32_t level = 0;
  std::int32_t dim = 1;
  std::int64_t l[3] = {0, 0, 0};
  std::uint64_t key() const { return mix(mix(mix(static_cast<std::uint64_t>(level)) ^ static_cast<std::uint64_t>(l[0])) ^
                                         static_cast<std::uint64_t>(l[1]) * 31 ^ static_cast<std::uint64_t>(l[2]) * 961); }
  box child(int i) const {
    box c = *this;
    ++c.level;
    for (int d = 0; d < dim; ++d) c.l[d] = 2 * l[d] + ((i >> d) & 1);
    return c;
  }
};

struct problem {
  int dim = 1;
  int max_level = 0;
  double width = 0;             // of each Gaussian
  double reach = 3;             // a centre within reach * width of a box makes it vary there
  double finest = 0.25;         // ... unless the box is at most finest * width wide
  std::vector<double> centers;  // dim per Gaussian
  double refine_us = 0, insert_us = 0;
  double iters_per_us = 0;      // of spin()

  // The function varies on b's scale if a centre lies within `reach` widths of b and b is
  // still wider than `finest` widths.
  bool needs_refine(const box& b) const {
    if (b.level >= max_level) return false;
    const double h = std::ldexp(1.0, -b.level);
    if (h <= finest * width) return false;
    const std::size_t n = centers.size() / static_cast<std::size_t>(dim);
    for (std::size_t g = 0; g < n; ++g) {
      bool near = true;
      for (int d = 0; d < dim && near; ++d) {
        const double lo = static_cast<double>(b.l[d]) * h, hi = lo + h;
        const double c = centers[g * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)];
        near = c > lo - reach * width && c < hi + reach * width;
      }
      if (near) return true;
    }
    return false;
  }
};

problem g_problem;
volatile double g_sink = 0;

// `us` microseconds of arithmetic (calibrated at start).
void spin(double us) {
  const long n = static_cast<long>(us * g_problem.iters_per_us);
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

// What a rank stores: the leaves it owns, and their checksum.
struct leaves {
  std::unordered_map<std::uint64_t, double> coeffs;
  std::uint64_t checksum = 0;
  void insert(const box& b) {
    spin(g_problem.insert_us);
    const std::uint64_t k = b.key();
    coeffs.emplace(k, static_cast<double>(b.level));
    checksum += k;
  }
};
leaves g_leaves;

int owner(const box& b) { return static_cast<int>(b.key() % static_cast<std::uint64_t>(upcxx::rank_n())); }

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- ideal: one rank, a plain FIFO ----
struct serial_result {
  double ms;
  std::uint64_t tasks, leaves, checksum;
};
serial_result run_serial(const box& root) {
  const double t0 = now_ms();
  std::deque<std::pair<bool, box>> q;  // (refine?, box)
  q.push_back({true, root});
  std::uint64_t tasks = 0, n_leaves = 0, sum = 0;
  while (!q.empty()) {
    auto [refine, b] = q.front();
    q.pop_front();
    ++tasks;
    if (refine) {
      spin(g_problem.refine_us);
      for (int i = 0; i < (1 << b.dim); ++i) {
        box c = b.child(i);
        q.push_back({g_problem.needs_refine(c), c});
      }
    } else {
      spin(g_problem.insert_us);
      ++n_leaves;
      sum += b.key();
    }
  }
  return {now_ms() - t0, tasks, n_leaves, sum};
}

// ---- pool ----
void pool_insert(gannet::task_pool&, box b) { g_leaves.insert(b); }
void pool_refine(gannet::task_pool& pool, box b) {
  spin(g_problem.refine_us);
  for (int i = 0; i < (1 << b.dim); ++i) {
    box c = b.child(i);
    if (g_problem.needs_refine(c)) {
      pool.spawn(owner(c), pool_refine, c);
    } else {
      pool.spawn(owner(c), pool_insert, c);
    }
  }
}

// ---- lock: the case study's remote task queue ----
struct task_rec {
  std::int64_t refine;
  box b;
};
struct lock_queue {
  static constexpr std::int64_t capacity = 1 << 16;
  upcxx::atomic_domain<std::int64_t> ad{{upcxx::atomic_op::compare_exchange, upcxx::atomic_op::store,
                                         upcxx::atomic_op::load}};
  upcxx::global_ptr<std::int64_t> words;  // [0] lock, [1] tail
  upcxx::global_ptr<task_rec> buf;
  std::vector<upcxx::global_ptr<std::int64_t>> words_of;
  std::vector<upcxx::global_ptr<task_rec>> buf_of;
  std::int64_t head = 0;
  std::uint64_t launched = 0, executed = 0;

  lock_queue() {
    words = upcxx::new_array<std::int64_t>(2);
    buf = upcxx::new_array<task_rec>(capacity);
    words.local()[0] = words.local()[1] = 0;
    upcxx::dist_object<std::pair<upcxx::global_ptr<std::int64_t>, upcxx::global_ptr<task_rec>>> dir({words, buf});
    for (int r = 0; r < upcxx::rank_n(); ++r) {
      auto p = dir.fetch(r).wait();
      words_of.push_back(p.first);
      buf_of.push_back(p.second);
    }
    upcxx::barrier();
  }
  ~lock_queue() {
    upcxx::barrier();
    ad.destroy();
    upcxx::delete_array(words);
    upcxx::delete_array(buf);
  }
  void launch(int target, const task_rec& t) {
    auto lock = words_of[static_cast<std::size_t>(target)], tail = lock + 1;
    while (ad.compare_exchange(lock, 0, 1, std::memory_order_acquire).wait() != 0) upcxx::progress();
    const std::int64_t at = ad.load(tail, std::memory_order_relaxed).wait();
    if (at >= capacity) {
      std::fprintf(stderr, "task_refine: rank %d's lock queue is full\n", target);
      std::abort();
    }
    upcxx::rput(t, buf_of[static_cast<std::size_t>(target)] + (at % capacity)).wait();
    ad.store(tail, at + 1, std::memory_order_relaxed).wait();
    ad.store(lock, 0, std::memory_order_release).wait();
    ++launched;
  }
  void refine(const box& b) {
    spin(g_problem.refine_us);
    for (int i = 0; i < (1 << b.dim); ++i) {
      box c = b.child(i);
      launch(owner(c), task_rec{g_problem.needs_refine(c) ? 1 : 0, c});
    }
  }
  // Runs tasks until the two-wave termination test holds.
  void execute() {
    struct counts {
      std::uint64_t launched, executed;
      counts operator+(const counts& o) const { return {launched + o.launched, executed + o.executed}; }
      bool operator==(const counts& o) const { return launched == o.launched && executed == o.executed; }
    };
    upcxx::future<counts> wave;
    bool in_wave = false, have_prev = false;
    counts prev{};
    for (;;) {
      const std::int64_t tail = ad.load(words + 1, std::memory_order_acquire).wait();
      if (head < tail) {
        task_rec t = buf.local()[head % capacity];
        ++head;
        ++executed;
        if (t.refine) {
          refine(t.b);
        } else {
          g_leaves.insert(t.b);
        }
        continue;
      }
      if (!in_wave) {
        wave = upcxx::reduce_all(counts{launched, executed}, upcxx::op_add);
        in_wave = true;
      }
      upcxx::progress();
      if (wave.ready()) {
        in_wave = false;
        const counts c = wave.result();
        if (have_prev && c == prev && c.launched == c.executed) return;
        prev = c;
        have_prev = true;
      }
    }
  }
};

struct run_result {
  double ms;
  bool ok;
};

run_result run_pool(const box& root, const serial_result& want) {
  g_leaves = leaves{};
  gannet::task_pool pool;
  upcxx::barrier();
  const double t0 = now_ms();
  if (upcxx::rank_me() == 0) pool.spawn(owner(root), pool_refine, root);
  pool.run();
  upcxx::barrier();
  const double ms = now_ms() - t0;
  const std::uint64_t n = upcxx::reduce_all(static_cast<std::uint64_t>(g_leaves.coeffs.size()), upcxx::op_fast_add).wait();
  const std::uint64_t sum = upcxx::reduce_all(g_leaves.checksum, upcxx::op_fast_add).wait();
  const std::uint64_t ran = upcxx::reduce_all(pool.stats().run, upcxx::op_fast_add).wait();
  return {ms, n == want.leaves && sum == want.checksum && ran == want.tasks};
}

run_result run_lock(const box& root, const serial_result& want) {
  g_leaves = leaves{};
  lock_queue q;
  upcxx::barrier();
  const double t0 = now_ms();
  if (upcxx::rank_me() == 0) q.launch(owner(root), task_rec{1, root});
  q.execute();
  upcxx::barrier();
  const double ms = now_ms() - t0;
  const std::uint64_t n = upcxx::reduce_all(static_cast<std::uint64_t>(g_leaves.coeffs.size()), upcxx::op_fast_add).wait();
  const std::uint64_t sum = upcxx::reduce_all(g_leaves.checksum, upcxx::op_fast_add).wait();
  const std::uint64_t ran = upcxx::reduce_all(q.executed, upcxx::op_fast_add).wait();
  return {ms, n == want.leaves && sum == want.checksum && ran == want.tasks};
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
  const int dim = argc > 1 ? std::atoi(argv[1]) : 1;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const double scale = argc > 3 ? std::atof(argv[3]) : 1.0;
  if (dim != 1 && dim != 3) {
    if (me == 0) std::fprintf(stderr, "usage: task_refine 1|3 [repeats] [scale]\n");
    upcxx::finalize();
    return 1;
  }
  problem& p = g_problem;
  p.dim = dim;
  std::uint64_t seed = 12345;
  const int gaussians = dim == 1 ? 160 : 4;
  p.width = dim == 1 ? 1e-3 : 2e-2;
  if (dim == 3) p.reach = 1.5, p.finest = 0.5;
  p.max_level = 30;
  for (int g = 0; g < gaussians * dim; ++g) p.centers.push_back(0.05 + 0.9 * static_cast<double>(mix(seed++) % 1000000) / 1e6);
  p.refine_us = (dim == 1 ? 3.0 : 300.0) * scale;
  p.insert_us = (dim == 1 ? 1.0 : 15.0) * scale;

  // Calibrate spin() on rank 0; every rank uses its figure.
  double ipu = 0;
  if (me == 0) {
    const long iters = 20000000;
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
      const double t0 = now_ms();
      double x = 1.0;
      for (long i = 0; i < iters; ++i) x = x * 1.0000001 + 1e-9;
      g_sink = x;
      best = std::min(best, now_ms() - t0);
    }
    ipu = static_cast<double>(iters) / (best * 1000.0);
  }
  p.iters_per_us = upcxx::broadcast(ipu, 0).wait();

  box root;
  root.dim = dim;
  std::vector<double> serial, pool, lock;
  serial_result want{};
  bool ok = true;
  for (int r = 0; r < repeats; ++r) {
    // Ideal: rank 0 alone (the others wait in the broadcast).
    if (me == 0) want = run_serial(root);
    want = upcxx::broadcast(want, 0).wait();
    serial.push_back(want.ms);
    // The two parallel versions alternate within each repeat.
    run_result a = run_pool(root, want);
    run_result b = run_lock(root, want);
    ok = ok && a.ok && b.ok;
    pool.push_back(a.ms);
    lock.push_back(b.ms);
  }
  if (me == 0) {
    const double ideal = min_of(serial) / n;
    std::printf("task_refine %dD: %llu tasks (%llu leaves), refine %.0f us, insert %.0f us, %d rank%s, %d repeats\n", dim,
                static_cast<unsigned long long>(want.tasks), static_cast<unsigned long long>(want.leaves), p.refine_us,
                p.insert_us, n, n == 1 ? "" : "s", repeats);
    std::printf("  %-26s %10s %10s %12s\n", "version", "min ms", "median ms", "min / ideal");
    std::printf("  %-26s %10.2f %10.2f %12s\n", "serial (one rank, FIFO)", min_of(serial), median_of(serial), "");
    std::printf("  %-26s %10.2f %10s %12.3f\n", "ideal (serial / ranks)", ideal, "", 1.0);
    std::printf("  %-26s %10.2f %10.2f %12.3f\n", "task_pool", min_of(pool), median_of(pool), min_of(pool) / ideal);
    std::printf("  %-26s %10.2f %10.2f %12.3f\n", "lock queue (seed baseline)", min_of(lock), median_of(lock),
                min_of(lock) / ideal);
    std::printf("  task_pool is %.2fx faster than the lock queue (min), %.2fx (median)\n", min_of(lock) / min_of(pool),
                median_of(lock) / median_of(pool));
    std::printf("task_refine: %s\n", ok ? "results verified" : "RESULTS WRONG");
  }
  upcxx::finalize();
  return ok ? 0 : 1;
}
