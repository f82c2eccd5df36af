// The task pool: task launch and termination, next to the limits measured in the
// same run on rank 0.
//
// No-op launch (Table 2 of "Asynchronous Programming in UPC: A Case Study and Potential
// for Improvement"): every rank but 0 launches `n` no-op tasks into rank 0,
// which runs them; the time per launch is rank 0's time from the start until it has run all
// (n * (ranks - 1)) of them, divided by their number, for
//   pool      gannet::task_pool::spawn, then run() (its termination included)
//   rpc_ff    upcxx::rpc_ff of the same shape (a function and one 8-byte argument), rank 0
//             polling progress until it has counted them all
//   lock      the case study's lock-protected remote queue: compare-and-swap on rank 0's lock
//             word, atomic load of the tail, rput of the 16-byte task, atomic store of the
//             tail, release; rank 0 polls its tail and runs what it finds
// Termination: pool.run() on an empty pool against upcxx::barrier(), per call.
//   gannet-run -n 2 gannet-bench-tasks [n]
//   GANNET_BYPASS=0 gannet-run --mpi -n 2 gannet-bench-tasks   (every peer through MPI)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

#include "timed.hpp"

namespace gb = gannet::bench;

namespace {

std::uint64_t g_count = 0;  // no-op tasks run on rank 0
void noop_task(gannet::task_pool&, std::uint64_t x) { g_count += x; }
void noop_rpc(std::uint64_t x) { g_count += x; }

struct task_rec {
  std::uint64_t fn;
  std::uint64_t arg;
};

// The earliest of the ranks' start times: steady_clock is CLOCK_MONOTONIC, one clock for all
// processes of the machine, so a rank descheduled right after the barrier cannot shorten a
// measurement by starting its clock late.
double earliest(double t0) { return upcxx::reduce_all(t0, upcxx::op_fast_min).wait(); }

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

gb::stats summarize(const std::vector<double>& per) {
  gb::stats s;
  s.min_ns = *std::min_element(per.begin(), per.end());
  s.median_ns = gb::detail::median_of(per);
  s.repeats = static_cast<int>(per.size());
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  gb::limits lim = gb::print_limits_on_first_rank();
  upcxx::init();
  const int me = upcxx::rank_me(), n_ranks = upcxx::rank_n();
  if (n_ranks < 2) {
    if (me == 0) std::fprintf(stderr, "run with 2 or more ranks\n");
    upcxx::finalize();
    return 1;
  }
  const long n = argc > 1 ? std::atol(argv[1]) : 20000;  // launches per sending rank
  const std::uint64_t total = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n_ranks - 1);
  const char* bypass = std::getenv("GANNET_BYPASS");
  if (me == 0)
    std::printf("# tasks: %d ranks, %ld no-op launches from each of ranks 1..%d into rank 0%s\n", n_ranks, n,
                n_ranks - 1, bypass && std::strcmp(bypass, "0") == 0 ? " (GANNET_BYPASS=0: through the transport)" : "");

  gannet::task_pool pool;
  // The lock queue's words and buffer on rank 0.
  constexpr std::uint64_t capacity = 1 << 20;
  upcxx::atomic_domain<std::uint64_t> ad({upcxx::atomic_op::compare_exchange, upcxx::atomic_op::store,
                                          upcxx::atomic_op::load});
  upcxx::global_ptr<std::uint64_t> words;  // [0] lock, [1] tail
  upcxx::global_ptr<task_rec> buf;
  if (me == 0) {
    words = upcxx::new_array<std::uint64_t>(2);
    buf = upcxx::new_array<task_rec>(capacity);
  }
  words = upcxx::broadcast(words, 0).wait();
  buf = upcxx::broadcast(buf, 0).wait();
  if (total > capacity) {
    if (me == 0) std::fprintf(stderr, "too many launches for the lock queue (at most %llu)\n",
                              static_cast<unsigned long long>(capacity));
    upcxx::finalize();
    return 1;
  }

  const int rounds = 7;
  std::vector<double> t_pool, t_rpc, t_lock, t_empty, t_barrier;
  for (int round = 0; round < rounds; ++round) {
    // pool
    g_count = 0;
    upcxx::barrier();
    double t0 = now_ns();
    if (me != 0)
      for (long i = 0; i < n; ++i) pool.spawn(0, noop_task, std::uint64_t{1});
    pool.run();
    double t1 = now_ns();
    t0 = earliest(t0);
    if (me == 0) {
      if (g_count != total) std::abort();
      t_pool.push_back((t1 - t0) / static_cast<double>(total));
    }

    // rpc_ff
    g_count = 0;
    upcxx::barrier();
    t0 = now_ns();
    if (me != 0) {
      for (long i = 0; i < n; ++i) upcxx::rpc_ff(0, noop_rpc, std::uint64_t{1});
    } else {
      while (g_count != total) upcxx::progress();
      t1 = now_ns();
    }
    t0 = earliest(t0);
    if (me == 0) t_rpc.push_back((t1 - t0) / static_cast<double>(total));

    // lock
    g_count = 0;
    if (me == 0) words.local()[0] = words.local()[1] = 0;
    upcxx::barrier();
    t0 = now_ns();
    if (me != 0) {
      for (long i = 0; i < n; ++i) {
        while (ad.compare_exchange(words, 0, 1, std::memory_order_acquire).wait() != 0) upcxx::progress();
        const std::uint64_t at = ad.load(words + 1, std::memory_order_relaxed).wait();
        upcxx::rput(task_rec{0, 1}, buf + at).wait();
        ad.store(words + 1, at + 1, std::memory_order_relaxed).wait();
        ad.store(words, 0, std::memory_order_release).wait();
      }
    } else {
      std::uint64_t head = 0;
      const task_rec* local = buf.local();
      while (head < total) {
        const std::uint64_t tail = ad.load(words + 1, std::memory_order_acquire).wait();
        if (head == tail) upcxx::progress();
        for (; head < tail; ++head) g_count += local[head].arg;
      }
      if (g_count != total) std::abort();
      t1 = now_ns();
    }
    t0 = earliest(t0);
    if (me == 0) t_lock.push_back((t1 - t0) / static_cast<double>(total));

    // Termination: run() on an empty pool against barrier().
    const long k = 2000;
    upcxx::barrier();
    t0 = now_ns();
    for (long i = 0; i < k; ++i) pool.run();
    t1 = now_ns();
    t_empty.push_back((t1 - t0) / static_cast<double>(k));
    upcxx::barrier();
    t0 = now_ns();
    for (long i = 0; i < k; ++i) upcxx::barrier();
    t1 = now_ns();
    t_barrier.push_back((t1 - t0) / static_cast<double>(k));
  }

  if (me == 0) {
    const gb::stats pool_s = summarize(t_pool), rpc_s = summarize(t_rpc), lock_s = summarize(t_lock);
    const gb::stats empty_s = summarize(t_empty), barrier_s = summarize(t_barrier);
    gb::print_row("noop_launch_pool", pool_s, "launch", "gannet");
    gb::print_row("noop_launch_rpc_ff", rpc_s, "launch", "gannet");
    gb::print_row("noop_launch_lock_queue", lock_s, "launch", "gannet");
    gb::print_row("run_empty_pool", empty_s, "run", "gannet");
    gb::print_row("barrier", barrier_s, "barrier", "gannet");
    const double line = lim.pingpong_half_rtt.min_ns;
    std::printf("ratio noop_launch pool/rpc_ff min=%.2f median=%.2f (target <= 2 at 2 ranks)\n",
                pool_s.min_ns / rpc_s.min_ns, pool_s.median_ns / rpc_s.median_ns);
    std::printf("ratio noop_launch lock_queue/pool min=%.2f median=%.2f\n", lock_s.min_ns / pool_s.min_ns,
                lock_s.median_ns / pool_s.median_ns);
    if (line > 0) std::printf("ratio noop_launch pool/line min=%.2f\n", pool_s.min_ns / line);
    std::printf("ratio run_empty/barrier min=%.2f median=%.2f (target <= 3 at 2 ranks)\n",
                empty_s.min_ns / barrier_s.min_ns, empty_s.median_ns / barrier_s.median_ns);
  }
  upcxx::barrier();
  ad.destroy();
  if (me == 0) {
    upcxx::delete_array(words);
    upcxx::delete_array(buf);
  }
  upcxx::finalize();
}
