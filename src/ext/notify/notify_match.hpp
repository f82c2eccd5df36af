// Matching of notifications to requests (the "Notified Access" paper, §III): the part of
// notified access that does not depend on how notifications travel. One matcher per rank,
// used under the runtime lock.
//
// Semantics:
//  - A notification (source rank, tag) is matched, in arrival order, to the oldest started
//    request whose source and tag match it (each may be a wildcard).
//  - A notification that matches no started request waits in the unexpected queue; a
//    request that starts first takes the oldest matching ones from it, in arrival order.
//  - A request completes after `expected` matches; its status is that of the last match.
//    It can be started again once complete (persistent), and matches afresh.
//  - Nothing is lost and nothing is matched twice.
//
// Cost: arrival scans the started requests (few, in practice), start scans the unexpected
// queue. Both are lists in arrival order, as in MPI's matching; nothing grows with the
// number of ranks.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace gannet::runtime {

inline constexpr std::int32_t notify_any = -1;  // wildcard for source and tag

struct notify_match {
  std::int32_t source = 0;  // world rank
  std::int32_t tag = 0;
};

// What a request is waiting for; owned by its user (gannet::notify_request), registered with
// the matcher while started.
struct notify_waiter {
  std::int32_t source = notify_any;  // world rank, or notify_any
  std::int32_t tag = notify_any;     // tag, or notify_any
  std::uint64_t expected = 1;
  std::uint64_t matched = 0;
  notify_match last{};
  bool started = false;  // in the matcher's list, not yet complete
  // Called once when the request completes (from arrive() or start()).
  void (*on_complete)(notify_waiter*) = nullptr;
  // With source == notify_any: whether a source may match at all (a request on a team
  // takes notifications from its members only); null admits every source.
  bool (*admits)(const notify_waiter*, std::int32_t source) = nullptr;

  bool accepts(const notify_match& m) const {
    if (tag != notify_any && tag != m.tag) return false;
    if (source != notify_any) return source == m.source;
    return !admits || admits(this, m.source);
  }
};

class notify_matcher {
 public:
  // A notification has arrived. Returns true if a started request took it.
  bool arrive(notify_match m) {
    for (std::size_t i = 0; i < started_.size(); ++i) {
      notify_waiter* w = started_[i];
      if (!w->accepts(m)) continue;
      take(w, m);
      if (w->matched == w->expected) {
        if (i + 1 == started_.size()) {  // the newest, often the only one
          started_.pop_back();
        } else {
          started_.erase(started_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        finish(w);
      }
      return true;
    }
    unexpected_.push_back(m);
    return false;
  }

  // Starts w: it takes matching notifications already here, oldest first, and waits for the
  // rest. May complete at once. w must not be started already.
  void start(notify_waiter* w) {
    w->matched = 0;
    w->started = true;
    if (unexpected_.empty() && w->expected != 0) {  // the usual case: nothing here yet
      started_.push_back(w);
      return;
    }
    if (w->expected == 0) {
      w->started = false;
      finish(w);
      return;
    }
    for (auto it = unexpected_.begin(); it != unexpected_.end() && w->matched < w->expected;) {
      if (w->accepts(*it)) {
        take(w, *it);
        // The oldest is the usual one (a consumer behind its producers): pop it cheaply.
        if (it == unexpected_.begin()) {
          unexpected_.pop_front();
          it = unexpected_.begin();
        } else {
          it = unexpected_.erase(it);
        }
      } else {
        ++it;
      }
    }
    if (w->matched == w->expected) {
      w->started = false;
      finish(w);
      return;
    }
    started_.push_back(w);
  }

  // Withdraws a started request (its owner is being destroyed); the notifications it took
  // are consumed.
  void cancel(notify_waiter* w) {
    for (std::size_t i = 0; i < started_.size(); ++i)
      if (started_[i] == w) {
        started_.erase(started_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    w->started = false;
  }

  std::size_t unexpected() const { return unexpected_.size(); }
  std::size_t started() const { return started_.size(); }

 private:
  static void take(notify_waiter* w, const notify_match& m) {
    ++w->matched;
    w->last = m;
  }
  static void finish(notify_waiter* w) {
    w->started = false;
    if (w->on_complete) w->on_complete(w);
  }

  std::vector<notify_waiter*> started_;   // in start order
  std::deque<notify_match> unexpected_;  // in arrival order
};

}  // namespace gannet::runtime
