// The backlog, and barriers' delivery of RPCs. Calls that arrive while they may not run
// (internal progress) wait in the backlog for the next user-level progress of the master
// persona (rpc_run_backlog). Before a barrier, a rank sends everything it has batched and
// waits until the transport has delivered it (deliver_before_barrier); after one completes,
// the next user-level progress drains what arrived before it and runs it
// (barrier_completed, rpc_drain_after_barrier; runtime.hpp).
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <deque>

#include "core/runtime.hpp"
#include "rpc/rpc_internal.hpp"
#include "rpc/rpc_state.hpp"
#include "transport/transport.hpp"

namespace gannet::runtime {
using namespace rpc_impl;

bool rpc_run_backlog() {
  auto& s = st();
  if (s.backlog.empty()) return false;
  // Take the current backlog: running calls may add more (they run next time).
  std::deque<owned_message> batch;
  batch.swap(s.backlog);
  for (auto& m : batch) run_call(m.bytes.data(), m.bytes.size(), m.source, &m);
  return true;
}

// ---- barriers deliver (runtime.hpp) ----
// A barrier completed here since the last drain (set with or without the runtime lock).
std::atomic<bool> g_barrier_drain{false};
namespace {
std::atomic<bool> g_drain_queue{false};  // and the transport's queue must be drained
}

void deliver_before_barrier() {
  if (sync_hooks_live()) run_sync_point_hooks();  // memputs are complete before we arrive
  runtime_lock lock;
  if (g_batched.load(std::memory_order_relaxed)) flush_all();
  auto& tp = the_transport();
  if (tp.delivered()) [[likely]] return;
  rpc_direct_scope internal_only(false);  // no user code runs while we wait
  unsigned spins = 0;
  do {
    if (!tp.poll() && ++spins > 64) ::sched_yield();
    flush_all();  // replies that handlers made meanwhile are messages sent before we arrive
    if (tp.job_aborting()) std::_Exit(1);
  } while (!tp.delivered());
}

void barrier_completed(bool through_queue) {
  // Calls to ourselves were not placed before the others' barrier messages.
  if (!through_queue || g_sent_to_self.exchange(false, std::memory_order_relaxed) || !the_transport().one_queue())
    g_drain_queue.store(true, std::memory_order_relaxed);
  g_barrier_drain.store(true, std::memory_order_relaxed);
}

bool rpc_drain_after_barrier_now() {
  g_barrier_drain.store(false, std::memory_order_relaxed);
  auto& tp = the_transport();
  bool did = g_drain_queue.exchange(false, std::memory_order_relaxed) && tp.drain_arrived();
  // Large records from another machine whose fetch has begun: their calls run now too.
  while (!g_inbound.empty()) {
    did = true;
    tp.poll();
    if (tp.job_aborting()) std::_Exit(1);
  }
  if (g_batched.load(std::memory_order_relaxed)) flush_all();
  return rpc_run_backlog() || did;
}

}  // namespace gannet::runtime
