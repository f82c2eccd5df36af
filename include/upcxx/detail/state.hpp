// The few runtime facts that inline API code reads directly, so that rank_me(), is_local()
// and local() cost a load and an add. Written by init (src/core/runtime.cpp) only;
// read-only while the library is initialized, so no synchronisation is needed.
#pragma once

#include "upcxx/version.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "upcxx/detail/compat.hpp"
#include "upcxx/detail/source_loc.hpp"

namespace upcxx {
using intrank_t = std::int32_t;
}

namespace upcxx::detail {

// How this process reaches rank r's shared segment: owner address + delta = local address.
struct peer_view {
  std::intptr_t delta;
  bool local;  // load/store addressable from this process
};

// The peer table while UPC++ is not initialized: every rank "not addressable", so that an
// rput, rget or atomic made before init() or after finalize() takes the off-node path, which
// reports it (runtime.cpp), instead of reading a null table. finalize() leaves a table of the
// job's size in this state.
extern const peer_view g_no_peers[1];

struct runtime_state {
  intrank_t rank_me = 0;
  intrank_t rank_n = 0;
  int init_count = 0;  // nesting of init()/finalize(), spec §2.3
  const peer_view* peers = g_no_peers;
  // gannet::overlap has outstanding puts, queued aggregation or a phase with prefetches: the
  // operations that synchronize tell it first (src/ext/overlap/overlap.cpp). Written by the
  // thread that uses the layer; relaxed loads cost what a plain load does.
  std::atomic<bool> sync_hooks_live{false};
  // GANNET_TRACE or GANNET_STATS: operations are recorded (src/util/observe.hpp).
  std::atomic<bool> observing{false};
};

// A synchronization point for gannet::overlap (atomics on this machine call it inline).
void sync_hooks_slow();

extern runtime_state g_state;

// GANNET_TRACE/GANNET_STATS (src/util/observe.hpp) for the inline on-node paths: the
// branch on g_state.observing is all they cost when nothing is recorded.
enum observe_op : std::uint8_t { observe_rput, observe_rget, observe_atomic, observe_vis_put, observe_vis_get };
std::uint64_t observe_clock();
void observed_span(observe_op op, intrank_t peer, std::size_t bytes, std::uint64_t t0);
inline std::uint64_t observe_begin() {
  return UPCXX_DETAIL_UNLIKELY(g_state.observing.load(std::memory_order_relaxed)) ? observe_clock() : 0;
}
// An on-node rput/rget's copy. kind: 0 put, 1 get.
void observed_copy(int kind, intrank_t peer, void* dst, const void* src, std::size_t n);
inline void local_copy(int kind, intrank_t peer, void* dst, const void* src, std::size_t n) {
  if (UPCXX_DETAIL_UNLIKELY(g_state.observing.load(std::memory_order_relaxed)))
    observed_copy(kind, peer, dst, src, n);
  else
    __builtin_memcpy(dst, src, n);
}

// Reports use before init (spec §2.1 ¶2) with the caller's location.
[[noreturn]] void fail_not_initialized(const char* what, const detail::source_loc& loc);
// The same from a library path that opt codemode reaches (no location: the crash report's
// backtrace shows the call).
[[noreturn]] void fail_not_initialized_here(const char* what);
// Reports a rank outside [0, rank_n) with the caller's location.
[[noreturn]] void fail_bad_rank(const char* what, std::int64_t rank, std::int64_t n,
                                const detail::source_loc& loc);

inline void check_init([[maybe_unused]] const char* what,
                       [[maybe_unused]] const detail::source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (UPCXX_DETAIL_UNLIKELY(g_state.init_count <= 0))
    fail_not_initialized(what, loc);
#endif
}

inline void check_rank([[maybe_unused]] const char* what, [[maybe_unused]] std::int64_t rank,
                       [[maybe_unused]] std::int64_t n,
                       [[maybe_unused]] const detail::source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (UPCXX_DETAIL_UNLIKELY(rank < 0 || rank >= n))
    fail_bad_rank(what, rank, n, loc);
#endif
}

}  // namespace upcxx::detail
