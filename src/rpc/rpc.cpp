// Remote procedure calls, the non-template side: outgoing batches, active-message
// handlers, the backlog of calls that arrived while user code may not run, calls parked
// until a dist_object exists, large bodies through the sender's shared heap, and the
// dist_object registry.
//
// Batching (aggregation). Call and reply records bound for one rank are packed back to
// back into that rank's batch, a private buffer of 8 KiB; the batch leaves as one
// active message when the next record does not fit, at every progress call (internal or
// user), so a caller that waits for anything flushes first, after each incoming batch
// (replies), and before barrier() arrives. Until then the records are
// "progress required" (spec 10.3): progress_required() says so and discharge() sends them.
// A message then costs the transport once per batch instead of once per call, and the
// receiver drains a whole batch in one poll. Records over a quarter of a batch travel
// alone (after the target's batch, to keep the order of calls from one rank).
//
// Where a call runs: an incoming call is executed directly on the message (no copy) when it
// arrives during user-level progress of the thread holding the master persona (spec §9:
// RPCs run in the master persona's user progress). Arriving at any other time — internal
// progress, e.g. a sender draining its ring while it waits for room — it is copied into the
// backlog, which the next such user-level progress runs first. Memory bound: the backlog
// holds at most the calls that other ranks sent to this rank while it made no user-level
// progress, each stored once (body + 40 bytes); nothing else grows with traffic.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "rpc/rpc_internal.hpp"
#include "transport/transport.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/detail/backend_gasnet.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/rpc_fwd.hpp"
#include "util/log.hpp"

namespace gannet::runtime {
namespace {

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
std::size_t g_batch_bytes = batch_bytes_max;
std::size_t g_batch_record_max = batch_bytes_max / 4;

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

// One target's outgoing batch. The buffer is allocated at the first record for that target
// and kept: steady traffic allocates nothing.
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
rpc_state g_rpc;
inline rpc_state& st() { return g_rpc; }

thread_local bool t_direct = false;  // inside master user progress: calls may run in place
thread_local int t_in_handler = 0;   // inside our transport handlers: poll() cannot be re-entered
std::size_t g_max_inline = 0;        // the transport's medium-message limit, read at attach
// Whether any batch holds records; read without the runtime lock by progress_required().
std::atomic<bool> g_batched{false};
// Large records of ours whose targets have not yet said they are done with them.
std::size_t g_large_outstanding = 0;
// We sent calls to ourselves since a barrier last completed here (see barrier_completed).
std::atomic<bool> g_sent_to_self{false};

// Vectors of std::byte are allocated with operator new, which aligns to 16: bodies keep
// the 16-byte alignment serialization relies on.
std::vector<std::byte> copy_of(const std::byte* p, std::size_t n) { return std::vector<std::byte>(p, p + n); }

void run_reply(const std::byte* record, std::size_t bytes) {
  if (sync_hooks_live()) run_incoming_hooks();  // the reply may announce data newer than our prefetches
  const auto* w = reinterpret_cast<const rpc_wire*>(record);
  auto* r = reinterpret_cast<upcxx::detail::reply_base*>(w->word);
  r->deliver(r, record + sizeof(*w), bytes - sizeof(*w));
}

// Runs a call now, or parks it on the first dist_object it names that does not exist here
// yet (spec §6.6: execution waits until every named instance is constructed).
void flush_all();
void* allocate_after_large_sends_drain(std::size_t bytes);

void run_call(const std::byte* record, std::size_t bytes, upcxx::intrank_t source, owned_message* owned) {
  const auto* w = reinterpret_cast<const rpc_wire*>(record);
  if (w->dist_ids) [[unlikely]] {
    const auto* ids = reinterpret_cast<const std::uint64_t*>(record + upcxx::detail::rpc_ids_offset(w->kind));
    auto& s = st();
    for (std::uint32_t i = 0; i < w->dist_ids; ++i) {
      if (s.dist_objects.count(ids[i])) continue;
      owned_message m = owned ? std::move(*owned) : owned_message{source, copy_of(record, bytes)};
      s.parked[ids[i]].push_back(std::move(m));
      return;
    }
  }
  auto exec = reinterpret_cast<upcxx::detail::rpc_exec_fn>(
      const_cast<void*>(upcxx::detail::decode_function(upcxx::detail::fn_token{w->word})));
  // The body is user code: it runs without the runtime lock (threadmode par), and what it
  // calls takes the lock itself. The message stays where it is: the ring is not consumed
  // meanwhile (other threads' polls return at once while a handler runs).
  if (sync_hooks_live()) run_incoming_hooks();  // the call may announce data newer than our prefetches
  runtime_unlock user_code;
  exec(upcxx::detail::rpc_incoming{record, bytes, source});
}

internal_handler g_internal[static_cast<std::size_t>(internal_id::count_)] = {};

void run_internal(const std::byte* record, std::size_t bytes, upcxx::intrank_t source) {
  const auto* w = reinterpret_cast<const rpc_wire*>(record);
  internal_handler fn = w->dist_ids < std::size(g_internal) ? g_internal[w->dist_ids] : nullptr;
  if (!fn) util::fatal("runtime message from rank %d for unregistered handler %u", source, w->dist_ids);
  // The record's length is padded to 16 in a batch; the word holds the payload's own length.
  if (w->word > bytes - sizeof(rpc_wire)) util::fatal("corrupt runtime message from rank %d", source);
  fn(source, record + sizeof(rpc_wire), static_cast<std::size_t>(w->word));
}

void deliver(const std::byte* record, std::size_t bytes, upcxx::intrank_t source) {
  const auto* w = reinterpret_cast<const rpc_wire*>(record);
  if (w->kind == upcxx::detail::rpc_internal) {
    // Library code: runs now, whatever the progress level.
    run_internal(record, bytes, source);
  } else if (w->kind == upcxx::detail::rpc_reply) {
    // A reply is handled at once, at any progress level, by the thread holding the
    // initiating persona: its notifications touch that persona's futures, promises and
    // callbacks, which no other thread may touch (spec §10.5). Any other thread (a
    // dedicated progress thread, say) hands a copy to that persona as an LPC, and the
    // initiator runs it in its next user-level progress.
    // A reply whose completions are LPCs and source buffering only runs here, whatever the
    // thread (reply_base::any_thread, rpc.hpp).
    const auto* reply = reinterpret_cast<upcxx::detail::reply_base*>(w->word);
    auto* owner = reply->owner;
    if (reply->any_thread || owner->active_with_caller()) [[likely]] {
      run_reply(record, bytes);
    } else {
      owner->lpc_ff([m = copy_of(record, bytes)] { run_reply(m.data(), m.size()); });
    }
  } else if (t_direct) [[likely]] {
    run_call(record, bytes, source, nullptr);
  } else {
    st().backlog.push_back(owned_message{source, copy_of(record, bytes)});
  }
}


// A record reassembled from pieces, as deliver() does, but owning its bytes: a call that
// waits (backlog, or parked on a dist id) keeps the buffer instead of a copy.
void deliver_owned(owned_message m) {
  const auto* w = reinterpret_cast<const rpc_wire*>(m.bytes.data());
  if (w->kind == upcxx::detail::rpc_reply || w->kind == upcxx::detail::rpc_internal) {
    deliver(m.bytes.data(), m.bytes.size(), m.source);
  } else if (t_direct) {
    run_call(m.bytes.data(), m.bytes.size(), m.source, &m);
  } else {
    st().backlog.push_back(std::move(m));
  }
}

void fragment_body(const tr::am_message& m) {
  runtime_handler_scope in_handler;  // what the handler runs cannot make the transport poll
  fragment_head head;
  std::memcpy(&head, m.header.data(), sizeof head);
  auto& s = st();
  auto key = std::make_pair(m.source, head.id);
  auto& a = s.assemblies[key];
  if (a.bytes.empty()) a.bytes.resize(head.total);
  if (head.offset + m.payload.size() > head.total) util::fatal("corrupt RPC fragment from rank %d", m.source);
  std::memcpy(a.bytes.data() + head.offset, m.payload.data(), m.payload.size());
  a.received += m.payload.size();
  if (a.received < head.total) return;
  owned_message whole{m.source, std::move(a.bytes)};
  s.assemblies.erase(key);
  deliver_owned(std::move(whole));
}

void batch_body(const tr::am_message& m) {
  runtime_handler_scope in_handler;  // what the handler runs cannot make the transport poll
  const std::byte* p = m.payload.data();
  const std::byte* end = p + m.payload.size();
  while (p < end) {
    std::uint32_t bytes = reinterpret_cast<const rpc_wire*>(p)->bytes;
    if (bytes < sizeof(rpc_wire) || bytes > static_cast<std::size_t>(end - p))
      util::fatal("corrupt RPC batch from rank %d", m.source);
    deliver(p, bytes, m.source);
    p += bytes;
  }
  // Replies (and calls) the batch's calls made leave now: a caller is probably waiting for
  // them, and the next thing poll() does is look at the next ring slot, a cache miss when
  // the ring is empty.
  if (g_batched.load(std::memory_order_relaxed)) flush_all();
}

// ---- large records from a rank whose memory we cannot address (another machine) ----
// The record is fetched from the sender's heap with RMA gets. Meanwhile the sender's later
// messages wait here, copied, so that its calls still run in the order it made them; they
// are handled, in order, once the record has arrived and been delivered.
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
std::unordered_map<upcxx::intrank_t, inbound> g_inbound;

void large_body(const tr::am_message& m);

// Holds m if its sender has a fetch in flight (or messages already held).
bool hold(tr::am_handler_id id, const tr::am_message& m) {
  if (g_inbound.empty()) [[likely]] return false;
  auto it = g_inbound.find(m.source);
  if (it == g_inbound.end()) return false;
  it->second.held.push_back(held_message{id, copy_of(m.header.data(), m.header.size()),
                                         copy_of(m.payload.data(), m.payload.size())});
  return true;
}

// Handles what source's fetch held back, until the next fetch from it begins.
void release_held(upcxx::intrank_t source) {
  for (;;) {
    auto it = g_inbound.find(source);
    if (it == g_inbound.end()) return;
    if (it->second.fetching) return;
    if (it->second.held.empty()) {
      g_inbound.erase(it);
      return;
    }
    held_message h = std::move(it->second.held.front());
    it->second.held.pop_front();
    tr::am_message m{source, h.header, h.payload};
    switch (h.id) {
      case am_batch: batch_body(m); break;
      case am_large: large_body(m); break;
      case am_fragment: fragment_body(m); break;
      default: util::fatal("internal: held message with handler %u", h.id);
    }
  }
}

// Fetched records land in a buffer kept from one fetch to the next (a fresh one would cost
// a page fault per 4 KiB, more than the transfer), up to this size.
constexpr std::size_t fetch_spare_max = std::size_t{64} << 20;
struct fetch_buffer {
  batch_buffer bytes;  // 16-aligned
  std::size_t capacity = 0;
};
fetch_buffer g_fetch_spare;

fetch_buffer take_fetch_buffer(std::size_t n) {
  if (g_fetch_spare.capacity >= n) return std::exchange(g_fetch_spare, fetch_buffer{});
  return fetch_buffer{batch_buffer(static_cast<std::byte*>(::operator new(n, std::align_val_t{16}))), n};
}
void give_back_fetch_buffer(fetch_buffer b) {
  if (b.capacity <= fetch_spare_max && b.capacity > g_fetch_spare.capacity) g_fetch_spare = std::move(b);
}

// One large record on its way here by RMA (in gets of at most 1 GiB, MPI's int counts).
class large_fetch final : public tr::completion_sink {
 public:
  large_fetch(upcxx::intrank_t source, large_ref ref)
      : source_(source), ref_(ref), buf_(take_fetch_buffer(static_cast<std::size_t>(ref.bytes))) {}

  // Issues the gets; may finish (and delete this) before returning.
  void start() {
    constexpr std::uint64_t piece = std::uint64_t{1} << 30;
    auto& tp = the_transport();
    int issued = 0, done = 0;
    for (std::uint64_t off = 0; off < ref_.bytes; off += piece) {
      auto n = static_cast<std::size_t>(std::min(piece, ref_.bytes - off));
      auto r = tp.get(source_, ref_.owner_addr + off, buf_.bytes.get() + off, n, this, tr::op_none);
      if (r.st != tr::status::ok) util::fatal("fetching a large RPC from rank %d failed", source_);
      ++issued;
      if (r.done & tr::cx_remote) ++done;
    }
    // complete() runs only inside poll(), after this returns.
    remaining_ = issued - done;
    if (remaining_ == 0) finish();
  }

  void complete(tr::cx_bits which) override {
    if ((which & tr::cx_remote) && --remaining_ == 0) finish();
  }

 private:
  void finish() {
    runtime_handler_scope in_handler;
    const upcxx::intrank_t source = source_;
    const large_ref ref = ref_;
    fetch_buffer buf = std::move(buf_);
    delete this;
    // The bytes are here: the sender may free its copy before the call runs.
    the_transport().am_send(source, am_large_done, {}, std::as_bytes(std::span(&ref, 1)), tr::op_none);
    g_inbound[source].fetching = false;
    deliver(buf.bytes.get(), static_cast<std::size_t>(ref.bytes), source);  // copies what must wait
    give_back_fetch_buffer(std::move(buf));
    release_held(source);
  }

  upcxx::intrank_t source_;
  large_ref ref_;
  fetch_buffer buf_;
  int remaining_ = 0;
};

// Large records are read where the sender left them, in place on this machine and by RMA
// from another; the sender frees them when told.
void large_body(const tr::am_message& m) {
  runtime_handler_scope in_handler;  // what the handler runs cannot make the transport poll
  large_ref ref;
  std::memcpy(&ref, m.payload.data(), sizeof ref);
  auto& tp = the_transport();
  if (auto* record = static_cast<const std::byte*>(tp.local_address(m.source, ref.owner_addr))) {
    deliver(record, ref.bytes, m.source);
    // deliver() has finished with the sender's buffer (run, or copied).
    tp.am_send(m.source, am_large_done, {}, std::as_bytes(std::span(&ref, 1)), tr::op_none);
    return;
  }
  g_inbound[m.source].fetching = true;
  (new large_fetch(m.source, ref))->start();
}

void on_batch(const tr::am_message& m) {
  if (!hold(am_batch, m)) batch_body(m);
}
void on_large(const tr::am_message& m) {
  if (!hold(am_large, m)) large_body(m);
}
void on_fragment(const tr::am_message& m) {
  if (!hold(am_fragment, m)) fragment_body(m);
}

void on_large_done(const tr::am_message& m) {
  large_ref ref;
  std::memcpy(&ref, m.payload.data(), sizeof ref);
  // Straight to the allocator: a record may come back after destroy_heap() has begun.
  my_heap().deallocate(reinterpret_cast<void*>(ref.owner_addr));
  --g_large_outstanding;
}

// The shared heap has no room for a large record. If earlier large records of ours still
// hold heap space, their targets free it as soon as they have run or copied them: make
// internal progress (no user code runs) until the allocation fits, or until nothing has
// been freed for a second (a send from inside a handler cannot poll; a heap that the
// program itself fills cannot drain). Returns null then.
void* allocate_after_large_sends_drain(std::size_t bytes) {
  auto& tp = the_transport();
  rpc_direct_scope internal_only(false);
  auto last_change = std::chrono::steady_clock::now();
  std::size_t seen = g_large_outstanding;
  while (g_large_outstanding > 0 && t_in_handler == 0) {
    flush_all();
    tp.poll();
    if (tp.job_aborting()) std::_Exit(1);
    if (g_large_outstanding != seen) {
      seen = g_large_outstanding;
      last_change = std::chrono::steady_clock::now();
      if (void* buf = upcxx::detail::heap_allocate(bytes, 64)) return buf;
    } else if (std::chrono::steady_clock::now() - last_change > std::chrono::seconds(1)) {
      break;
    } else {
      ::sched_yield();
    }
  }
  return upcxx::detail::heap_allocate(bytes, 64);
}

// Batch buffers are lent to a target while it has records waiting and returned when the
// batch leaves: a rank holds buffers for the targets it is sending to now plus a few spare
// ones, not one for every target it ever called (8 KiB x P after an all-to-all).
constexpr std::size_t spare_batch_buffers = 16;
std::vector<batch_buffer> g_spare_batches;  // capacity reserved at attach: steady traffic allocates nothing

batch_buffer take_batch_buffer() {
  if (g_spare_batches.empty())
    return batch_buffer(static_cast<std::byte*>(::operator new(g_batch_bytes, std::align_val_t{16})));
  batch_buffer b = std::move(g_spare_batches.back());
  g_spare_batches.pop_back();
  return b;
}
void release_batch_buffer(batch_buffer b) {
  if (b && g_spare_batches.size() < spare_batch_buffers) g_spare_batches.push_back(std::move(b));
}

// Sends target's batch now. Called with the runtime lock held. The buffer is detached while
// the transport sends it: a transport waiting for room runs handlers, which may queue new
// records for the same target. Calls that arrive meanwhile wait in the backlog: a blocked
// send is internal progress, even when it happens inside user-level progress (a call that
// sends), and must not run user code (spec 10.1).
void flush(upcxx::intrank_t target) {
  auto& b = st().batches[static_cast<std::size_t>(target)];
  if (b.used == 0) return;
  batch_buffer buf = std::move(b.buf);
  std::size_t used = std::exchange(b.used, 0);
  rpc_direct_scope internal_only(false);
  if (target == upcxx::detail::g_state.rank_me) g_sent_to_self.store(true, std::memory_order_relaxed);
  auto status = the_transport().am_send(target, am_batch, {}, std::span<const std::byte>(buf.get(), used), tr::op_none);
  if (status != tr::status::ok) util::fatal("sending a batch of RPCs to rank %d failed", target);
  release_batch_buffer(std::move(buf));
}

void flush_all() {
  auto& s = st();
  // Flushing may list targets again (see flush); loop until nothing is listed.
  while (!s.dirty.empty()) {
    std::vector<upcxx::intrank_t> targets;
    targets.swap(s.dirty);
    for (auto t : targets) {
      s.batches[static_cast<std::size_t>(t)].listed = false;
      flush(t);
    }
    if (s.dirty.empty()) {
      targets.clear();
      s.dirty.swap(targets);  // keep the capacity
    }
  }
  g_batched.store(false, std::memory_order_relaxed);
}

// Appends a record that fits to target's batch (the batch has room for it).
[[gnu::always_inline]] inline void append(upcxx::intrank_t target, const std::byte* record, std::size_t bytes,
                                          std::size_t padded) {
  auto& s = st();
  auto& b = s.batches[static_cast<std::size_t>(target)];
  if (!b.buf) b.buf = take_batch_buffer();
  std::byte* dst = b.buf.get() + b.used;
  if (bytes <= 128) {
    // A short inline loop rather than a call, for the common record of a few tens of bytes.
    std::size_t i = 0;
    for (; i + 16 <= bytes; i += 16) std::memcpy(dst + i, record + i, 16);
    for (; i < bytes; ++i) dst[i] = record[i];
  } else {
    std::memcpy(dst, record, bytes);
  }
  reinterpret_cast<rpc_wire*>(dst)->bytes = static_cast<std::uint32_t>(padded);
  b.used += padded;
  if (!b.listed) {
    b.listed = true;
    s.dirty.push_back(target);
    g_batched.store(true, std::memory_order_relaxed);
  }
}

void send(upcxx::intrank_t target, std::byte* record, std::size_t bytes) {
  runtime_lock lock;
  auto& s = st();
  const std::size_t padded = upcxx::detail::rpc_pad16(bytes);
  auto& b = s.batches[static_cast<std::size_t>(target)];
  if (padded <= g_batch_record_max) [[likely]] {
    if (b.used + padded > g_batch_bytes) flush(target);
    append(target, record, bytes, padded);
    return;
  }
  if (bytes > UINT32_MAX) util::fatal("an RPC of %zu bytes: calls and results are limited to 4 GiB", bytes);
  flush(target);  // calls from one rank arrive in the order they were made
  if (target == upcxx::detail::g_state.rank_me) g_sent_to_self.store(true, std::memory_order_relaxed);
  auto& tp = the_transport();
  // Alone, the record needs no padding: it ends the message.
  reinterpret_cast<rpc_wire*>(record)->bytes = static_cast<std::uint32_t>(bytes);
  rpc_direct_scope internal_only(false);  // as in flush()
  if (bytes <= g_max_inline) {
    tp.am_send(target, am_batch, {}, std::span<const std::byte>(record, bytes), tr::op_none);
    return;
  }
  // Rendezvous: one copy into our own segment, which the target reads in place when it
  // shares memory with us and with RMA gets otherwise (another machine). A transport with
  // neither sends the record in pieces.
  const bool by_heap = tp.caps().rma || tp.local_address(target, tp.segment(target).base) != nullptr;
  void* buf = by_heap ? upcxx::detail::heap_allocate(bytes, 64) : nullptr;
  if (!buf && by_heap) buf = allocate_after_large_sends_drain(bytes);
  if (!buf) {
    // No room in our heap: send the record through the ring in pieces, reassembled at the
    // target (one more copy there). From inside a handler, pieces that meet a full ring are
    // parked by the transport, as any handler send.
    fragment_head head{++st().next_fragmented_id, bytes, 0};
    const std::size_t piece = (g_max_inline - sizeof head) & ~std::size_t{15};
    for (; head.offset < bytes; head.offset += piece) {
      std::size_t n = std::min(piece, bytes - head.offset);
      auto status = tp.am_send(target, am_fragment, std::as_bytes(std::span(&head, 1)),
                               std::span<const std::byte>(record + head.offset, n), tr::op_none);
      if (status != tr::status::ok) util::fatal("sending a large RPC to rank %d failed", target);
    }
    return;
  }
  ++g_large_outstanding;
  std::memcpy(buf, record, bytes);
  large_ref ref{reinterpret_cast<std::uint64_t>(buf), bytes};
  tp.am_send(target, am_large, {}, std::as_bytes(std::span(&ref, 1)), tr::op_none);
}

// Immediate mode (UPC++ 2025.10, experimental::rpc_immediate): send()'s paths, but where
// send() would wait for room in the target's queue, or for our heap to drain, this returns
// false having sent nothing of the record. A record that fits still joins the batch (it
// leaves at the next progress, as any call): only a full batch that cannot leave at once
// makes the call busy. What is already batched for the target goes first, as always.
bool try_flush(upcxx::intrank_t target) {
  auto& b = st().batches[static_cast<std::size_t>(target)];
  if (b.used == 0) return true;
  // An immediate send does not poll: no handler can touch the batch meanwhile.
  auto status = the_transport().am_send(target, am_batch, {}, std::span<const std::byte>(b.buf.get(), b.used),
                                        tr::op_immediate);
  if (status == tr::status::would_block) return false;
  if (status != tr::status::ok) util::fatal("sending a batch of RPCs to rank %d failed", target);
  b.used = 0;
  release_batch_buffer(std::move(b.buf));
  return true;
}

bool try_send(upcxx::intrank_t target, std::byte* record, std::size_t bytes) {
  runtime_lock lock;
  if (target == upcxx::detail::g_state.rank_me) g_sent_to_self.store(true, std::memory_order_relaxed);  // (see barrier_completed)
  auto& s = st();
  const std::size_t padded = upcxx::detail::rpc_pad16(bytes);
  auto& b = s.batches[static_cast<std::size_t>(target)];
  if (padded <= g_batch_record_max) {
    if (b.used + padded > g_batch_bytes && !try_flush(target)) return false;
    append(target, record, bytes, padded);
    return true;
  }
  if (bytes > UINT32_MAX) util::fatal("an RPC of %zu bytes: calls and results are limited to 4 GiB", bytes);
  if (!try_flush(target)) return false;
  auto& tp = the_transport();
  reinterpret_cast<rpc_wire*>(record)->bytes = static_cast<std::uint32_t>(bytes);
  if (bytes <= g_max_inline) {
    auto status = tp.am_send(target, am_batch, {}, std::span<const std::byte>(record, bytes), tr::op_immediate);
    if (status == tr::status::would_block) return false;
    if (status != tr::status::ok) util::fatal("sending an RPC to rank %d failed", target);
    return true;
  }
  const bool by_heap = tp.caps().rma || tp.local_address(target, tp.segment(target).base) != nullptr;
  if (by_heap) {
    void* buf = upcxx::detail::heap_allocate(bytes, 64);
    // No room while large records of ours still hold heap space: busy, they drain with
    // progress. No room otherwise (the program fills the heap): the pieces below.
    if (!buf && g_large_outstanding > 0) return false;
    if (buf) {
      std::memcpy(buf, record, bytes);
      large_ref ref{reinterpret_cast<std::uint64_t>(buf), bytes};
      auto status = tp.am_send(target, am_large, {}, std::as_bytes(std::span(&ref, 1)), tr::op_immediate);
      if (status == tr::status::would_block) {
        my_heap().deallocate(buf);
        return false;
      }
      if (status != tr::status::ok) util::fatal("sending a large RPC to rank %d failed", target);
      ++g_large_outstanding;
      return true;
    }
  }
  // In pieces: the first one decides. Once it has left, the record cannot be taken back:
  // the rest follow as send() sends them, waiting for room if need be (internal progress).
  rpc_direct_scope internal_only(false);
  fragment_head head{++s.next_fragmented_id, bytes, 0};
  const std::size_t piece = (g_max_inline - sizeof head) & ~std::size_t{15};
  for (; head.offset < bytes; head.offset += piece) {
    std::size_t n = std::min(piece, bytes - head.offset);
    auto status = tp.am_send(target, am_fragment, std::as_bytes(std::span(&head, 1)),
                             std::span<const std::byte>(record + head.offset, n),
                             head.offset == 0 ? tr::op_immediate : tr::op_none);
    if (status == tr::status::would_block) return false;
    if (status != tr::status::ok) util::fatal("sending a large RPC to rank %d failed", target);
  }
  return true;
}

}  // namespace

std::size_t rpc_large_outstanding() { return g_large_outstanding; }

}  // namespace gannet::runtime
namespace upcxx::detail {
void prepare_function_table();  // fn_table.cpp
}
namespace gannet::runtime {

void rpc_attach(transport::transport& tp) {
  upcxx::detail::prepare_function_table();
  if (!tp.caps().active_messages) util::fatal("the %s transport has no active messages", tp.name());
  g_max_inline = tp.caps().am_max_medium;
  // A record of more bytes than this takes the large-message path (send()).
  upcxx::backend::gasnet::am_size_rdzv_cutover = g_max_inline;
  g_batch_bytes = std::min(batch_bytes_max, g_max_inline & ~std::size_t{15});
  g_batch_record_max = g_batch_bytes / 4;
  st().batches.resize(static_cast<std::size_t>(tp.rank_n()));
  g_spare_batches.reserve(spare_batch_buffers);
  tp.am_register(am_batch, on_batch);
  tp.am_register(am_large, on_large);
  tp.am_register(am_large_done, on_large_done);
  tp.am_register(am_fragment, on_fragment);
}

rpc_direct_scope::rpc_direct_scope(bool allow) : previous_(t_direct) { t_direct = allow; }
rpc_direct_scope::~rpc_direct_scope() { t_direct = previous_; }

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
namespace {
// A barrier completed here since the last drain (set with or without the runtime lock).
std::atomic<bool> g_barrier_drain{false};
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

bool rpc_drain_after_barrier() {
  if (!g_barrier_drain.load(std::memory_order_relaxed)) [[likely]] return false;
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

bool rpc_batched() { return g_batched.load(std::memory_order_relaxed); }

runtime_handler_scope::runtime_handler_scope() { ++t_in_handler; }
runtime_handler_scope::~runtime_handler_scope() { --t_in_handler; }

void rpc_flush_to(int target) {
  runtime_lock lock;
  flush(target);
}

void internal_register(internal_id id, internal_handler fn) { g_internal[static_cast<std::size_t>(id)] = fn; }

namespace {
// Lays out a runtime message's record in `record` (at least `bytes` long).
void build_internal(std::byte* record, std::size_t bytes, internal_id id, const void* head, std::size_t head_bytes,
                    const void* body, std::size_t body_bytes) {
  const std::size_t body_at = sizeof(rpc_wire) + internal_body_offset(head_bytes);
  rpc_wire wire{0, upcxx::detail::rpc_internal, static_cast<std::uint16_t>(id), bytes - sizeof(rpc_wire)};
  std::memcpy(record, &wire, sizeof wire);
  if (head_bytes) std::memcpy(record + sizeof wire, head, head_bytes);
  if (body_bytes) std::memcpy(record + body_at, body, body_bytes);
}
}  // namespace

void internal_send(int target, internal_id id, const void* head, std::size_t head_bytes, const void* body,
                   std::size_t body_bytes) {
  const std::size_t bytes = sizeof(rpc_wire) + internal_body_offset(head_bytes) + body_bytes;
  // Small records are built on the stack; send() copies them into the batch.
  alignas(16) std::byte small[512];
  std::unique_ptr<std::byte[]> big;
  std::byte* record = small;
  if (bytes > sizeof small) {
    big.reset(new std::byte[bytes]);  // operator new[] aligns to 16
    record = big.get();
  }
  build_internal(record, bytes, id, head, head_bytes, body, body_bytes);
  send(target, record, bytes);
}

bool rpc_flush() {
  if (!g_batched.load(std::memory_order_relaxed)) return false;
  flush_all();
  return true;
}

}  // namespace gannet::runtime

namespace upcxx::detail {

void rpc_send(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_sync_point_hooks();  // an RPC synchronizes
  gannet::runtime::send(target, record, bytes);
}

bool rpc_try_send(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_sync_point_hooks();
  return gannet::runtime::try_send(target, record, bytes);
}

void throw_network_busy(const char* op, intrank_t target) {
  throw upcxx::experimental::network_busy(
      std::string(op) + ": rank " + std::to_string(target) +
      " cannot take the call without waiting (its incoming queue is full, or large calls of ours still hold our "
      "shared heap); nothing was sent: try again after upcxx::progress()");
}

bool team_is_world(const team& t);           // src/coll/team.cpp
std::uint64_t team_next_dist_id(const team& t);  // src/coll/team.cpp

// World's dist_objects (and those of teams equal to it) keep the plain counter; others are
// named by their team (src/coll/team.cpp).
std::uint64_t dist_next_id(const team& t) {
  return team_is_world(t) ? gannet::runtime::st().next_dist_id++ : team_next_dist_id(t);
}

void dist_register(std::uint64_t id, void* object) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::st();
  s.dist_objects[id] = object;
  // when_here() futures are readied inside the constructor (spec §14.4 ¶6).
  if (auto w = s.when_here.find(id); w != s.when_here.end()) {
    auto waiters = std::move(w->second);
    s.when_here.erase(w);
    for (auto& x : waiters) x.fire(x.ctx, object);
  }
  auto it = s.parked.find(id);
  if (it == s.parked.end()) return;
  // Parked calls run in the next user-level progress (never inside the constructor); a
  // call naming several dist ids may park again on the next missing one.
  for (auto& m : it->second) s.backlog.push_back(std::move(m));
  s.parked.erase(it);
}

void dist_when_here(std::uint64_t id, void (*fire)(void* ctx, void* object), void* ctx) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::st();
  if (auto it = s.dist_objects.find(id); it != s.dist_objects.end()) {
    fire(ctx, it->second);
    return;
  }
  s.when_here[id].push_back({fire, ctx});
}

void dist_unregister(std::uint64_t id) {
  gannet::runtime::runtime_lock lock;
  gannet::runtime::st().dist_objects.erase(id);
}

void* dist_lookup(std::uint64_t id) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::st();
  auto it = s.dist_objects.find(id);
  return it == s.dist_objects.end() ? nullptr : it->second;
}

}  // namespace upcxx::detail
