// Outgoing RPC records: the per-target batches (batch buffers, append, flush, flush_all),
// send and try_send (immediate mode), large records sent alone (through our shared heap, or
// in fragments) and waiting for them to drain, runtime-message sends, and the upcxx entry
// points rpc_send/rpc_try_send.
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
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "rpc/rpc_internal.hpp"
#include "rpc/rpc_state.hpp"
#include "transport/transport.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/rpc_fwd.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"

namespace gannet::runtime::rpc_impl {
namespace {

// Large records of ours whose targets have not yet said they are done with them.
std::size_t g_large_outstanding = 0;

}  // namespace

void on_large_done(const tr::am_message& m) {
  large_ref ref;
  std::memcpy(&ref, m.payload.data(), sizeof ref);
  // Straight to the allocator: a record may come back after destroy_heap() has begun.
  my_heap().deallocate(reinterpret_cast<void*>(ref.owner_addr));
  --g_large_outstanding;
}

namespace {

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

// Spare buffers: g_spare_batches (rpc_state.hpp).
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

}  // namespace

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
  note_sent(target);
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

namespace {

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

}  // namespace

void send(upcxx::intrank_t target, std::byte* record, std::size_t bytes) {
  runtime_lock lock;
  auto& s = st();
  const std::size_t padded = upcxx::detail::rpc_pad16(bytes);
  auto& b = s.batches[static_cast<std::size_t>(target)];
  if (padded <= g_batch_record_max) [[likely]] {
    // The first record since a progress pass began, with nothing batched for its target
    // (so order is kept): it leaves now, from the caller's buffer, alone in its message.
    // Immediate: a send that would wait for room (and poll) batches instead.
    if (g_send_now && b.used == 0) {
      g_send_now = false;
      note_sent(target);
      reinterpret_cast<rpc_wire*>(record)->bytes = static_cast<std::uint32_t>(bytes);  // alone: no padding
      auto status = the_transport().am_send(target, am_batch, {}, std::span<const std::byte>(record, bytes),
                                            tr::op_immediate);
      if (status == tr::status::ok) [[likely]] return;
      if (status != tr::status::would_block) util::fatal("sending an RPC to rank %d failed", target);
    }
    if (b.used + padded > g_batch_bytes) flush(target);
    append(target, record, bytes, padded);
    return;
  }
  if (bytes > UINT32_MAX) util::fatal("an RPC of %zu bytes: calls and results are limited to 4 GiB", bytes);
  flush(target);  // calls from one rank arrive in the order they were made
  note_sent(target);
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

namespace {

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

}  // namespace

bool try_send(upcxx::intrank_t target, std::byte* record, std::size_t bytes) {
  runtime_lock lock;
  note_sent(target);  // (see barrier_completed)
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

}  // namespace gannet::runtime::rpc_impl

namespace gannet::runtime {
using namespace rpc_impl;

std::size_t rpc_large_outstanding() { return g_large_outstanding; }

void rpc_flush_to(int target) {
  runtime_lock lock;
  flush(target);
}

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

}  // namespace gannet::runtime

namespace upcxx::detail {

namespace {
// A user call or reply leaving, for GANNET_TRACE and GANNET_STATS (util/observe.hpp). Out of
// line, so that the unobserved path keeps send() inlined and pays one branch.
bool observed_kind(const std::byte* record) {
  const auto kind = reinterpret_cast<const rpc_wire*>(record)->kind;
  return kind == rpc_call || kind == rpc_call_reply;  // a reply: the call's span and arrow say it all
}
// A small call's send is recorded as an instant after it leaves (a clock read before it would
// delay it by a fifth of an on-node hop); a large one's from its start.
constexpr std::size_t observed_send_min = 1024;
void observe_sent(intrank_t target, const std::byte* record, std::size_t bytes, std::uint64_t t0) {
  namespace ob = gannet::observe;
  const bool ff = reinterpret_cast<const rpc_wire*>(record)->kind == rpc_call;
  const std::uint64_t t1 = ob::now();
  ob::rpc_sent(ff ? ob::kind::rpc_ff : ob::kind::rpc, target, bytes, t0 ? t0 : t1, t1);
}
// The calls that a program observed or overlapped (gannet::overlap) makes. Out of line, so
// that the common path keeps send() inlined and pays two predictable branches.
[[gnu::noinline]] void send_slow(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_sync_point_hooks();  // an RPC synchronizes
  if (!gannet::observe::on() || !observed_kind(record)) return gannet::runtime::rpc_impl::send(target, record, bytes);
  const std::uint64_t t0 = bytes >= observed_send_min ? gannet::observe::now() : 0;
  gannet::runtime::rpc_impl::send(target, record, bytes);
  observe_sent(target, record, bytes, t0);
}
[[gnu::noinline]] bool try_send_slow(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live()) gannet::runtime::run_sync_point_hooks();
  if (!gannet::observe::on() || !observed_kind(record)) return gannet::runtime::rpc_impl::try_send(target, record, bytes);
  const std::uint64_t t0 = bytes >= observed_send_min ? gannet::observe::now() : 0;
  const bool sent = gannet::runtime::rpc_impl::try_send(target, record, bytes);
  if (sent) observe_sent(target, record, bytes, t0);
  return sent;
}
}  // namespace

void rpc_send(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live() || gannet::observe::on()) [[unlikely]] return send_slow(target, record, bytes);
  gannet::runtime::rpc_impl::send(target, record, bytes);
}

bool rpc_try_send(intrank_t target, std::byte* record, std::size_t bytes) {
  if (gannet::runtime::sync_hooks_live() || gannet::observe::on()) [[unlikely]]
    return try_send_slow(target, record, bytes);
  return gannet::runtime::rpc_impl::try_send(target, record, bytes);
}

void throw_network_busy(const char* op, intrank_t target) {
  throw upcxx::experimental::network_busy(
      std::string(op) + ": rank " + std::to_string(target) +
      " cannot take the call without waiting (its incoming queue is full, or large calls of ours still hold our "
      "shared heap); nothing was sent: try again after upcxx::progress()");
}

}  // namespace upcxx::detail
