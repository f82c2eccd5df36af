// Internal: the non-template side of remote procedure calls (src/rpc/*.cpp,
// src/core/fn_table.cpp), declared for the templates in rpc.hpp and dist_object.hpp.
// Not API.
//
// Wire format. Calls and replies travel as records, packed back to back into batches (one
// active message carries a batch; src/rpc/outgoing.cpp). A record is 16-byte aligned at both ends:
//   call:        rpc_wire | dist ids (8 bytes each, padded to 16) | function object | arguments
//   call_reply:  rpc_wire | reply_to (8 bytes, padded to 16) | dist ids ... as a call
//   reply:       rpc_wire (word = the initiator's reply_base*) | serialized result
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>

#include "upcxx/detail/future_cell.hpp"
#include "upcxx/detail/state.hpp"

namespace upcxx {
class persona;
class team;
}

namespace upcxx::detail {

// A function of this program, as every rank can decode it: (index of the loaded object that
// holds it, offset from that object's load address) in one word.
struct fn_token {
  std::uint64_t bits;
  static constexpr int offset_bits = 48;
  std::uint32_t object() const { return static_cast<std::uint32_t>(bits >> offset_bits); }
  std::uint64_t offset() const { return bits & ((std::uint64_t{1} << offset_bits) - 1); }
};
fn_token encode_function(const void* fn);
const void* decode_function(fn_token token);

struct rpc_incoming {
  const std::byte* body;  // the record, starting with rpc_wire
  std::size_t bytes;
  intrank_t source;
};
using rpc_exec_fn = void (*)(const rpc_incoming&);

// rpc_internal: a runtime message (atomics, collectives, non-contiguous RMA) whose handler
// runs at once at any progress level; its dist_ids field names the handler (src/rpc/incoming.cpp).
enum rpc_kind : std::uint16_t { rpc_call = 1, rpc_call_reply = 2, rpc_reply = 3, rpc_internal = 4 };

struct rpc_wire {
  std::uint32_t bytes;     // the whole record (a multiple of 16 inside a batch); written by the runtime
  std::uint16_t kind;      // rpc_kind
  std::uint16_t dist_ids;  // calls: how many dist ids follow
  std::uint64_t word;      // calls: the executor's fn_token bits; reply: the reply_base*;
                           // internal: the payload's length (the record's is padded)
};
static_assert(sizeof(rpc_wire) == 16);

constexpr std::size_t rpc_pad16(std::size_t n) { return (n + 15) & ~std::size_t{15}; }
// Where a call's dist ids and its serialized function object start.
constexpr std::size_t rpc_ids_offset(std::uint16_t kind) { return sizeof(rpc_wire) + (kind == rpc_call_reply ? 16 : 0); }
constexpr std::size_t rpc_stream_offset(std::uint16_t kind, std::size_t dist_ids) {
  return rpc_ids_offset(kind) + rpc_pad16(8 * dist_ids);
}

// Where an rpc's result goes, in the initiator's memory.
struct reply_base : pooled {
  void (*deliver)(reply_base* self, const std::byte* result, std::size_t bytes);
  persona* owner;  // the persona that initiated the call
  // The call's completions are all LPCs to personas (thread-safe to enqueue) or source
  // buffering, so any thread that receives the reply may deliver it, without waiting for
  // the initiator's progress (rpc.hpp, operation_lpcs_only).
  bool any_thread = false;
};

// Sends a call or reply record to `target`; the runtime writes its rpc_wire::bytes and copies
// it (or is done with it) before returning. Small
// records wait in a per-target batch that leaves at the next progress (internal or user) or
// when the batch is full; progress_required() is true meanwhile (spec 10.3). Large records
// go through the sender's shared heap without another copy at the receiver.
void rpc_send(intrank_t target, std::byte* record, std::size_t bytes);
// As rpc_send, but never waits for room (experimental::rpc_immediate): returns false, having
// sent nothing of the record, where rpc_send would wait.
bool rpc_try_send(intrank_t target, std::byte* record, std::size_t bytes);

// Encoded executor for a template instantiation, computed once per instantiation.
template <rpc_exec_fn Fn>
const fn_token& exec_token() {
  static const fn_token t = encode_function(reinterpret_cast<const void*>(Fn));
  return t;
}

// Distributed objects: ids are handed out in the team's collective construction order.
std::uint64_t dist_next_id(const team& t);
void dist_register(std::uint64_t id, void* object);
void dist_unregister(std::uint64_t id);
void* dist_lookup(std::uint64_t id);  // null while not constructed here

}  // namespace upcxx::detail
