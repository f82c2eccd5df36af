// Notified access, target side (include/gannet/notify.hpp): requests over the rank's
// matcher (notify_match.hpp). Notifications arrive as RPCs (notify_arrived), so they are
// handled in the master persona's user-level progress; the matcher is used under the
// runtime lock, and what completes is finished (promises fulfilled) after it is released.
#include "gannet/notify.hpp"

#include <optional>
#include <string>
#include <vector>

#include "runtime/notify_match.hpp"
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

}  // namespace

namespace detail {

void check_notify_tag(int tag, const char* what) {
  if (tag < 0) util::fatal("%s: tag %d is negative (tags are non-negative ints)", what, tag);
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
  if (!s_->complete) upcxx::progress();
  if (!s_->complete) return false;
  if (status) *status = s_->status();
  return true;
}

notify_status notify_request::wait() {
  if (!s_->started && !s_->complete)
    util::fatal("gannet::notify_request::wait: the request was not started (call start() first)");
  notify_status st;
  while (!test(&st)) {
  }
  return st;
}

upcxx::future<notify_status> notify_request::async() {
  if (s_->complete) return upcxx::make_future(s_->status());
  if (!s_->started) util::fatal("gannet::notify_request::async: the request was not started (call start() first)");
  if (!s_->promise) s_->promise.emplace();
  return s_->promise->get_future();
}

}  // namespace gannet
