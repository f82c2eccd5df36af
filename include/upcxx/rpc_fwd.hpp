// Internal: the non-template side of remote procedure calls (src/runtime/rpc.cpp,
// src/runtime/fn_table.cpp), declared for the templates in rpc.hpp and dist_object.hpp.
// Not API.
//
// Wire format of an RPC body (16-byte aligned at both ends):
//   rpc_wire | dist ids (8 bytes each) | serialized function object | serialized arguments
// A reply body is rpc_reply_wire followed by the serialized result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "upcxx/detail/future_cell.hpp"
#include "upcxx/detail/state.hpp"

namespace upcxx {
class persona;
}

namespace upcxx::detail {

// A function of this program, as every rank can decode it.
struct fn_token {
  std::uint32_t object;  // index of the loaded object (executable, library) that holds it
  std::uint32_t reserved;
  std::uint64_t offset;  // from that object's load address
};
fn_token encode_function(const void* fn);
const void* decode_function(fn_token token);

struct rpc_incoming {
  const std::byte* body;  // starts with rpc_wire
  std::size_t bytes;
  intrank_t source;
};
using rpc_exec_fn = void (*)(const rpc_incoming&);

struct rpc_wire {
  fn_token exec;            // the executor: an rpc_exec_fn in this program
  std::uint64_t reply_to;   // the initiator's reply_base*, or 0 for rpc_ff
  std::uint32_t dist_ids;   // how many dist ids follow this header
  std::uint32_t reserved;
};
static_assert(sizeof(rpc_wire) == 32);

// Where an rpc's result goes, in the initiator's memory.
struct reply_base : pooled {
  void (*deliver)(reply_base* self, const std::byte* result, std::size_t bytes);
  persona* owner;  // the persona that initiated the call
};
struct rpc_reply_wire {
  std::uint64_t reply_to;  // reply_base*
  std::uint64_t reserved;
};
static_assert(sizeof(rpc_reply_wire) == 16);

// Sends an RPC or reply body to `target` (copied before return; large bodies go through the
// sender's shared heap without another copy at the receiver).
void rpc_send(intrank_t target, const std::byte* body, std::size_t bytes);
void rpc_send_reply(intrank_t target, const std::byte* body, std::size_t bytes);

// Encoded executor for a template instantiation, computed once per instantiation.
template <rpc_exec_fn Fn>
const fn_token& exec_token() {
  static const fn_token t = encode_function(reinterpret_cast<const void*>(Fn));
  return t;
}

// Distributed objects: ids are handed out in collective construction order.
std::uint64_t dist_next_id();
void dist_register(std::uint64_t id, void* object);
void dist_unregister(std::uint64_t id);
void* dist_lookup(std::uint64_t id);  // null while not constructed here

}  // namespace upcxx::detail
