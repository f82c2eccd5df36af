// The task pool's non-template side (include/gannet/tasks.hpp; from "Asynchronous
// Programming in UPC: A Case Study and Potential for Improvement"): run() and termination
// detection. The algorithm is below, and why it is correct at the end of this comment.
//
// The tasks room (src/ext/tasks). Owns the per-rank task queue (task nodes from a per-thread
// block cache, core/block_cache.hpp, uncapped while pools live), run(), the wave counters
// and the boards ranks of one machine write wave messages into. The templates in
// include/gannet/tasks.hpp build task nodes and RPC records; a task for another rank is one
// RPC record whose executor queues it instead of running it. May include: the core
// (core/runtime.hpp, core/block_cache.hpp), the RPC service (rpc/rpc_internal.hpp: flushing
// what tasks spawned), util/ and public headers; never another extension. It registers no
// hooks: nothing of it runs outside run() and its RPC executors.
// Threading: spawn() and run() belong to the thread holding the master persona (run() not
// from a task or from inside progress: that ends the job with a message). Progress: run()
// runs one task at a time; after each it sends what the task spawned elsewhere, and every 8
// tasks or when the queue is empty it makes a full user-level progress pass (arrivals are
// queued, replies run: a task may wait(), but no other task starts meanwhile). With nothing
// to run it contributes to a wave and polls, yielding the core as future::wait() does.
//
// Waves. A wave is a sum, over the pool's team, of each rank's (sent, received) task counts,
// each taken at a moment when its rank had nothing to run. It is computed by recursive
// doubling over the largest power of two p2 <= P ranks: rank i exchanges its partial sum with
// i ^ 2^r in round r, r < log2(p2), so every rank ends with the total after log2(p2)
// messages, and none of them is a central counter. A rank i >= p2 first folds its counts into
// rank i - p2 and receives the total from it at the end. Waves are numbered in one sequence
// for the life of the pool; a rank joins wave w+1 only after it has the total of wave w, so a
// message can be at most one wave ahead of its receiver, and two inbox slots per round
// (by the wave's parity) hold everything that can arrive early, in any order. A partner on
// this machine writes its message into this rank's board (pool_core::board) instead of
// sending an RPC.
//
// Decision. All ranks see the same totals, so all decide alike, with no further message:
// run() returns once two consecutive waves of this run() had equal totals with
// sent == received, or at once when a wave's total is still that of the last termination
// (no task crossed ranks since: an empty run() costs one wave).
//
// Counting. A rank counts `sent` at spawn for tasks to other ranks and `received` when a task
// from another rank is queued; tasks spawned to oneself are local work, seen in the queue,
// and not counted. Only tasks count: an rpc whose body spawns a task is invisible to the
// counts, so tasks must be created by tasks or before run().
//
// Why it is correct. Counters only grow, and a rank is idle when it contributes.
//  - Two waves. Let wave k report (S, R) with S == R and wave k+1 the same (S, R). Every
//    rank's k+1 contribution comes after every rank's k contribution (it needs wave k's
//    total, which needs all of them), so there is a time t between the two sets. Each rank's
//    counts are equal at its two contributions (a sum of non-decreasing terms that did not
//    change), so in between it sent and received nothing; idle at the first and receiving
//    nothing, it stayed idle (only an arriving task makes an idle rank busy). At t every rank
//    is idle with sent(t) = S = R = received(t): no task is in flight, and none can be
//    created again. One wave is not enough: a rank that reported idle can receive a task and
//    send one to a rank that has not reported yet, and the two unreported messages balance
//    (tests/spmd/spmd_tasks.cpp, late spawns, fails that way).
//  - One wave equal to the last termination's total. At that termination nothing was in
//    flight. Suppose a task was sent after it, and take the first such send, by rank j. The
//    task that sent it was not an arrival (no task had been sent since), so it was local work
//    j had before it last became idle, i.e. before its contribution: j's reported `sent`
//    includes the send, and the total exceeds the old one. So an equal total means nothing
//    was sent since; every rank was idle at its contribution and nothing can reach it.
//  - Delivery order is never assumed: inbox slots are keyed by wave number, counts tolerate
//    any order and batching, and a task spawned by a rank that has returned from run() to
//    one still inside it is counted in the next waves (or run then, if it arrives first).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "gannet/tasks.hpp"
#include "core/block_cache.hpp"
#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "util/observe.hpp"
#include "util/log.hpp"

namespace gannet::detail {

struct wave_sums {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  friend bool operator==(wave_sums a, wave_sums b) { return a.sent == b.sent && a.received == b.received; }
  wave_sums& operator+=(wave_sums o) {
    sent += o.sent;
    received += o.received;
    return *this;
  }
};

void flush_spawns();

struct pool_core {
  explicit pool_core(task_pool& p) : pool(p) {
    const int n = p.n_;
    while (p2 * 2 <= n) {
      p2 *= 2;
      ++levels;
    }
    extra = p.me_ >= p2;
    has_extra = p.me_ + p2 < n;
    // Slots 0 .. levels-1: the rounds; `levels`: an extra rank's counts folded in; levels+1:
    // the total, at an extra rank.
    for (auto& box : inbox) box.resize(static_cast<std::size_t>(levels) + 2);
    peer_board.resize(static_cast<std::size_t>(levels) + 1);
    if (p.n_ > 1) {
      try {
        board = upcxx::new_array<std::uint64_t>(board_words());
        std::fill_n(board.local(), board_words(), std::uint64_t{0});
      } catch (const upcxx::bad_shared_alloc&) {
        board = nullptr;  // waves then travel as RPCs only
      }
    }
  }
  ~pool_core() {
    if (board && upcxx::initialized()) upcxx::delete_array(board);
  }
  pool_core(const pool_core&) = delete;
  pool_core& operator=(const pool_core&) = delete;

  // The board: this rank's inbox in its shared heap, one cache line per (wave parity, slot),
  // {wave + 1, sent, received}, which a partner that can address it writes with plain
  // stores instead of sending an RPC (0: never written). A partner learns the board's
  // address from the first wave message it receives from this rank by RPC.
  std::size_t board_words() const { return 2 * (static_cast<std::size_t>(levels) + 2) * 8; }
  static std::size_t board_at(std::uint64_t w, int slot, int levels) {
    return ((w & 1) * (static_cast<std::size_t>(levels) + 2) + static_cast<std::size_t>(slot)) * 8;
  }
  // Which partner a slot's messages come from and go to: round r's, or the fold partner.
  int partner_of(int slot) const { return slot < levels ? slot : levels; }

  struct message {
    std::uint64_t wave = 0;
    bool full = false;
    wave_sums sums;
  };

  task_pool& pool;
  int p2 = 1;
  int levels = 0;
  bool extra = false;
  bool has_extra = false;

  std::uint64_t wave = 0;     // the wave this rank is in, or joins next
  bool contributed = false;   // this rank's counts are in `wave`
  int stage = 0;              // 0: before the fold-in; 1 + r: in round r
  bool stage_sent = false;    // this stage's message has left
  wave_sums acc;              // the partial sum
  std::vector<message> inbox[2];
  upcxx::global_ptr<std::uint64_t> board;
  std::vector<upcxx::global_ptr<std::uint64_t>> peer_board;  // by partner_of()

  bool have_prev = false;  // a wave of this run() has completed
  wave_sums prev;          // ... with this total
  wave_sums base;          // the total when the last run() ended (nothing was in flight)
  bool done = false;

  void begin_run() {
    have_prev = false;
    done = false;
  }

  // Called with nothing to run here.
  void contribute() {
    contributed = true;
    acc = {pool.stats_.sent, pool.stats_.received};
    stage = 0;
    stage_sent = false;
    advance();
  }

  // A wave message, sent with plain arguments (the pool by id rather than as a dist_object
  // argument, which would cost the receiver two lookups): the receiver takes it now, or
  // once it has constructed the pool.
  static void wave_in(std::uint64_t pool_id, std::uint64_t w, int slot, std::uint64_t sent, std::uint64_t received,
                      upcxx::global_ptr<std::uint64_t> from_board) {
    if (task_pool* pool = pool_named(pool_id)) {
      pool->core_->receive(w, slot, {sent, received}, from_board);
    } else {
      struct early {
        std::uint64_t w;
        int slot;
        wave_sums sums;
        upcxx::global_ptr<std::uint64_t> from_board;
      };
      upcxx::detail::dist_when_here(
          pool_id,
          [](void* ctx, void* object) {
            std::unique_ptr<early> e(static_cast<early*>(ctx));
            (**static_cast<upcxx::dist_object<task_pool*>*>(object))->core_->receive(e->w, e->slot, e->sums,
                                                                                    e->from_board);
          },
          new early{w, slot, {sent, received}, from_board});
    }
  }

  void receive(std::uint64_t w, int slot, wave_sums sums, upcxx::global_ptr<std::uint64_t> from_board) {
    if (from_board) peer_board[static_cast<std::size_t>(partner_of(slot))] = from_board;
    message& m = inbox[w & 1][static_cast<std::size_t>(slot)];
    if (m.full || w < wave || w > wave + 1)
      util::fatal("gannet::task_pool: termination wave %llu message for slot %d out of sequence (this rank is in wave %llu)",
                  static_cast<unsigned long long>(w), slot, static_cast<unsigned long long>(wave));
    m = {w, true, sums};
    advance();
  }

  bool take(int slot, wave_sums& out) {
    message& m = inbox[wave & 1][static_cast<std::size_t>(slot)];
    if (m.full && m.wave == wave) {
      out = m.sums;
      m.full = false;
      return true;
    }
    if (!board) return false;
    std::uint64_t* q = board.local() + board_at(wave, slot, levels);
    if (std::atomic_ref<std::uint64_t>(q[0]).load(std::memory_order_acquire) != wave + 1) return false;
    out = {std::atomic_ref<std::uint64_t>(q[1]).load(std::memory_order_relaxed),
           std::atomic_ref<std::uint64_t>(q[2]).load(std::memory_order_relaxed)};
    return true;
  }

  void send(upcxx::intrank_t to, int slot, wave_sums sums) {
    const upcxx::global_ptr<std::uint64_t> peer = peer_board[static_cast<std::size_t>(partner_of(slot))];
    if (peer && peer.is_local()) {
      // The partner shares memory with this rank: three stores, the wave number last.
      std::uint64_t* q = peer.local() + board_at(wave, slot, levels);
      std::atomic_ref<std::uint64_t>(q[1]).store(sums.sent, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(q[2]).store(sums.received, std::memory_order_relaxed);
      std::atomic_ref<std::uint64_t>(q[0]).store(wave + 1, std::memory_order_release);
      return;
    }
    upcxx::rpc_ff(*pool.team_, to, &pool_core::wave_in, pool.id_, wave, slot, sums.sent, sums.received, board);
    flush_spawns();  // a wave is on the critical path of termination: no waiting in a batch
  }

  void advance() {
    while (contributed) {
      wave_sums in;
      if (extra) {
        if (!stage_sent) {
          send(pool.me_ - p2, levels, acc);
          stage_sent = true;
        }
        if (!take(levels + 1, in)) return;
        finish(in);
        return;
      }
      if (stage == 0) {
        if (has_extra) {
          if (!take(levels, in)) return;
          acc += in;
        }
        stage = 1;
        stage_sent = false;
      }
      const int r = stage - 1;
      if (r == levels) {
        if (has_extra) send(pool.me_ + p2, levels + 1, acc);
        finish(acc);
        return;
      }
      if (!stage_sent) {
        send(pool.me_ ^ (1 << r), r, acc);
        stage_sent = true;
      }
      if (!take(r, in)) return;
      acc += in;
      ++stage;
      stage_sent = false;
    }
  }

  void finish(wave_sums total) {
    contributed = false;
    ++wave;
    // A wave whose total is still that of the last termination saw no task sent since then
    // by anyone, so none can be in flight or arrive later; otherwise two consecutive waves
    // must agree (the proof is at the top of this file).
    if (total == base || (have_prev && total == prev && total.sent == total.received)) {
      done = true;
      base = total;
    } else {
      prev = total;
      have_prev = true;
    }
  }
};

// ---- task memory ----
namespace {
// Up to 512 bytes; kept without a cap while pools live (a burst of arrivals is followed by
// another), trimmed when one is destroyed.
using task_blocks = runtime::block_cache<16, ~std::size_t{0}>;
constexpr std::size_t node_kept_idle = 1024;  // per class, when a pool is destroyed
}  // namespace

void* node_allocate(std::size_t bytes) { return task_blocks::allocate(bytes); }
void node_free(void* p, std::size_t bytes) noexcept { task_blocks::free(p, bytes); }
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16, "task records need 16-byte aligned memory");

void flush_spawns() {
  if (!runtime::rpc_batched()) return;
  runtime::runtime_lock lock;
  runtime::rpc_flush();
}

void fail_spawn_rank(upcxx::intrank_t rank, upcxx::intrank_t n) {
  util::fatal("gannet::task_pool::spawn: rank %d is not a rank of the pool's team [0, %d)", rank, n);
}

task_pool* pool_lookup(std::uint64_t id) {
  void* d = upcxx::detail::dist_lookup(id);
  if (!d) return nullptr;
  task_pool* pool = **static_cast<upcxx::dist_object<task_pool*>*>(d);
  g_pool_cache = {id, pool};
  return pool;
}

void task_arrived_early(std::uint64_t pool_id, task_node* node) {
  upcxx::detail::dist_when_here(
      pool_id, [](void* ctx, void* object) {
        task_arrived(***static_cast<upcxx::dist_object<task_pool*>*>(object), static_cast<task_node*>(ctx));
      },
      node);
}

}  // namespace gannet::detail

namespace gannet {

using detail::flush_spawns;

task_pool::task_pool(const upcxx::team& team)
    : team_(&team),
      me_(team.rank_me()),
      n_(team.rank_n()),
      core_(std::make_unique<detail::pool_core>(*this)),
      self_(this, team),
      id_(self_.id().raw()) {}

task_pool::~task_pool() {
  if (detail::g_pool_cache.pool == this) detail::g_pool_cache = {};
  while (detail::task_node* t = pop()) t->run_and_free(t, nullptr);  // dropped unrun
  detail::task_blocks::trim(detail::node_kept_idle);
}

void task_pool::run() {
  if (running_)
    util::fatal("gannet::task_pool::run: called from inside a task of the same pool (run() is collective over the "
                "team and runs tasks one at a time; spawn the work as tasks instead)");
  if (!upcxx::master_persona().active_with_caller())
    util::fatal("gannet::task_pool::run: the calling thread does not hold the master persona");
  if (upcxx::in_progress()) upcxx::detail::fail_restricted("gannet::task_pool::run()");
  running_ = true;
  const std::uint64_t run_t0 = observe::on() ? observe::now() : 0;
  detail::pool_core& core = *core_;
  core.begin_run();
  runtime::idle_passes idle;
  runtime::blocked_scope waiting("gannet::task_pool::run()");
  constexpr unsigned poll_every = 8;
  unsigned since_poll = 0;
  while (!core.done) {
    if (detail::task_node* t = pop()) {
      try {
        if (run_t0) [[unlikely]] {
          const std::uint64_t t0 = observe::now();
          t->run_and_free(t, this);
          observe::span(observe::kind::task, -1, 0, t0);
        } else {
          t->run_and_free(t, this);
        }
      } catch (const std::exception& e) {
        util::fatal("an exception escaped a gannet::task_pool task (what(): %s); a task must catch what it throws",
                    e.what());
      } catch (...) {
        util::fatal("an exception that is not a std::exception escaped a gannet::task_pool task; a task must catch "
                    "what it throws");
      }
      ++stats_.run;
      // What the task spawned elsewhere leaves now, so other ranks need not wait for work;
      // arrivals and replies are taken every few tasks (a full progress pass costs more
      // than a small task) and whenever the queue runs dry.
      if (++since_poll < poll_every && head_) {
        flush_spawns();
        continue;
      }
      since_poll = 0;
      runtime::progress_pass(upcxx::progress_level::user);
      continue;
    }
    if (!core.contributed) {
      core.contribute();
    } else {
      core.advance();  // partners on this machine write to the board: look at it
    }
    if (core.done) break;
    const bool did = runtime::progress_pass(upcxx::progress_level::user);
    idle.after(did);
    runtime::hang_tick(did);
  }
  running_ = false;
  if (run_t0) [[unlikely]] observe::span(observe::kind::task_run, -1, 0, run_t0);
}

}  // namespace gannet
