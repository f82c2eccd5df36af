// The off-node path of rput/rget: hands the operation to the transport and turns its
// completion reports into the operation's events. On-node operations never get here.
//
// The rma room (src/rma). Owns the non-template side of one-sided communication: this
// file, remote atomics (atomics.cpp), non-contiguous RMA and copy (vis.cpp) and memory kinds
// (device.cpp; host memory only in this build). The templates are in include/upcxx/
// (rma.hpp, atomic.hpp, vis.hpp, copy.hpp): they do the on-node work inline (a memcpy or a
// CPU atomic, then complete_sync) and call here only for a peer that is not load/store
// addressable. May include: the core (core/runtime.hpp), the runtime-message service of
// src/rpc (rpc/rpc_internal.hpp), the transport contract (never a concrete transport), util/
// and public headers; never src/ext/: overlap hears of RMA through the core's before_rma
// and sync_point hooks, run here while sync_hooks_live(). The core calls back into this room
// only at init (atomics_attach, vis_attach: handler registration).
// Threading: transport calls are made under runtime_lock; an operation's events may be
// reported on any thread that polls, and the operation (rma_op::on_events, cx_async_state)
// queues its notifications on the initiating persona. Progress: initiation is
// internal-level (it may poll the transport); the atomics' and VIS runtime-message handlers
// run at the target at any progress level and never poll or wait (spec §13.3: atomics need
// no user-level progress at their target); the off-node path's notifications arrive only
// in user-level progress of the initiating persona.
#include <cstring>
#include <new>
#include <string>

#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/rma.hpp"
#include "util/observe.hpp"

namespace upcxx::detail {
namespace {

namespace tr = gannet::transport;

// Lives inside rma_op::sink_storage: the transport reports through it, the operation
// frees itself (and with it this adapter) once its last event is delivered, after which
// the transport no longer touches the sink (contract in transport.hpp).
struct rma_sink final : tr::completion_sink {
  explicit rma_sink(rma_op* o) : op(o) {}
  rma_op* op;
  void complete(tr::cx_bits which) override { deliver(op, events_of(which)); }
  static void deliver(rma_op* op, unsigned events) {
    if (op->observed_t0 && (events & ev_operation) && (op->pending & ev_operation)) [[unlikely]] observed_done(op);
    op->on_events(op, events);
  }
  static unsigned events_of(unsigned bits) {
    unsigned ev = 0;
    if (bits & tr::cx_source) ev |= ev_source;
    // Remote completion of a put or a get is operation completion, which implies source
    // completion (spec §7.1 ¶21).
    if (bits & tr::cx_remote) ev |= ev_operation | ev_source;
    return ev;
  }
};
static_assert(sizeof(rma_sink) <= sizeof(rma_op::sink_storage));
static_assert(alignof(rma_sink) <= alignof(rma_op));

}  // namespace

// observe_op and observe::kind list the RMA operations in the same order.
static_assert(static_cast<int>(gannet::observe::kind::vis_get) == observe_vis_get);

std::uint64_t observe_clock() { return gannet::observe::now(); }

void observed_span(observe_op op, intrank_t peer, std::size_t bytes, std::uint64_t t0) {
  gannet::observe::span(static_cast<gannet::observe::kind>(op), peer, bytes, t0);
}

void observed_copy(int kind, intrank_t peer, void* dst, const void* src, std::size_t n) {
  const std::uint64_t t0 = gannet::observe::now();
  std::memcpy(dst, src, n);
  observed_span(kind == 0 ? observe_rput : observe_rget, peer, n, t0);
}

void observe_start(rma_op* op, observe_op kind, intrank_t rank, std::size_t n) {
  op->observed_t0 = gannet::observe::now();
  op->observed_bytes = n;
  op->observed_peer = rank;
  op->observed_kind = kind;
  op->observed_track = static_cast<std::uint16_t>(gannet::observe::track());
}

void observed_done(rma_op* op) {
  // On the initiator's track, whichever thread's progress saw the completion.
  gannet::observe::span(static_cast<gannet::observe::kind>(op->observed_kind), op->observed_peer, op->observed_bytes,
                        op->observed_t0, 0, nullptr, op->observed_track);
  op->observed_t0 = 0;
}

void rma_put_remote(intrank_t rank, const void* owner_addr, const void* src, std::size_t n, rma_op* op,
                    bool transient_src) {
  if (g_state.init_count <= 0) [[unlikely]] fail_not_initialized_here("upcxx::rput");
  const auto addr = reinterpret_cast<std::uintptr_t>(owner_addr);
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_before_rma_hooks(rank, addr, addr + n, true);
  if (gannet::observe::on()) [[unlikely]] observe_start(op, observe_rput, rank, n);
  gannet::runtime::runtime_lock lock;
  auto* sink = ::new (static_cast<void*>(op->sink_storage)) rma_sink(op);
  auto r = gannet::runtime::the_transport().put(rank, reinterpret_cast<std::uintptr_t>(owner_addr), src, n, sink,
                                                transient_src ? tr::op_source_transient : tr::op_none);
  if (r.done) rma_sink::deliver(op, rma_sink::events_of(r.done));
}

void rma_get_remote(intrank_t rank, const void* owner_addr, void* dst, std::size_t n, rma_op* op) {
  if (g_state.init_count <= 0) [[unlikely]] fail_not_initialized_here("upcxx::rget");
  const auto addr = reinterpret_cast<std::uintptr_t>(owner_addr);
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_before_rma_hooks(rank, addr, addr + n, false);
  if (gannet::observe::on()) [[unlikely]] observe_start(op, observe_rget, rank, n);
  gannet::runtime::runtime_lock lock;
  auto* sink = ::new (static_cast<void*>(op->sink_storage)) rma_sink(op);
  auto r = gannet::runtime::the_transport().get(rank, reinterpret_cast<std::uintptr_t>(owner_addr), dst, n, sink,
                                                tr::op_none);
  if (r.done) rma_sink::deliver(op, rma_sink::events_of(r.done));
}

void fail_null_rma(const char* what, const ::upcxx::detail::source_loc& loc) {
  fail_at(loc, std::string(what) + " with a null global_ptr or buffer (spec 8.2: src and dest must not be null)");
}

}  // namespace upcxx::detail
