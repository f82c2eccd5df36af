// What a program communicated, for its user: GANNET_TRACE=prefix writes a Chrome
// trace-event file per rank (prefix.RANK.json, which Perfetto and chrome://tracing open),
// GANNET_STATS=1 (or a file prefix) prints a table per rank and for the job at finalize().
//
// Part of the util room (log.hpp says what it may include): every other room records here,
// and the core starts and ends it (init: observe::start; finalize: observe::finish with the
// job-wide exchange it provides). Off unless one of the two variables is set at start-up:
// then every recording point costs one relaxed load and a predictable branch
// (upcxx::detail::g_state.observing, which inline public code reads too).
//
// Threading: spans go into a ring buffer of the recording thread (bounded memory; written to
// the file when full, at finalize and, where possible, when the rank crashes); the counters
// are per thread. Time stamps are the time-stamp counter mapped onto CLOCK_MONOTONIC, one
// clock for the ranks of a machine; ranks of other machines are shifted onto rank 0's clock at
// start (set_clock_offset).
#pragma once

#include <cstddef>
#include <cstdint>

#include "upcxx/detail/state.hpp"

namespace gannet::observe {

// What a span records. Names in the trace and the statistics: kind_name().
enum class kind : std::uint8_t {
  rput,
  rget,
  atomic,
  vis_put,
  vis_get,
  rpc,         // an rpc sent (initiation)
  rpc_ff,      // an rpc_ff sent
  rpc_body,    // a call's body run here
  barrier,
  collective,  // a reduction, broadcast, gather, ...: initiation to completion
  wait,        // a future::wait() that had to wait
  notify_put,  // gannet notified access: a notified put
  notify_run,  // its notification's handler
  task_run,    // gannet::task_pool::run()
  task,        // one task
  overlap,     // gannet::overlap: a phase
  prefetch_hit,
  count_
};
const char* kind_name(kind k);

inline bool on() { return upcxx::detail::g_state.observing.load(std::memory_order_relaxed); }
bool tracing();

// A time stamp for span(): ticks of the time-stamp counter (or nanoseconds where it is not
// invariant), converted when the trace is written.
std::uint64_t now();
// Nanoseconds on this machine's clock (CLOCK_MONOTONIC), for aligning machines.
std::uint64_t now_ns();

// The time stamp of this thread's progress pass, which keeps clock reads off a message's
// critical path: the core stamps a pass before it polls (pass_begins), a call's body starts
// at the stamp (at most the pass's earlier handlers early) and moves it to its own end, and
// a wait() ends at the stamp of the pass that completed it. pass_stamp(): 0 outside a pass.
void pass_begins();
inline thread_local std::uint64_t t_pass_stamp = 0, t_last_pass_stamp = 0;  // pass_begins() sets them
inline void pass_ends() { t_pass_stamp = 0; }
inline std::uint64_t pass_stamp() { return t_pass_stamp; }
inline std::uint64_t last_pass_stamp() { return t_last_pass_stamp; }
// A wait() that took [t0, t1): recorded at this thread's next span or progress pass (or at
// finalize), not on the way back to the program.
void wait_done(std::uint64_t t0, std::uint64_t t1);

// One operation that took [t0, t1) (t1 = 0: now). peer: the other rank or -1; name: a
// more precise name for the trace ("reduce_all", ...) or nullptr for kind_name(); track:
// the trace's track (thread) it belongs on, from track() on the thread that started it
// (-1: this thread's).
void span(kind k, int peer, std::uint64_t bytes, std::uint64_t t0, std::uint64_t t1 = 0, const char* name = nullptr,
          int track = -1);
// This thread's track in the trace (threadmode par: one per thread that records), < 65536.
int track();

// User calls (rpc, rpc_ff), for the trace's arrows from a send to the body it runs: the n-th
// call sent from a rank to another is the n-th to run there (the transports keep each pair's
// order), so no identifier travels. (A call parked on a dist_object not yet constructed there
// runs later and may take another's arrow.)
void rpc_sent(kind k, int target, std::uint64_t bytes, std::uint64_t t0, std::uint64_t t1);
void rpc_ran(int source, std::uint64_t bytes, std::uint64_t t0);

// Counters for the statistics.
void count_stall();                                 // an RPC injection found the network busy
void heap_in_use(std::size_t bytes);                // after an allocation: high-water mark
void heap_failed(std::size_t bytes);                // an allocation found no room
void received(std::size_t bytes);                   // an active message arrived

// Lifecycle (the core). start: after the transport exists, before any span; reads the
// environment and says on stderr if a file cannot be written. threaded: threadmode par.
void start(int rank, int ranks, bool threaded);
void set_clock_offset(std::int64_t ns);
// The statistics of this rank, as words, for the core to gather to rank 0 at finalize.
inline constexpr std::size_t stats_words = 3 * static_cast<std::size_t>(kind::count_) + 8;
void stats_snapshot(std::uint64_t (&words)[stats_words]);
// finalize: writes the trace, and on rank 0 the job's statistics from every rank's
// snapshot (rank-major; nullptr on the other ranks).
void finish(const std::uint64_t* all_ranks_stats);
bool stats_on();

}  // namespace gannet::observe
