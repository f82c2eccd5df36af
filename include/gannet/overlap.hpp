// Automatic overlap (Gannet extension, after "Automatic nonblocking communication for
// partitioned global address space programs" by Chen, Bonachea, Iancu and Yelick): blocking
// one-sided copies that the runtime makes nonblocking, prefetches and aggregates.
//
//   gannet::overlap::memput(dst, src, count)   returns once src may be reused
//   gannet::overlap::memget(dst, src, count)   returns with the data in dst
//
// Both behave, for the calling program, exactly as a blocking copy. Behind them:
//  - a put to a peer that is not load/store addressable is started and left outstanding: it
//    is completed at the next point that synchronizes (below), or earlier when a later
//    access touches its remote bytes;
//  - the gets of a phase are recorded the first time it runs; when the same phase runs again
//    they are started as prefetches into runtime buffers the moment it begins, and a memget
//    that matches one waits for it and copies;
//  - inside a gannet::overlap::aggregate scope, memputs and memgets are queued per target and
//    leave at the end of the scope as one non-contiguous transfer per target.
// A peer on this machine (the on-node bypass) is served by a plain copy: nothing is
// recorded or deferred, and the layer costs a branch.
//
// Phases. A phase is the code between two synchronization points. These end one, and every
// outstanding memput is visible at its target before they take effect: upcxx::barrier(),
// barrier_async(), every collective, atomic operations, upcxx::rpc/rpc_ff initiation,
// gannet notified puts, entering user-level progress (upcxx::progress(), a wait()),
// fence() and phase_end(). An incoming RPC (or RPC reply) that runs here discards the
// prefetches of the current phase: it may carry news of data written since they were issued.
// Prefetching starts only in phases that begin at a blocking upcxx::barrier(), fence() or
// phase_end(): the phase is identified by the call site of that call (its return address;
// a barrier called from one helper function for every phase gives them all one identity, so
// pass an explicit id to phase_end() there), or by the id given to phase_end(id).
//
// What is not checked: a upcxx::rput with remote_cx::as_rpc does not wait for earlier
// memputs (call fence() first if its body reads them), and upcxx::copy is not checked
// against outstanding memputs. Ordinary upcxx::rput/rget and the non-contiguous rput/rget are
// checked: they complete the memputs they overlap first, and a rput discards the prefetches
// it overlaps (docs/overlap.md has an example of a correct mix).
//
// Restrictions: memput, memget and fence() block, so they are errors inside a callback that
// progress runs (an RPC body, a then() callback), as wait() is; call them from the thread that
// holds the master persona. Remote addresses that are read by a prefetch must stay allocated
// while the phase that reads them may run again (the paper makes the same assumption): call
// fence() or phase_end() before you deallocate memory a phase has read, and the history of
// ranges inside it is forgotten.
//
// GANNET_OVERLAP=0 in the environment (or set_enabled(false)) turns the layer into plain
// blocking copies, for comparison and debugging.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "upcxx/global_ptr.hpp"

namespace gannet::overlap {

namespace detail {
// The off-node side (src/ext/overlap/overlap.cpp). Addresses are the owner's, as a global_ptr
// carries them.
void put_remote(upcxx::intrank_t rank, std::uintptr_t owner_addr, const void* src, std::size_t bytes);
void get_remote(void* dst, upcxx::intrank_t rank, std::uintptr_t owner_addr, std::size_t bytes);
void aggregate_begin();
void aggregate_end();
[[noreturn]] void fail_device(const char* what);
}  // namespace detail

// Blocking put of count elements: when it returns, src may be reused; the bytes are visible
// at the target no later than the next synchronization point.
template <typename T>
void memput(upcxx::global_ptr<T> dst, const T* src, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "gannet::overlap::memput: T must be trivially copyable");
  if (count == 0) return;
  if (dst.detail_addressable()) {
    std::memcpy(static_cast<void*>(dst.detail_local_unchecked()), src, count * sizeof(T));
    return;
  }
  if (dst.heap_ != 0) detail::fail_device("gannet::overlap::memput");
  detail::put_remote(dst.where(), reinterpret_cast<std::uintptr_t>(dst.raw_), src, count * sizeof(T));
}

// Blocking get of count elements: when it returns the data is in dst (inside an aggregate
// scope: when the scope ends).
template <typename T>
void memget(T* dst, upcxx::global_ptr<const T> src, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T>, "gannet::overlap::memget: T must be trivially copyable");
  if (count == 0) return;
  if (src.detail_addressable()) {
    std::memcpy(static_cast<void*>(dst), src.detail_local_unchecked(), count * sizeof(T));
    return;
  }
  if (src.heap_ != 0) detail::fail_device("gannet::overlap::memget");
  detail::get_remote(dst, src.where(), reinterpret_cast<std::uintptr_t>(src.raw_), count * sizeof(T));
}
template <typename T, typename = std::enable_if_t<!std::is_const_v<T>>>
void memget(T* dst, upcxx::global_ptr<T> src, std::size_t count) {
  memget(dst, upcxx::global_ptr<const T>(src), count);
}

// Completes every outstanding memput and ends the phase; the next phase is known by the
// call site of this fence().
void fence();
// Ends the phase (as fence()) and begins one known by `id` (or by the call site).
void phase_end(std::uint64_t id);
void phase_end();

// Inside its scope memputs and memgets are queued per target and leave at its end as one
// non-contiguous transfer per target. The destination of a memget inside the scope holds the
// data only once the scope has ended; its source buffers may be reused as soon as memput
// returns (they are packed). An access that conflicts with one queued (a memget of bytes a
// queued memput writes) sends the queue at once, and the rest of the scope runs unaggregated.
// Scopes nest: the outermost one sends.
class aggregate {
 public:
  aggregate() { detail::aggregate_begin(); }
  ~aggregate() { detail::aggregate_end(); }
  aggregate(const aggregate&) = delete;
  aggregate& operator=(const aggregate&) = delete;
};

// The layer on or off (GANNET_OVERLAP sets the initial value; on by default). Turning it off
// completes everything outstanding first.
void set_enabled(bool on);
bool enabled();

// Counters since init, for benchmarks and tests.
struct statistics {
  std::uint64_t puts = 0;             // off-node memputs
  std::uint64_t puts_deferred = 0;    // of which left outstanding past the call
  std::uint64_t put_conflicts = 0;    // outstanding puts completed early by an access to their bytes
  std::uint64_t gets = 0;             // off-node memgets
  std::uint64_t prefetch_issued = 0;  // prefetches started
  std::uint64_t prefetch_hits = 0;    // memgets served by a prefetch
  std::uint64_t prefetch_stale = 0;   // prefetches discarded by a put or an incoming RPC
  std::uint64_t prefetch_unused = 0;  // prefetches no memget asked for (dropped from the history)
  std::uint64_t aggregated = 0;       // memputs and memgets sent by an aggregate scope
  std::uint64_t aggregate_sends = 0;  // non-contiguous transfers those became
  std::uint64_t check_ns = 0;         // time spent in conflict checks (GANNET_OVERLAP_TIMING=1)
  std::uint64_t syncs = 0;            // synchronization points that completed outstanding puts
};
statistics stats();

}  // namespace gannet::overlap
