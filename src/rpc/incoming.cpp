// Incoming RPC records: the active-message handlers (batches, fragments, large records read
// in place or fetched by RMA, with the later messages of a fetching sender held back), and
// dispatch of each record (deliver): runtime messages and replies at once, calls in place,
// parked on a missing dist_object, or into the backlog (backlog.cpp).
//
// Where a call runs: an incoming call is executed directly on the message (no copy) when it
// arrives during user-level progress of the thread holding the master persona (spec §9:
// RPCs run in the master persona's user progress). Arriving at any other time — internal
// progress, e.g. a sender draining its ring while it waits for room — it is copied into the
// backlog, which the next such user-level progress runs first. Memory bound: the backlog
// holds at most the calls that other ranks sent to this rank while it made no user-level
// progress, each stored once (body + 40 bytes); nothing else grows with traffic.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "rpc/rpc_internal.hpp"
#include "rpc/rpc_state.hpp"
#include "transport/transport.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/rpc_fwd.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"

namespace gannet::runtime::rpc_impl {
namespace {

void run_reply(const std::byte* record, std::size_t bytes) {
  if (sync_hooks_live()) run_incoming_hooks();  // the reply may announce data newer than our prefetches
  const auto* w = reinterpret_cast<const rpc_wire*>(record);
  auto* r = reinterpret_cast<upcxx::detail::reply_base*>(w->word);
  r->deliver(r, record + sizeof(*w), bytes - sizeof(*w));
}

}  // namespace

namespace {
// GANNET_TRACE/GANNET_STATS: the body's span. Out of line: the unobserved path pays a branch.
[[gnu::noinline]] void exec_observed(upcxx::detail::rpc_exec_fn exec, const std::byte* record, std::size_t bytes,
                                     upcxx::intrank_t source) {
  const std::uint64_t stamp = observe::pass_stamp();
  const std::uint64_t t0 = stamp ? stamp : observe::now();
  exec(upcxx::detail::rpc_incoming{record, bytes, source});
  observe::rpc_ran(source, bytes, t0);
}
}  // namespace

// Runs a call now, or parks it on the first dist_object it names that does not exist here
// yet (spec §6.6: execution waits until every named instance is constructed).
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
  if (observe::on()) [[unlikely]] return exec_observed(exec, record, bytes, source);
  exec(upcxx::detail::rpc_incoming{record, bytes, source});
}

namespace {

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
// are handled, in order, once the record has arrived and been delivered (held_message,
// inbound and g_inbound: rpc_state.hpp).
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

}  // namespace

void on_batch(const tr::am_message& m) {
  if (!hold(am_batch, m)) batch_body(m);
}
void on_large(const tr::am_message& m) {
  if (!hold(am_large, m)) large_body(m);
}
void on_fragment(const tr::am_message& m) {
  if (!hold(am_fragment, m)) fragment_body(m);
}

}  // namespace gannet::runtime::rpc_impl

namespace gannet::runtime {

void internal_register(internal_id id, internal_handler fn) { rpc_impl::g_internal[static_cast<std::size_t>(id)] = fn; }

}  // namespace gannet::runtime
