// Notified access (include/gannet/notify.hpp): requests over the rank's matcher
// (notify_match.hpp), and the two ways notifications arrive:
//  - from ranks of this machine, through this rank's slot ring (notify_ring.hpp), taken in
//    every progress call (notify_poll), inline data copied into place first;
//  - from other machines, as RPCs riding the put's remote completion (notify_arrived).
// The matcher is used under the runtime lock; the futures of requests that complete are
// fulfilled after it is released, in user-level progress of the master persona.
#include "gannet/notify.hpp"

#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "runtime/notify_match.hpp"
#include "runtime/notify_ring.hpp"
#include "runtime/runtime.hpp"
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

// Fulfils the promises of requests that completed; `done` was taken from g_completed under
// the lock, in the same critical section as the matching that completed them.
void fulfill(std::vector<notify_request::state*>& done) {
  for (auto* s : done) {
    auto p = std::move(*s->promise);
    s->promise.reset();
    p.fulfill_result(s->status());
  }
}

// ---- the slot ring ----
runtime::notify_ring* g_ring = nullptr;  // this rank's
std::uint64_t g_head = 0;                // next position of g_ring to take (we are its consumer)
std::uint64_t g_handed_back = 0;         // the head producers see (g_ring->head)

// The rings this rank sends to, in a small direct-mapped table: where the ring is, and what
// we last saw of its head (notify_ring::claim). A miss costs a lookup of the ring and one read
// of its head line; nothing is kept per rank of the job.
struct peer_ring {
  upcxx::intrank_t rank = -1;
  runtime::notify_ring* ring = nullptr;
  std::uint64_t known_head = 0;
};
peer_ring g_peer_rings[64];

peer_ring& peer_ring_of(upcxx::intrank_t rank) {
  peer_ring& p = g_peer_rings[static_cast<unsigned>(rank) % std::size(g_peer_rings)];
  if (p.rank != rank) p = {rank, reinterpret_cast<runtime::notify_ring*>(runtime::notify_ring_area(rank)), 0};
  return p;
}

// On-machine notified puts whose data travels in a slot: their operation completes once the
// target has taken the slot (and so copied the data into place).
struct inline_put {
  const runtime::notify_ring* ring;
  std::uint64_t pos;
  upcxx::detail::rma_op* op;
};
std::vector<inline_put> g_inline;

}  // namespace

namespace runtime {

void notify_attach() {
  g_ring = reinterpret_cast<notify_ring*>(notify_ring_area(upcxx::rank_me()));
  // Nobody writes to it before the barrier that ends init (re-init: after finalize's).
  g_ring->tail.store(0, std::memory_order_relaxed);
  g_ring->head.store(0, std::memory_order_relaxed);
  for (auto& s : g_ring->slot) s.turn.store(0, std::memory_order_relaxed);
  g_head = 0;
  g_handed_back = 0;
  for (auto& p : g_peer_rings) p = {};
  g_inline.clear();
}

// Tells producers which slots they may reuse and which inline puts have landed. Not at once
// when a notification is taken but at the next full progress pass: a store to the head line,
// which the producers read, would otherwise hold up this rank's next atomic instruction
// (its reply's claim, say) until the line had been fetched back from them.
void hand_back() {
  if (g_handed_back == g_head) return;
  g_handed_back = g_head;
  g_ring->taken_up_to(g_head);
}

// Takes what is published in this rank's ring (runtime lock held).
bool notify_drain() {
  const std::uint64_t first = g_head;
  while (notify_slot* s = g_ring->ready(g_head)) {
    // Put data first: the notification tells the target its data is in place.
    if (s->bytes) std::memcpy(reinterpret_cast<void*>(s->dest), s->data, s->bytes);
    const notify_match ev{s->source, s->tag};
    ++g_head;
    g_matcher.arrive(ev);
    // While the ring is busy, hand slots back a quarter ring at a time.
    if (g_head - g_handed_back >= notify_ring::slots / 4) hand_back();
  }
  return g_head != first;
}

bool notify_quick() {
  runtime_lock lock;  // threadmode seq: one predictable branch
  return notify_drain();
}

bool notify_poll() {
  bool did = notify_drain();
  hand_back();
  if (!g_inline.empty()) {
    std::size_t keep = 0;
    for (std::size_t i = 0; i < g_inline.size(); ++i) {
      auto& p = g_inline[i];
      if (p.ring->taken(p.pos)) {
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
  std::vector<notify_request::state*> done;
  {
    runtime_lock lock;
    if (g_completed.empty()) return false;
    done.swap(g_completed);
  }
  fulfill(done);
  return !done.empty();
}

}  // namespace runtime

namespace detail {

notify_posted notify_local(upcxx::intrank_t rank, int tag, const void* dest, const void* src, std::size_t bytes) {
  runtime::runtime_lock lock;  // for g_peer_rings (threadmode par)
  struct attempt {
    peer_ring* peer;
    runtime::notify_slot* slot = nullptr;
    std::uint64_t pos = 0;
  } a{&peer_ring_of(rank)};
  auto claim = [](void* p) {
    auto* at = static_cast<attempt*>(p);
    return (at->slot = at->peer->ring->claim(at->peer->known_head, &at->pos)) != nullptr;
  };
  // Full: the target has not kept up. Serve our own ring meanwhile (internal progress), so
  // that two ranks that fill each other's rings both move on.
  if (!claim(&a)) runtime::wait_until_aborting_or(claim, &a, upcxx::progress_level::internal);
  runtime::notify_slot* s = a.slot;
  s->source = upcxx::rank_me();
  s->tag = tag;
  s->dest = reinterpret_cast<std::uint64_t>(dest);
  s->bytes = static_cast<std::uint32_t>(bytes);
  if (bytes) std::memcpy(s->data, src, bytes);
  runtime::notify_ring::publish(*s, a.pos);
  return {a.peer->ring, a.pos};
}

void notify_track(notify_posted posted, upcxx::detail::rma_op* op) {
  runtime::runtime_lock lock;
  op->on_events(op, upcxx::detail::ev_source);  // src was copied into the slot
  g_inline.push_back({static_cast<const runtime::notify_ring*>(posted.ring), posted.pos, op});
}

void fail_notify_rank(upcxx::intrank_t rank, const char* what) {
  util::fatal("%s: rank %d is not a rank of the job [0, %d)", what, rank, upcxx::rank_n());
}

void check_notify_tag(int tag, const char* what) {
  if (tag < 0) util::fatal("%s: tag %d is negative (tags are non-negative ints)", what, tag);
}

void notify_put_arrived(upcxx::global_ptr<char> dest, upcxx::view<char> data, upcxx::intrank_t source, int tag) {
  std::memcpy(dest.local(), data.begin(), data.size());
  notify_arrived(source, tag);
}

void notify_arrived(upcxx::intrank_t source, int tag) {
  std::vector<notify_request::state*> done;
  {
    runtime::runtime_lock lock;
    g_matcher.arrive({source, tag});
    if (!g_completed.empty()) done.swap(g_completed);
  }
  if (!done.empty()) fulfill(done);
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
  std::vector<notify_request::state*> done;
  {
    runtime::runtime_lock lock;
    g_matcher.start(s_.get());
    if (!g_completed.empty()) done.swap(g_completed);
  }
  if (!done.empty()) fulfill(done);
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
  // Full progress every few passes, the ring (a load) in between: a notification from this
  // machine is seen within a few nanoseconds of landing, not a progress call later.
  for (unsigned pass = 0; !s_->complete; ++pass) {
    if (runtime::notify_quick()) continue;
    if (pass % 4 == 3) upcxx::progress();
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
