// The RPC room (src/rpc/): what the rest of the library calls of the RPC machinery.
//
// Contract. The room owns remote procedure calls on the wire: the per-target outgoing
// batches and their flush (outgoing.cpp), large records sent through the sender's heap or
// in pieces, the incoming dispatch that runs a call in place or parks it (incoming.cpp),
// the backlog of calls that arrived when user code could not run and the barrier's
// delivery guarantee (backlog.cpp), runtime messages (internal_send/internal_register,
// which teams, collectives, VIS and the extensions use), and the dist_object registry
// (dist_registry.cpp). It may include core/, transport/transport.hpp and util/, never an
// extension or a concrete transport; its shared state is rpc_state.hpp, for src/rpc/ only.
// Threading: everything here runs under the runtime lock, from progress or from an
// initiating call; user code (call bodies, replies' completions) runs only in user-level
// progress of the persona that owns it (spec §10), never inside init() or internal
// progress. Sends wait for room: a full ring makes the sender poll until it drains
// (back-pressure; the immediate forms of UPC++ 2025.10 throw network_busy instead and send
// nothing), and each record is delivered exactly once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gannet::transport {
class transport;
}

namespace gannet::runtime {

// Registers the RPC active-message handlers with the transport (at init).
void rpc_attach(transport::transport& tp);
// Registers the non-contiguous RMA runtime-message handlers (vis.cpp), after rpc_attach.
void vis_attach();

// The few pieces of RPC state that every progress pass reads, declared here so that the
// checks below inline (rpc.cpp and outgoing.cpp define them). Hidden: the library's own.
namespace rpc_impl {
[[gnu::visibility("hidden")]] extern constinit thread_local bool t_direct;   // calls may run in place
[[gnu::visibility("hidden")]] extern constinit thread_local int t_in_handler;  // inside our handlers
[[gnu::visibility("hidden")]] extern std::atomic<bool> g_batched;            // records wait in batches
[[gnu::visibility("hidden")]] extern bool g_send_now;  // the next record may leave at once (outgoing.cpp)
[[gnu::visibility("hidden")]] void flush_all();
}  // namespace rpc_impl

// A progress pass begins (runtime lock held): the first record sent after it, to a target
// with nothing batched, leaves at once instead of waiting for the next flush; later ones
// batch until the next pass. A call made by a program that then waits, and a reply sent by
// a handler, thus leave without a batch's copy and flush, while a stream of calls made
// between two progress calls still shares batches (outgoing.cpp, send()).
inline void rpc_pass_begins() { rpc_impl::g_send_now = true; }

// While alive, incoming calls may run in place (user-level progress of the master persona).
// Inline: every progress pass and every flush sets one.
class rpc_direct_scope {
 public:
  explicit rpc_direct_scope(bool allow) : previous_(rpc_impl::t_direct) { rpc_impl::t_direct = allow; }
  ~rpc_direct_scope() { rpc_impl::t_direct = previous_; }
  rpc_direct_scope(const rpc_direct_scope&) = delete;
  rpc_direct_scope& operator=(const rpc_direct_scope&) = delete;

 private:
  bool previous_;
};

// Runs calls that arrived while they could not run; returns whether any did.
bool rpc_run_backlog();

// Sends every outgoing batch (with the runtime lock held); returns whether any was waiting.
inline bool rpc_flush() {
  if (!rpc_impl::g_batched.load(std::memory_order_relaxed)) return false;
  rpc_impl::flush_all();
  return true;
}
// Whether outgoing records wait in batches (any thread may ask, without the lock).
inline bool rpc_batched() { return rpc_impl::g_batched.load(std::memory_order_relaxed); }

// Runtime messages: the library's own requests and replies (remote atomics, collectives,
// non-contiguous RMA) travel as records of kind rpc_internal in the same per-target batches
// as RPCs, so they keep the order of the calls around them and share the large-record
// paths. The handler runs at the target as soon as the record arrives, at any progress
// level (internal progress is enough: spec 10.1, these operations need no user progress at
// their target), on the bytes in place. It runs library code only, may send runtime
// messages and RPC replies, and must not poll or wait.
enum class internal_id : std::uint16_t {
  amo = 1,        // remote atomics (atomics.cpp)
  amo_reply = 2,
  coll = 3,       // collectives (src/coll)
  vis = 4,        // non-contiguous RMA
  vis_reply = 5,
  hang = 6,       // the hang report (src/core/hang.cpp)
  count_ = 16,
};
using internal_handler = void (*)(int source, const std::byte* payload, std::size_t bytes);
void internal_register(internal_id id, internal_handler fn);
// Sends head followed by body (head padded to 16 bytes, so the body keeps 16-byte alignment
// when the record does) to `target`. The buffers may be reused on return. Leaves with the
// target's batch: at the next progress call, flush, or when the batch is full.
void internal_send(int target, internal_id id, const void* head, std::size_t head_bytes, const void* body = nullptr,
                   std::size_t body_bytes = 0);
// Sends what is batched for `target` now (a module that sends its own active messages keeps
// them in order with the RPCs and runtime messages before them).
void rpc_flush_to(int target);
// Marks the calling thread, for the object's lifetime, as inside a transport handler: sends it
// makes must not wait by polling (a module's own active-message handlers use it).
class runtime_handler_scope {
 public:
  runtime_handler_scope() { ++rpc_impl::t_in_handler; }
  ~runtime_handler_scope() { --rpc_impl::t_in_handler; }
  runtime_handler_scope(const runtime_handler_scope&) = delete;
  runtime_handler_scope& operator=(const runtime_handler_scope&) = delete;
};
// Where a handler finds the body that followed a head of head_bytes.
constexpr std::size_t internal_body_offset(std::size_t head_bytes) { return (head_bytes + 15) & ~std::size_t{15}; }

}  // namespace gannet::runtime
