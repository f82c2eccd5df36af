// Remote procedure calls, the non-template side: active-message handlers, the backlog of
// calls that arrived while user code may not run, calls parked until a dist_object
// exists, large bodies through the sender's shared heap, and the dist_object registry.
//
// Where a call runs: an incoming call is executed directly on the message (no copy) when it
// arrives during user-level progress of the thread holding the master persona (spec §9:
// RPCs run in the master persona's user progress). Arriving at any other time — internal
// progress, e.g. a sender draining its ring while it waits for room — it is copied into the
// backlog, which the next such user-level progress runs first. Memory bound: the backlog
// holds at most the calls that other ranks sent to this rank while it made no user-level
// progress, each stored once (body + 40 bytes); nothing else grows with traffic.
#include <cstring>
#include <deque>
#include <unordered_map>
#include <vector>

#include "runtime/runtime.hpp"
#include "runtime/rpc_internal.hpp"
#include "transport/transport.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/rpc_fwd.hpp"
#include "util/log.hpp"

namespace gannet::runtime {
namespace {

namespace tr = gannet::transport;
using upcxx::detail::rpc_wire;

enum : tr::am_handler_id {
  am_rpc = 1,           // body inline
  am_reply = 2,         // reply body inline
  am_rpc_large = 3,     // large_ref to a body in the sender's shared heap
  am_reply_large = 4,
  am_large_done = 5,    // the receiver is done with a large body: the sender frees it
};

// A large body: where it lies in the sender's segment.
struct large_ref {
  std::uint64_t owner_addr;
  std::uint64_t bytes;
};

enum class kind : std::uint8_t { call, reply };

struct owned_message {
  kind what;
  upcxx::intrank_t source;
  std::vector<std::byte> bytes;  // a copy of the body (operator new aligns it to 16, see copy_of)
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
};

rpc_state& st() {
  static rpc_state s;
  return s;
}

thread_local bool t_direct = false;  // inside master user progress: calls may run in place
std::size_t g_max_inline = 0;        // the transport's medium-message limit, read at attach

// Vectors of std::byte are allocated with operator new, which aligns to 16: bodies keep
// the 16-byte alignment serialization relies on.
std::vector<std::byte> copy_of(const std::byte* p, std::size_t n) { return std::vector<std::byte>(p, p + n); }

void run_call(const std::byte* body, std::size_t bytes, upcxx::intrank_t source, owned_message* owned);

void run_reply(const std::byte* body, std::size_t bytes) {
  const auto* w = reinterpret_cast<const upcxx::detail::rpc_reply_wire*>(body);
  auto* r = reinterpret_cast<upcxx::detail::reply_base*>(w->reply_to);
  r->deliver(r, body + sizeof(*w), bytes - sizeof(*w));
}

// Runs a call now, or parks it on the first dist_object it names that does not exist here
// yet (spec §6.6: execution waits until every named instance is constructed).
void run_call(const std::byte* body, std::size_t bytes, upcxx::intrank_t source, owned_message* owned) {
  const auto* w = reinterpret_cast<const rpc_wire*>(body);
  const auto* ids = reinterpret_cast<const std::uint64_t*>(body + sizeof(rpc_wire));
  auto& s = st();
  for (std::uint32_t i = 0; i < w->dist_ids; ++i) {
    if (s.dist_objects.count(ids[i])) continue;
    owned_message m = owned ? std::move(*owned) : owned_message{kind::call, source, copy_of(body, bytes)};
    s.parked[ids[i]].push_back(std::move(m));
    return;
  }
  auto exec = reinterpret_cast<upcxx::detail::rpc_exec_fn>(const_cast<void*>(upcxx::detail::decode_function(w->exec)));
  exec(upcxx::detail::rpc_incoming{body, bytes, source});
}

void deliver(kind what, const std::byte* body, std::size_t bytes, upcxx::intrank_t source) {
  if (what == kind::reply) {
    // A reply only queues notifications on its initiating persona (which may belong to
    // another thread), so it is handled at once, at any progress level.
    run_reply(body, bytes);
    return;
  }
  if (!t_direct) {
    st().backlog.push_back(owned_message{what, source, copy_of(body, bytes)});
    return;
  }
  if (what == kind::call) run_call(body, bytes, source, nullptr);
  else run_reply(body, bytes);
}

void on_rpc(const tr::am_message& m) { deliver(kind::call, m.payload.data(), m.payload.size(), m.source); }
void on_reply(const tr::am_message& m) { deliver(kind::reply, m.payload.data(), m.payload.size(), m.source); }

// Large bodies are read where the sender left them; the sender frees them when told.
void on_large(const tr::am_message& m, kind what) {
  large_ref ref;
  std::memcpy(&ref, m.payload.data(), sizeof ref);
  auto* body = static_cast<const std::byte*>(the_transport().local_address(m.source, ref.owner_addr));
  if (!body) util::fatal("large RPC bodies from ranks on other machines are not supported by this transport yet");
  if (what == kind::reply) {
    run_reply(body, ref.bytes);
  } else if (t_direct) {
    run_call(body, ref.bytes, m.source, nullptr);
  } else {
    st().backlog.push_back(owned_message{what, m.source, copy_of(body, ref.bytes)});
  }
  // Every path above has finished with the sender's buffer (run, or copied).
  the_transport().am_send(m.source, am_large_done, {}, std::as_bytes(std::span(&ref, 1)), tr::op_none);
}
void on_rpc_large(const tr::am_message& m) { on_large(m, kind::call); }
void on_reply_large(const tr::am_message& m) { on_large(m, kind::reply); }

void on_large_done(const tr::am_message& m) {
  large_ref ref;
  std::memcpy(&ref, m.payload.data(), sizeof ref);
  upcxx::detail::heap_deallocate(reinterpret_cast<void*>(ref.owner_addr));
}

void send(upcxx::intrank_t target, const std::byte* body, std::size_t bytes, tr::am_handler_id inline_id,
          tr::am_handler_id large_id) {
  runtime_lock lock;
  auto& tp = the_transport();
  if (bytes <= g_max_inline) {
    tp.am_send(target, inline_id, {}, std::span(body, bytes), tr::op_none);
    return;
  }
  // Rendezvous: one copy into our own segment, which the target reads in place.
  void* buf = upcxx::detail::heap_allocate(bytes, 64);
  if (!buf) upcxx::detail::throw_bad_shared_alloc("upcxx::rpc (large argument buffer)", bytes);
  std::memcpy(buf, body, bytes);
  large_ref ref{reinterpret_cast<std::uint64_t>(buf), bytes};
  tp.am_send(target, large_id, {}, std::as_bytes(std::span(&ref, 1)), tr::op_none);
}

}  // namespace

}  // namespace gannet::runtime
namespace upcxx::detail {
void prepare_function_table();  // fn_table.cpp
}
namespace gannet::runtime {

void rpc_attach(transport::transport& tp) {
  upcxx::detail::prepare_function_table();
  if (!tp.caps().active_messages) util::fatal("the %s transport has no active messages", tp.name());
  g_max_inline = tp.caps().am_max_medium;
  tp.am_register(am_rpc, on_rpc);
  tp.am_register(am_reply, on_reply);
  tp.am_register(am_rpc_large, on_rpc_large);
  tp.am_register(am_reply_large, on_reply_large);
  tp.am_register(am_large_done, on_large_done);
}

rpc_direct_scope::rpc_direct_scope(bool allow) : previous_(t_direct) { t_direct = allow; }
rpc_direct_scope::~rpc_direct_scope() { t_direct = previous_; }

bool rpc_run_backlog() {
  auto& s = st();
  if (s.backlog.empty()) return false;
  // Take the current backlog: running calls may add more (they run next time).
  std::deque<owned_message> batch;
  batch.swap(s.backlog);
  for (auto& m : batch) {
    if (m.what == kind::call) run_call(m.bytes.data(), m.bytes.size(), m.source, &m);
    else run_reply(m.bytes.data(), m.bytes.size());
  }
  return true;
}

}  // namespace gannet::runtime

namespace upcxx::detail {

void rpc_send(intrank_t target, const std::byte* body, std::size_t bytes) {
  gannet::runtime::send(target, body, bytes, gannet::runtime::am_rpc, gannet::runtime::am_rpc_large);
}

void rpc_send_reply(intrank_t target, const std::byte* body, std::size_t bytes) {
  gannet::runtime::send(target, body, bytes, gannet::runtime::am_reply, gannet::runtime::am_reply_large);
}

std::uint64_t dist_next_id() { return gannet::runtime::st().next_dist_id++; }

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
