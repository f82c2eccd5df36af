// The RPC machinery's shared state, for src/rpc/*.cpp only: the wire formats of its active
// messages, the per-target outgoing batches, the backlog and parked calls, and the flags the
// files test on the hot paths (defined in rpc.cpp), plus the functions one file calls in
// another. Everything here was file-local when the machinery was one file: it stays out of
// the library's interface (hidden visibility: no GOT, no interposition, still inlinable
// within its own file), in namespace rpc_impl.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rpc/rpc_internal.hpp"
#include "transport/transport.hpp"
#include "upcxx/rpc_fwd.hpp"

#pragma GCC visibility push(hidden)
namespace gannet::runtime::rpc_impl {

namespace tr = gannet::transport;
using upcxx::detail::rpc_wire;

enum : tr::am_handler_id {
  am_batch = 1,       // records back to back
  am_large = 3,       // large_ref to one record in the sender's shared heap
  am_large_done = 5,  // the receiver is done with a large record: the sender frees it
  am_fragment = 7,    // a piece of a large record that found no room in the sender's heap
};

// A batch is at most 8 KiB (less if the transport's messages are smaller); records of up to
// a quarter of that share batches, larger ones travel alone.
constexpr std::size_t batch_bytes_max = 8192;
extern std::size_t g_batch_bytes;
extern std::size_t g_batch_record_max;

// A large body: where it lies in the sender's segment.
struct large_ref {
  std::uint64_t owner_addr;
  std::uint64_t bytes;
};

// The header of one piece of a large record sent through the ring (the heap had no room):
// which record of the sender's, its length, and where this piece goes.
struct fragment_head {
  std::uint64_t id;
  std::uint64_t total;
  std::uint64_t offset;
};

struct owned_message {
  upcxx::intrank_t source;
  std::vector<std::byte> bytes;  // a copy of the record (operator new aligns it to 16, see copy_of)
};

// One target's outgoing batch. Its buffer comes from a pool of spare buffers at the first
// record and goes back to it once sent: steady traffic allocates nothing.
struct batch_free {
  void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{16}); }
};
using batch_buffer = std::unique_ptr<std::byte, batch_free>;
struct out_batch {
  batch_buffer buf;
  std::size_t used = 0;
  bool listed = false;  // in rpc_state::dirty
};

struct rpc_state {
  std::deque<owned_message> backlog;  // ready to run in the next master user progress
  std::unordered_map<std::uint64_t, std::vector<owned_message>> parked;  // waiting for a dist id
  std::unordered_map<std::uint64_t, void*> dist_objects;
  struct waiter {
    void (*fire)(void* ctx, void* object);
    void* ctx;
  };
  std::unordered_map<std::uint64_t, std::vector<waiter>> when_here;
  std::uint64_t next_dist_id = 1;
  std::vector<out_batch> batches;  // per target rank
  std::vector<upcxx::intrank_t> dirty;  // targets with records waiting
  // Large records arriving in pieces, by (source, sender's id): the bytes so far.
  struct assembly {
    std::vector<std::byte> bytes;
    std::uint64_t received = 0;
  };
  std::map<std::pair<upcxx::intrank_t, std::uint64_t>, assembly> assemblies;
  std::uint64_t next_fragmented_id = 0;
};

// A plain global, not a function-local static: the send path reads it on every call and
// should not pay for a guard. Nothing uses it before init (no RPC can be made then).
extern rpc_state g_rpc;
inline rpc_state& st() { return g_rpc; }

// t_direct, t_in_handler, g_batched and flush_all() are declared in rpc_internal.hpp (progress
// reads them); constinit there lets a thread_local of another file be read without a TLS
// wrapper call.
extern std::size_t g_max_inline;        // the transport's medium-message limit, read at attach
// We sent calls to ourselves since a barrier last completed here (see barrier_completed).
extern std::atomic<bool> g_sent_to_self;
// Every path that hands a record to the transport calls this first: a call to ourselves is
// noted for barrier_completed (backlog.cpp).
inline void note_sent(upcxx::intrank_t target) {
  if (target == upcxx::detail::g_state.rank_me) g_sent_to_self.store(true, std::memory_order_relaxed);
}

// Vectors of std::byte are allocated with operator new, which aligns to 16: bodies keep
// the 16-byte alignment serialization relies on.
inline std::vector<std::byte> copy_of(const std::byte* p, std::size_t n) { return std::vector<std::byte>(p, p + n); }

// Messages held back while a large record from their sender is fetched (incoming.cpp).
struct held_message {
  tr::am_handler_id id;
  std::vector<std::byte> header, payload;
};
struct inbound {
  bool fetching = false;
  std::deque<held_message> held;
};
// Only senders with a fetch in flight or messages held: empty in steady small traffic, which
// then pays one test per message.
extern std::unordered_map<upcxx::intrank_t, inbound> g_inbound;

// Batch buffers are lent to a target while it has records waiting and returned when the
// batch leaves: a rank holds buffers for the targets it is sending to now plus a few spare
// ones, not one for every target it ever called (8 KiB x P after an all-to-all).
constexpr std::size_t spare_batch_buffers = 16;
extern std::vector<batch_buffer> g_spare_batches;  // capacity reserved at attach: steady traffic allocates nothing

// ---- outgoing.cpp ----
// Sends target's batch now (runtime lock held).
void flush(upcxx::intrank_t target);
// Appends a record to target's batch, or sends it alone when it is too large for one.
void send(upcxx::intrank_t target, std::byte* record, std::size_t bytes);
bool try_send(upcxx::intrank_t target, std::byte* record, std::size_t bytes);
// A target is done with one of our large records.
void on_large_done(const tr::am_message& m);

// ---- incoming.cpp ----
// Runs a call now, or parks it on a dist_object that does not exist here yet.
void run_call(const std::byte* record, std::size_t bytes, upcxx::intrank_t source, owned_message* owned);
void on_batch(const tr::am_message& m);
void on_large(const tr::am_message& m);
void on_fragment(const tr::am_message& m);

}  // namespace gannet::runtime::rpc_impl
#pragma GCC visibility pop
