// Notified access (include/gannet/notify.hpp; from "Notified Access: Extending Remote Memory
// Access Programming Models for Producer-Consumer Synchronization"): requests over the rank's
// matcher (notify_match.hpp), and the two ways notifications arrive:
//  - from ranks of this machine, through this rank's slot ring or the lanes producers opened
//    to it (notify_ring.hpp), taken in every progress call (notify_poll), inline data copied
//    into place first;
//  - from other machines, as RPCs riding the put's remote completion (notify_arrived).
//
// The notify room (src/ext/notify): this file is its centre; notify_match.hpp (matching,
// unit-tested alone) and notify_ring.hpp (the shared-memory slots) are its two internal
// headers. Owns the matcher, the slot ring and lanes in the notify area of every segment's
// runtime reserve (at runtime.hpp's notify_ring_offset), the per-peer producer state, and
// the notified put/get/notify entry points. May include: the core (core/runtime.hpp, and
// hooks.hpp through it), the transport contract, util/ and public headers; never another
// extension, and the rooms below never include it: it registers attach, poll and finish
// hooks (below) from a static initializer, so a program that does not use it (static
// library) does not poll for it.
// Threading: the matcher and the peer table are used under the runtime lock; a request's
// promise is fulfilled outside it (user code). Progress: poll (every progress pass, lock
// held) takes published slots and matches; finish (user-level progress of the master
// persona, lock not held) fulfils the futures of completed requests; notify_request::wait()
// looks at the ring and lanes between full progress passes and yields the core as
// future::wait() does.
//
// What it costs, and where RPC still wins. A notification is one cache line moved from
// producer to consumer: a stream costs one line transfer each (35-45 ns on the development
// machine, more across sockets), with the consumer's polls and the producer's stores both in
// the way. An rpc_ff stream is batched (hundreds of calls per message, 16 ns per call), so
// in a pipeline whose producer never waits and does little work per signal (the stencil
// example at 16 columns) RPC's throughput is higher; where work per signal dominates the two
// are equal. Notified access wins where a signal's latency is on the critical path:
// ping-pong, and DAGs like examples/notify_cholesky.cpp, where an RPC waits for its sender's
// next progress call while a notification is visible as soon as it is published (1.4-2x).
#include "gannet/notify.hpp"

#include <cstddef>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ext/notify/notify_match.hpp"
#include "ext/notify/notify_ring.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "util/observe.hpp"
#include "util/log.hpp"

namespace gannet {

struct notify_request::state : runtime::notify_waiter {
  const upcxx::team* team = nullptr;
  bool complete = false;  // since the last start()
  std::optional<upcxx::promise<notify_status>> promise;

  notify_status status() const {
    return {team->from_world(last.source, last.source), last.tag};
  }
};

namespace {

runtime::notify_matcher g_matcher;
// Requests completed under the lock, finished after it (their promises run user code).
std::vector<notify_request::state*> g_completed;

void on_complete(runtime::notify_waiter* w) {
  auto* s = static_cast<notify_request::state*>(w);
  s->complete = true;
  if (s->promise) g_completed.push_back(s);
}

// Runs `matching` under the runtime lock, then fulfils the promises of the requests that
// completed (in it or before): user code, so outside the lock. Returns whether it fulfilled any.
template <typename Matching>
bool match_then_fulfill(Matching&& matching) {
  std::vector<notify_request::state*> done;
  {
    runtime::runtime_lock lock;
    matching();
    if (!g_completed.empty()) done.swap(g_completed);
  }
  for (auto* s : done) {
    auto p = std::move(*s->promise);
    s->promise.reset();
    p.fulfill_result(s->status());
  }
  return !done.empty();
}

// ---- receiving: this rank's ring and the lanes producers opened to it ----
runtime::notify_area* g_area = nullptr;  // this rank's
// A queue of slots this rank consumes: the next position to take, and the head producers
// see (the queue's head), which moves at the next full progress pass or every quarter queue.
template <typename Slots>
struct inbound {
  Slots* q = nullptr;
  std::uint64_t head = 0;
  std::uint64_t handed_back = 0;
  std::uint64_t* heard = nullptr;  // a lane's: counts what its producer sent us (peer_notify)

  void hand_back() {
    if (handed_back == head) return;
    handed_back = head;
    q->taken_up_to(head);
  }
};
inbound<runtime::notify_ring> g_ring;
std::vector<inbound<runtime::notify_lane>> g_lanes;  // at most notify_ring::max_lanes

// ---- sending: the ranks this rank notifies ----
struct peer_notify {
  upcxx::intrank_t rank = -1;
  runtime::notify_ring* ring = nullptr;
  std::uint64_t ring_known_head = 0;
  runtime::notify_lane* lane = nullptr;  // ours to it, once granted
  std::uint64_t lane_tail = 0;           // next position of the lane
  std::uint64_t lane_known_head = 0;
  std::uint32_t sent = 0;                // through the ring so far
  // Notifications it sent us through its lane, and their count when we last notified it:
  // if none came in between, we are streaming to it rather than answering it.
  std::uint64_t heard = 0;
  std::uint64_t heard_at_send = ~std::uint64_t{0};
  bool no_lane = false;                  // none to be had: the target's or ours are taken
};
// A lane is asked for at this many notifications to one target: a few notifications go
// through the ring, a stream gets a lane.
constexpr std::uint32_t lane_after = 16;
// Peers this rank has notified (nothing for the others), found through a small
// direct-mapped cache; the map's nodes do not move.
std::unordered_map<upcxx::intrank_t, peer_notify> g_peers;
peer_notify* g_peer_cache[64];
std::size_t g_lanes_out = 0;  // lanes of our area in use

[[gnu::noinline]] peer_notify& peer_missed(peer_notify*& c, upcxx::intrank_t rank) {
  peer_notify& p = g_peers[rank];
  if (p.rank != rank) {
    p.rank = rank;
    p.ring = &reinterpret_cast<runtime::notify_area*>(runtime::notify_ring_area(rank))->ring;
  }
  c = &p;
  return p;
}

inline peer_notify& peer_of(upcxx::intrank_t rank) {
  peer_notify*& c = g_peer_cache[static_cast<unsigned>(rank) % std::size(g_peer_cache)];
  return c && c->rank == rank ? *c : peer_missed(c, rank);
}

// On-machine notified puts whose data travels in a slot: their operation completes once the
// target has taken the slot (and so copied the data into place).
struct inline_put {
  const std::atomic<std::uint64_t>* head;  // of the ring or lane
  std::uint64_t pos;
  upcxx::detail::rma_op* op;
};
std::vector<inline_put> g_inline;

// Fills a slot but for its turn. In as few stores as we can: a consumer waiting for this
// slot reads its line again and again, and each read between two of our stores takes the
// line away, so that the next store has to fetch it back.
void write_slot(runtime::notify_slot& s, std::int32_t source, std::int32_t tag, std::uint64_t dest, const void* src,
                std::size_t bytes) {
  runtime::notify_slot local;  // turn unused
  local.source = source;
  local.tag = tag;
  local.dest = dest;
  local.bytes = static_cast<std::uint32_t>(bytes);
  local.unused = 0;
  constexpr std::size_t header = offsetof(runtime::notify_slot, data) - offsetof(runtime::notify_slot, source);
  auto* to = reinterpret_cast<std::byte*>(&s) + offsetof(runtime::notify_slot, source);
  const auto* from = reinterpret_cast<const std::byte*>(&local) + offsetof(runtime::notify_slot, source);
  if (bytes <= 8) {
    if (bytes == 8) {  // the common scalar: no call
      std::memcpy(local.data, src, 8);
    } else if (bytes) {
      std::memcpy(local.data, src, bytes);
    }
    std::memcpy(to, from, header + 8);  // two 16-byte stores (one with AVX)
  } else {
    std::memcpy(local.data, src, bytes);
    std::memcpy(to, from, header + runtime::notify_slot::inline_bytes);
  }
}

// Claims a slot of p's ring, serving our own slots while it is full (internal progress), so
// that two ranks that fill each other's rings both move on.
runtime::notify_slot* claim_ring(peer_notify& p, std::uint64_t* pos) {
  struct attempt {
    peer_notify* p;
    std::uint64_t* pos;
    runtime::notify_slot* slot = nullptr;
  } a{&p, pos};
  auto claim = [](void* v) {
    auto* at = static_cast<attempt*>(v);
    return (at->slot = at->p->ring->claim(at->p->ring_known_head, at->pos)) != nullptr;
  };
  if (!claim(&a)) runtime::wait_until_aborting_or(claim, &a, upcxx::progress_level::internal);
  return a.slot;
}

// Takes the next slot of p's lane, serving our own slots while it is full. Never the ring
// instead: later notifications would overtake the lane's.
runtime::notify_slot* claim_lane(peer_notify& p, std::uint64_t* pos) {
  if (!p.lane->free(p.lane_tail, p.lane_known_head)) {
    auto room = [](void* v) {
      auto* q = static_cast<peer_notify*>(v);
      return q->lane->free(q->lane_tail, q->lane_known_head);
    };
    runtime::wait_until_aborting_or(room, &p, upcxx::progress_level::internal);
  }
  *pos = p.lane_tail++;
  return &p.lane->slot[*pos % runtime::notify_lane::slots];
}

// The target grants lanes while it has fewer than max_lanes; ours are in our area.
void open_lane(peer_notify& p) {
  if (g_lanes_out == runtime::notify_area::out_lanes ||
      p.ring->lanes.fetch_add(1, std::memory_order_relaxed) >= runtime::notify_ring::max_lanes) {
    p.no_lane = true;
    return;
  }
  const std::size_t index = g_lanes_out++;
  runtime::notify_lane* lane = &g_area->lane[index];
  lane->reset();
  // The announcement follows our earlier notifications through the ring, and the target
  // reads the lane only once it has taken it, so our notifications keep their order.
  std::uint64_t pos;
  runtime::notify_slot* s = claim_ring(p, &pos);
  write_slot(*s, upcxx::rank_me(), runtime::notify_ring::lane_tag, index, nullptr, 0);
  runtime::notify_ring::publish(*s, pos);  // release: the lane's reset comes before
  p.lane = lane;
  p.lane_tail = 0;
  p.lane_known_head = 0;
}

// Takes what is published in q (runtime lock held); on a ring, also lane announcements.
template <typename Slots>
bool take(inbound<Slots>& in) {
  const std::uint64_t first = in.head;
  while (runtime::notify_slot* s = in.q->ready(in.head)) {
    if constexpr (std::is_same_v<Slots, runtime::notify_ring>) {
      if (s->tag == runtime::notify_ring::lane_tag) {
        auto* area = reinterpret_cast<runtime::notify_area*>(runtime::notify_ring_area(s->source));
        g_lanes.push_back({&area->lane[s->dest], 0, 0, &peer_of(s->source).heard});
        ++in.head;
        continue;
      }
    }
    // Put data first: the notification tells the target its data is in place.
    if (s->bytes == 8) {  // the common scalar: no call
      std::memcpy(reinterpret_cast<void*>(s->dest), s->data, 8);
    } else if (s->bytes) {
      std::memcpy(reinterpret_cast<void*>(s->dest), s->data, s->bytes);
    }
    const runtime::notify_match ev{s->source, s->tag};
    if (observe::on()) [[unlikely]] observe::span(observe::kind::notify_run, s->source, s->bytes, observe::now());
    ++in.head;
    if constexpr (!std::is_same_v<Slots, runtime::notify_ring>) ++*in.heard;
    g_matcher.arrive(ev);
    // While the queue is busy, hand slots back a quarter at a time.
    if (in.head - in.handed_back >= Slots::slots / 4) in.hand_back();
  }
  return in.head != first;
}

}  // namespace

namespace runtime {

void notify_attach() {
  g_area = reinterpret_cast<notify_area*>(notify_ring_area(upcxx::rank_me()));
  // Nobody writes to it before the barrier that ends init (re-init: after finalize's).
  g_area->ring.reset();
  g_ring = {&g_area->ring};
  g_lanes.clear();
  g_peers.clear();
  for (auto& c : g_peer_cache) c = nullptr;
  g_lanes_out = 0;
  g_inline.clear();
}

// Takes what is published in this rank's ring and lanes (runtime lock held).
bool notify_drain() {
  bool did = take(g_ring);
  for (std::size_t i = 0; i < g_lanes.size(); ++i) did |= take(g_lanes[i]);
  return did;
}

bool notify_quick() {
  runtime_lock lock;  // threadmode seq: one predictable branch
  return notify_drain();
}

// Tells producers which slots they may reuse and which inline puts have landed. Not at once
// when a notification is taken but at the next full progress pass: a store to a head line,
// which the producers read, would otherwise hold up this rank's next atomic instruction
// (its reply's claim, say) until the line had been fetched back from them.
bool notify_poll() {
  bool did = notify_drain();
  g_ring.hand_back();
  for (auto& l : g_lanes) l.hand_back();
  if (!g_inline.empty()) {
    std::size_t keep = 0;
    for (std::size_t i = 0; i < g_inline.size(); ++i) {
      auto& p = g_inline[i];
      if (p.head->load(std::memory_order_acquire) > p.pos) {
        p.op->on_events(p.op, upcxx::detail::ev_operation);
        did = true;
      } else {
        g_inline[keep++] = p;
      }
    }
    g_inline.resize(keep);
  }
  return did;
}

bool notify_finish() {
  return match_then_fulfill([] {});
}

// The area the core leaves at notify_ring_offset of every segment's runtime reserve.
static_assert(notify_ring_offset + sizeof(notify_area) <= transport::runtime_reserve_bytes,
              "the notification area overflows the segment's runtime reserve");

namespace {
// Linked in only with a program that uses notified access: its ring is set up at init, and
// every progress pass takes what has arrived (src/core/hooks.hpp).
const bool registered = [] {
  extension_hooks h;
  h.name = "gannet::notify";
  h.attach = notify_attach;
  h.poll = notify_poll;
  h.finish = notify_finish;
  register_extension(h);
  return true;
}();
}  // namespace

}  // namespace runtime

namespace detail {

notify_posted notify_local(upcxx::intrank_t rank, int tag, const void* dest, const void* src, std::size_t bytes) {
  const std::uint64_t t0 = observe::on() ? observe::now() : 0;
  runtime::runtime_lock lock;  // for the peer table (threadmode par)
  peer_notify& p = peer_of(rank);
  if (!p.lane && !p.no_lane && ++p.sent == lane_after) open_lane(p);
  // A lane is ours alone: claiming its slot is an increment, not a locked instruction.
  std::uint64_t pos;
  runtime::notify_slot* s = p.lane ? claim_lane(p, &pos) : claim_ring(p, &pos);
  const std::atomic<std::uint64_t>* head = p.lane ? &p.lane->head : &p.ring->head;
  write_slot(*s, upcxx::rank_me(), tag, reinterpret_cast<std::uint64_t>(dest), src, bytes);
  runtime::notify_ring::publish(*s, pos);
  // Streaming to this target (nothing came back from it since our last notification): ask
  // for the next slot's line now, so that the next notification's stores find it here
  // instead of waiting for it. Not when answering it (a ping-pong): the target is about
  // to look at that slot, and taking the line from it only delays us both.
  const bool streaming = p.heard == p.heard_at_send;
  p.heard_at_send = p.heard;
  if (p.lane && streaming) p.lane->prefetch_for_write(pos + 1);
  if (t0) [[unlikely]] observe::span(observe::kind::notify_put, rank, bytes, t0);
  return {head, pos};
}

void notify_track(notify_posted posted, upcxx::detail::rma_op* op) {
  runtime::runtime_lock lock;
  op->on_events(op, upcxx::detail::ev_source);  // src was copied into the slot
  g_inline.push_back({posted.head, posted.pos, op});
}

void fail_notify_rank(upcxx::intrank_t rank, const char* what) {
  util::fatal("%s: rank %d is not a rank of the job [0, %d)", what, rank, upcxx::rank_n());
}

void fail_notify_tag(int tag, const char* what) {
  util::fatal("%s: tag %d is negative (tags are non-negative ints)", what, tag);
}

void notify_put_arrived(upcxx::global_ptr<char> dest, upcxx::view<char> data, upcxx::intrank_t source, int tag) {
  std::memcpy(dest.local(), data.begin(), data.size());
  notify_arrived(source, tag);
}

void notify_arrived(upcxx::intrank_t source, int tag) {
  if (observe::on()) [[unlikely]] observe::span(observe::kind::notify_run, source, 0, observe::now());
  match_then_fulfill([&] { g_matcher.arrive({source, tag}); });
}

}  // namespace detail

notify_request::notify_request(upcxx::intrank_t source, int tag, std::uint64_t expected_count,
                               const upcxx::team& team)
    : s_(std::make_unique<state>()) {
  if (tag < 0 && tag != any_tag)
    util::fatal("gannet::notify_request: tag %d is negative (use gannet::any_tag for any)", tag);
  if (source != any_source && (source < 0 || source >= team.rank_n()))
    util::fatal("gannet::notify_request: source %d is not a rank of the team [0, %d) (use gannet::any_source for any)",
                source, team.rank_n());
  s_->team = &team;
  s_->source = source == any_source ? runtime::notify_any : team[source];
  s_->tag = tag == any_tag ? runtime::notify_any : tag;
  s_->expected = expected_count;
  s_->on_complete = on_complete;
  if (source == any_source && team.rank_n() != upcxx::rank_n()) {
    // Any member of a team smaller than world.
    s_->admits = [](const runtime::notify_waiter* w, std::int32_t src) {
      return static_cast<const state*>(w)->team->from_world(src, -1) >= 0;
    };
  }
}

notify_request::~notify_request() {
  if (s_ && s_->started) {
    runtime::runtime_lock lock;
    g_matcher.cancel(s_.get());
  }
}

void notify_request::start() {
  if (s_->started) util::fatal("gannet::notify_request::start: the request is already started and not complete");
  s_->complete = false;
  match_then_fulfill([&] { g_matcher.start(s_.get()); });
}

bool notify_request::test(notify_status* status) {
  // The ring first: when the notification is there, one load finds it.
  if (!s_->complete && !(runtime::notify_quick() && s_->complete)) {
    upcxx::progress();
    if (!s_->complete) return false;
  }
  if (status) *status = s_->status();
  return true;
}

notify_status notify_request::wait() {
  if (!s_->started && !s_->complete)
    util::fatal("gannet::notify_request::wait: the request was not started (call start() first)");
  // Full progress every few passes, the ring and lanes (a load each) in between: a
  // notification from this machine is seen within a few nanoseconds of landing, not a
  // progress call later. When only a rank of this machine can complete the request, its
  // notification comes through the slots alone, and progress is there for the rank's other
  // duties: every 64 passes (about a microsecond; every 4 cost a ping-pong 5-8 ns).
  // Idle progress passes give the core away as in future::wait(): a rank that spins here
  // while the rank it waits for is queued on the same core would hold it for a time slice.
  const bool slots_only = s_->source != runtime::notify_any && upcxx::detail::g_state.peers[s_->source].local;
  const unsigned every = slots_only && runtime::spin_limit() > 1 ? 64 : 4;
  runtime::idle_passes idle;
  runtime::blocked_scope waiting("gannet::notify_request::wait()");
  for (unsigned pass = 1; !s_->complete; ++pass) {
    if (runtime::notify_quick()) {
      idle.after(true);
      runtime::hang_tick(true);
    } else if (pass % every == 0) {
      const bool did = runtime::progress_pass(upcxx::progress_level::user);
      idle.after(did);
      runtime::hang_tick(did);
    }
  }
  return s_->status();
}

upcxx::future<notify_status> notify_request::async() {
  if (s_->complete) return upcxx::make_future(s_->status());
  if (!s_->started) util::fatal("gannet::notify_request::async: the request was not started (call start() first)");
  if (!s_->promise) s_->promise.emplace();
  return s_->promise->get_future();
}

}  // namespace gannet
