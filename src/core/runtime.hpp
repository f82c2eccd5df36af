// The core's services for the rooms above it (src/rpc, src/rma, src/coll, src/ext): the
// transport in use, the heap, barriers and delivery, progress passes, the runtime lock. Not
// API.
//
// Owns: the library state (runtime.cpp: init/finalize, the transport instance, the peer
// table behind global_ptr, world() and local_team(), the world barrier and its queue, the
// runtime lock, the spin limit), personas and progress (progress.cpp), the shared heap
// (heap_allocator.*), function shipping (fn_table.cpp), the small-block caches
// (block_cache.hpp) and the extension registry (hooks.*).
// May include: the transport contract (transport/transport.hpp, never a concrete
// transport), util/, public headers, and never src/ext/ (scripts/check-layering.sh):
// extensions reach the core through hooks.hpp. The exceptions, kept on purpose: runtime.cpp
// and progress.cpp include rpc/rpc_internal.hpp and call into src/rpc (attach, flush,
// backlog, drain after barriers), and runtime.cpp calls src/coll (coll_attach, team_barrier,
// the team constructor) and src/rma (atomics_attach, vis_attach). deliver_before_barrier(),
// barrier_completed(), rpc_drain_after_barrier() and rpc_large_outstanding() below are
// declared here but defined in src/rpc (backlog.cpp, outgoing.cpp; docs/architecture.md,
// "The core's upward calls").
// Threading: in threadmode par, runtime_lock serializes every transport call and the RPC
// state; user code never runs under it (runtime_unlock). In seq mode the lock is a branch.
// Progress: a pass (progress_pass) flushes RPC batches, polls the transport, drives the
// world barrier queue and the extensions' poll hooks; only user-level passes of the master
// persona run RPC bodies, and none does while g_initializing.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/heap_allocator.hpp"
#include "core/hooks.hpp"
#include "upcxx/init.hpp"

namespace gannet::transport {
class transport;
}

namespace gannet::runtime {

extern transport::transport* g_transport;  // runtime.cpp: set when the transport is made
inline transport::transport& the_transport() { return *g_transport; }
heap_allocator& my_heap();
// Large RPC records of ours in the shared heap that their targets still read (rpc/outgoing.cpp).
std::size_t rpc_large_outstanding();

// Barriers deliver (docs/compatibility.md): a call that a rank initiated before it entered a
// barrier has run at its target, if the target is in the barrier's team, before the target's
// barrier completes. deliver_before_barrier(), before arriving at any barrier: sends what is
// batched and makes internal progress until the transport says every message has been
// delivered (transport::delivered). barrier_completed(), when any barrier completes here
// (through_queue: by messages through the transport's queue, transport::one_queue);
// rpc_drain_after_barrier() then, from user-level progress of the master persona with calls
// allowed to run (rpc_direct_scope), handles what had arrived, waits for large records still
// on their way, and runs the backlog; it returns whether it ran anything (rpc/backlog.cpp).
void deliver_before_barrier();
void barrier_completed(bool through_queue = false);
// A barrier completed here since the last drain (rpc/backlog.cpp): inline, since every pass asks.
extern std::atomic<bool> g_barrier_drain;
bool rpc_drain_after_barrier_now();
inline bool rpc_drain_after_barrier() {
  if (!g_barrier_drain.load(std::memory_order_relaxed)) [[likely]] return false;
  return rpc_drain_after_barrier_now();
}

// Extensions (src/ext/*) hear of synchronization points and progress through hooks.hpp.

// The transport's barrier over world, in collective order (runtime.cpp). A user queues with
// an optional arrive(ctx), run just before this rank arrives (it may publish data that the
// barrier then releases to every rank), and done(ctx), run once the barrier has completed, from
// inside progress with the runtime lock held. progress() drives the queue.
struct world_barrier_user {
  void (*arrive)(void* ctx);
  void (*done)(void* ctx);
  void* ctx;
};
void world_barrier_enqueue(world_barrier_user u);  // runtime lock held
bool world_barrier_poll();                         // runtime lock held; whether anything moved
// Whether world_barrier_poll has anything to do (something queued, and barrier() is not
// testing its own arrival): one load for the progress pass that usually finds nothing.
extern bool g_wb_queued;
inline bool world_barrier_queued() { return g_wb_queued; }
// barrier() with nothing queued: arrive now and test the transport directly (true), ending with
// world_barrier_end_direct(); queued collectives wait until then. False when something is queued.
bool world_barrier_begin_direct();
void world_barrier_end_direct();
// Each rank's collective scratch (coll_scratch_bytes in its segment's runtime reserve, after
// all_gather's), at this process's address for `rank`, or null if not load/store addressable.
inline constexpr std::size_t coll_scratch_bytes = 256;
std::byte* coll_scratch(int rank);
// Each rank's notification area (notify_ring.hpp: its ring and its lanes) at this offset of its segment's runtime
// reserve, at this process's address for `rank`, or null if not load/store addressable.
inline constexpr std::size_t notify_ring_offset = 4096;
std::byte* notify_ring_area(int rank);


// Makes progress (user-level unless told otherwise) until done(arg) is true; exits the process
// quietly when the launcher is tearing the job down (it has already reported the cause).
void wait_until_aborting_or(bool (*done)(void*), void* arg,
                            upcxx::progress_level level = upcxx::progress_level::user);

// While the library initializes (upcxx::init()), no user callback runs: progress there is
// internal only, and RPCs, as_rpc completions, LPCs and notifications that arrive wait (RPCs
// in the backlog, in arrival order) for the first user-level progress after init() returns.
// A program sets up what its handlers use right after init() (docs/compatibility.md).
extern bool g_initializing;

// One pass of progress at `level`, without the idle yield upcxx::progress() makes when ranks
// outnumber cores (for loops with a backoff of their own); true if it did anything.
bool progress_pass(upcxx::progress_level level);

// The hang report (hang.cpp). A blocking call announces where the rank waits with a
// blocked_scope (the outermost one of the thread holding the master persona counts:
// "barrier #12 on world", "finalize"); its waiting loop calls hang_tick() after every progress
// pass with whether the pass did anything. `final`: the job ends after it (finalize), so
// leaving it tells rank 0 nothing.
class blocked_scope {
 public:
  explicit blocked_scope(const char* what, long number = -1, const char* on = nullptr, bool final = false);
  ~blocked_scope();
  blocked_scope(const blocked_scope&) = delete;
  blocked_scope& operator=(const blocked_scope&) = delete;
};
extern bool g_hang_on;  // GANNET_HANG_SECONDS > 0 and more than one rank
void hang_tick_slow(bool did);
inline void hang_tick(bool did) {
  if (g_hang_on) hang_tick_slow(did);
}
void hang_attach(int me, int n);  // init: reads GANNET_HANG_SECONDS, registers the messages
void hang_detach();               // finalize, after its last barrier

// Threadmode par: one recursive lock serializes the transport and the RPC state between
// threads (the transports are not thread-safe; see capabilities::thread_safe). In seq mode
// the guard costs one predictable branch.
void enable_thread_safety();

// How many idle polls a waiting loop makes before it yields the core: few when this
// machine runs more ranks than it has cores (chosen at init).
extern unsigned g_spin_limit;  // runtime.cpp, set at init
inline unsigned spin_limit() { return g_spin_limit; }
void choose_spin_limit(int local_ranks, int cores);

// A waiting loop's judgement of when to give the core away (future::wait(),
// notify_request::wait()): once more than spin_limit() progress passes in a row did nothing,
// every further idle pass yields, so that a rank queued on this core can run.
class idle_passes {
 public:
  void after(bool did) {
    if (did) {
      idle_ = 0;
    } else if (++idle_ > spin_limit()) {
      ::sched_yield();
    }
  }

 private:
  unsigned idle_ = 0;
};
extern std::atomic<bool> g_thread_safe;  // set by enable_thread_safety()
void big_lock();    // runtime.cpp
void big_unlock();
// Inline: every notification and every poll takes it, and in seq mode it is one load and
// one predictable branch, which a call would double.
class runtime_lock {
 public:
  runtime_lock() : locked_(g_thread_safe.load(std::memory_order_relaxed)) {
    if (locked_) big_lock();
  }
  ~runtime_lock() {
    if (locked_) big_unlock();
  }
  runtime_lock(const runtime_lock&) = delete;
  runtime_lock& operator=(const runtime_lock&) = delete;

 private:
  bool locked_;
};

// Releases every level of the runtime lock the calling thread holds, for the lifetime of
// the object, around user code that runs inside the library (an RPC's body): user code may
// take its own locks, and a thread holding one of them while it calls into the library
// would otherwise deadlock against us.
int unlock_all_levels();            // runtime.cpp: releases every level; returns how many
void relock_levels(int levels);
// Inline for the same reason as runtime_lock: every RPC body runs inside one. Without
// thread safety no level is ever held (runtime_lock takes none), so there is nothing to do.
class runtime_unlock {
 public:
  runtime_unlock() : levels_(g_thread_safe.load(std::memory_order_relaxed) ? unlock_all_levels() : 0) {}
  ~runtime_unlock() {
    if (levels_) relock_levels(levels_);
  }
  runtime_unlock(const runtime_unlock&) = delete;
  runtime_unlock& operator=(const runtime_unlock&) = delete;

 private:
  int levels_;
};

}  // namespace gannet::runtime
