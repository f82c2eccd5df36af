// The core's one interface to the extensions built on it (src/ext/*): the points where the
// core tells them that something happened. The core never names an extension; an extension
// fills an extension_hooks with the calls it wants and registers it from a static
// initializer in its own object file, so an extension a program does not link costs
// nothing, and one it links costs a call only where it asked for one.
//
// Owns: the registry and the two "live" flags (sync_hooks_live is in upcxx::detail::g_state,
// so that inline public code, atomics and notified puts, can test it). May include: only
// upcxx/detail/state.hpp; extensions include this header, the core never includes an
// extension (scripts/check-layering.sh). With the shared library every extension is loaded,
// and registers, whether the program uses it or not. Threading: registration happens before
// main() (static initialization); dispatch reads the registry without a lock. Progress
// rules: poll runs in every progress pass with the runtime lock held; finish in user-level
// progress of the master persona without it; the hooks behind sync_hooks_live() and
// user_progress_hooks_live() only while an extension has raised the flag (one relaxed
// load and a branch on the hot paths otherwise).
#pragma once

#include <atomic>
#include <cstdint>

#include "upcxx/detail/state.hpp"

namespace gannet::runtime {

struct extension_hooks {
  const char* name = "";
  // init(), before its barrier (peers may address this rank right after it).
  void (*attach)() = nullptr;
  // finalize(), before its barrier: nothing of the extension's may be in flight after it.
  void (*detach)() = nullptr;
  // Every progress pass, runtime lock held; whether it did anything.
  bool (*poll)() = nullptr;
  // User-level progress of the master persona, lock not held; whether it did anything.
  bool (*finish)() = nullptr;
  // A blocking barrier returned at `call_site` (the caller's return address).
  void (*barrier_done)(std::uintptr_t call_site) = nullptr;
  // Only while sync_hooks_live():
  //   sync_point: an operation that synchronizes is about to take effect (barrier arrival,
  //     collective, atomic or RPC initiation, notified put);
  //   incoming: an RPC or reply is about to run here;
  //   before_rma: a upcxx::rput/rget (or non-contiguous one) through the transport touches
  //     [lo, hi) of `rank`'s segment (owner addresses).
  void (*sync_point)() = nullptr;
  void (*incoming)() = nullptr;
  void (*before_rma)(int rank, std::uintptr_t lo, std::uintptr_t hi, bool put) = nullptr;
  // Only while user_progress_hooks_live(): user-level progress is starting (outermost).
  void (*before_user_progress)() = nullptr;
};

// From a static initializer; at most a few extensions (fatal beyond).
void register_extension(const extension_hooks& hooks);

// Raised by an extension while it needs the guarded hooks above.
inline bool sync_hooks_live() { return upcxx::detail::g_state.sync_hooks_live.load(std::memory_order_relaxed); }
inline void set_sync_hooks_live(bool on) { upcxx::detail::g_state.sync_hooks_live.store(on, std::memory_order_relaxed); }
extern std::atomic<bool> g_user_progress_hooks;
inline bool user_progress_hooks_live() { return g_user_progress_hooks.load(std::memory_order_relaxed); }

namespace hooks_detail {
inline constexpr int max_hooks = 4;
template <typename Fn>
struct hook_list {
  Fn fn[max_hooks] = {};
  int n = 0;
};
extern hook_list<bool (*)()> g_poll, g_finish;
}  // namespace hooks_detail

// Dispatch. The two that every progress pass makes are inline.
inline bool run_poll_hooks() {
  bool did = false;
  for (int i = 0; i < hooks_detail::g_poll.n; ++i) did = hooks_detail::g_poll.fn[i]() || did;
  return did;
}
inline bool finish_hooks_registered() { return hooks_detail::g_finish.n > 0; }
inline bool run_finish_hooks() {
  bool did = false;
  for (int i = 0; i < hooks_detail::g_finish.n; ++i) did = hooks_detail::g_finish.fn[i]() || did;
  return did;
}
void run_attach_hooks();
void run_detach_hooks();
void run_barrier_done_hooks(std::uintptr_t call_site);
void run_sync_point_hooks();
void run_incoming_hooks();
void run_before_rma_hooks(int rank, std::uintptr_t lo, std::uintptr_t hi, bool put);
void run_before_user_progress_hooks();

}  // namespace gannet::runtime
