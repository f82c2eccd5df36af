// Unit tests for the matching of notifications to requests (src/ext/notify/notify_match.hpp,
// issue 12): wildcards, counting, arrival order, the unexpected queue, persistent restart,
// and a random stress in which every notification must be matched exactly once.
#include "ext/notify/notify_match.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using gannet::runtime::notify_any;
using gannet::runtime::notify_match;
using gannet::runtime::notify_matcher;
using gannet::runtime::notify_waiter;

struct counted : notify_waiter {
  int completions = 0;
};

void completed(notify_waiter* w) { ++static_cast<counted*>(w)->completions; }

counted make(std::int32_t source, std::int32_t tag, std::uint64_t expected = 1) {
  counted c;
  c.source = source;
  c.tag = tag;
  c.expected = expected;
  c.on_complete = completed;
  return c;
}

TEST(NotifyMatch, ExactSourceAndTag) {
  notify_matcher m;
  auto r = make(3, 7);
  m.start(&r);
  EXPECT_FALSE(m.arrive({3, 8}));  // wrong tag: unexpected
  EXPECT_FALSE(m.arrive({2, 7}));  // wrong source: unexpected
  EXPECT_EQ(r.completions, 0);
  EXPECT_TRUE(m.arrive({3, 7}));
  EXPECT_EQ(r.completions, 1);
  EXPECT_FALSE(r.started);
  EXPECT_EQ(m.unexpected(), 2u);
  EXPECT_EQ(m.started(), 0u);
}

TEST(NotifyMatch, WildcardsReportTheMatch) {
  notify_matcher m;
  auto any = make(notify_any, notify_any);
  m.start(&any);
  m.arrive({5, 42});
  EXPECT_EQ(any.completions, 1);
  EXPECT_EQ(any.last.source, 5);
  EXPECT_EQ(any.last.tag, 42);
  auto any_tag = make(1, notify_any);
  m.start(&any_tag);
  m.arrive({2, 1});
  EXPECT_EQ(any_tag.completions, 0);
  m.arrive({1, 9});
  EXPECT_EQ(any_tag.completions, 1);
  EXPECT_EQ(any_tag.last.tag, 9);
  auto any_source = make(notify_any, 4);
  m.start(&any_source);
  m.arrive({6, 3});
  m.arrive({7, 4});
  EXPECT_EQ(any_source.completions, 1);
  EXPECT_EQ(any_source.last.source, 7);
}

TEST(NotifyMatch, CountingConsumesThatMany) {
  notify_matcher m;
  auto r = make(notify_any, 1, 3);
  m.start(&r);
  m.arrive({0, 1});
  m.arrive({1, 1});
  EXPECT_EQ(r.completions, 0);
  EXPECT_EQ(r.matched, 2u);
  m.arrive({2, 1});
  EXPECT_EQ(r.completions, 1);
  EXPECT_EQ(r.last.source, 2);  // the status is the last match's
  EXPECT_FALSE(m.arrive({3, 1}));  // complete: the next one is unexpected
  EXPECT_EQ(m.unexpected(), 1u);
}

TEST(NotifyMatch, OldestStartedRequestWins) {
  notify_matcher m;
  auto first = make(notify_any, notify_any), second = make(notify_any, 5);
  m.start(&first);
  m.start(&second);
  m.arrive({0, 5});  // both match: the older one takes it
  EXPECT_EQ(first.completions, 1);
  EXPECT_EQ(second.completions, 0);
  m.arrive({0, 5});
  EXPECT_EQ(second.completions, 1);
}

TEST(NotifyMatch, UnexpectedQueueIsMatchedInArrivalOrderWhenARequestStarts) {
  notify_matcher m;
  m.arrive({1, 10});
  m.arrive({2, 20});
  m.arrive({3, 10});
  m.arrive({4, 10});
  auto r = make(notify_any, 10, 2);
  m.start(&r);  // takes (1,10) and (3,10), the oldest two with tag 10
  EXPECT_EQ(r.completions, 1);
  EXPECT_EQ(r.last.source, 3);
  EXPECT_EQ(m.unexpected(), 2u);
  auto rest = make(notify_any, notify_any, 2);
  m.start(&rest);  // (2,20) then (4,10)
  EXPECT_EQ(rest.completions, 1);
  EXPECT_EQ(rest.last.source, 4);
  EXPECT_EQ(m.unexpected(), 0u);
}

TEST(NotifyMatch, PartlyFromTheQueueThenFromArrivals) {
  notify_matcher m;
  m.arrive({0, 1});
  auto r = make(0, 1, 3);
  m.start(&r);
  EXPECT_EQ(r.matched, 1u);
  EXPECT_TRUE(r.started);
  m.arrive({0, 1});
  m.arrive({0, 1});
  EXPECT_EQ(r.completions, 1);
}

TEST(NotifyMatch, PersistentRequestsStartAgain) {
  notify_matcher m;
  auto r = make(notify_any, 2);
  for (int round = 0; round < 5; ++round) {
    m.start(&r);
    m.arrive({round, 2});
    EXPECT_EQ(r.completions, round + 1);
    EXPECT_EQ(r.last.source, round);
  }
  // Restarted from its completion callback (an async() chain): still matched once each.
  struct chain : notify_waiter {
    notify_matcher* m = nullptr;
    int runs = 0;
  } c;
  c.source = notify_any;
  c.tag = 3;
  c.m = &m;
  c.on_complete = [](notify_waiter* w) {
    auto* self = static_cast<chain*>(w);
    if (++self->runs < 3) self->m->start(self);
  };
  m.arrive({0, 3});
  m.arrive({1, 3});
  m.start(&c);  // takes one from the queue, restarts, takes the other, restarts and waits
  EXPECT_EQ(c.runs, 2);
  EXPECT_TRUE(c.started);
  m.arrive({2, 3});
  EXPECT_EQ(c.runs, 3);
  EXPECT_FALSE(c.started);
  EXPECT_EQ(m.unexpected(), 0u);
}

TEST(NotifyMatch, ZeroExpectedCompletesAtOnce) {
  notify_matcher m;
  m.arrive({0, 0});
  auto r = make(notify_any, notify_any, 0);
  m.start(&r);
  EXPECT_EQ(r.completions, 1);
  EXPECT_EQ(m.unexpected(), 1u);  // took nothing
}

TEST(NotifyMatch, CancelledRequestsTakeNothingMore) {
  notify_matcher m;
  auto r = make(notify_any, notify_any);
  m.start(&r);
  m.cancel(&r);
  EXPECT_FALSE(m.arrive({0, 0}));
  EXPECT_EQ(r.completions, 0);
}

// Random sources, tags, counts and interleavings of starts and arrivals: every notification
// is matched exactly once, by a request or left in the unexpected queue at the end.
TEST(NotifyMatch, StressEveryNotificationMatchedExactlyOnce) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    notify_matcher m;
    constexpr int sources = 4, tags = 3;
    std::vector<notify_waiter> reqs(6);
    for (auto& r : reqs) {
      r.source = std::uniform_int_distribution<int>(-1, sources - 1)(rng);  // -1: any
      r.tag = std::uniform_int_distribution<int>(-1, tags - 1)(rng);
      r.expected = static_cast<std::uint64_t>(std::uniform_int_distribution<int>(1, 3)(rng));
    }
    std::uint64_t arrived = 0, matched_in_finished_runs = 0;
    for (int step = 0; step < 300; ++step) {
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
        auto& r = reqs[std::uniform_int_distribution<std::size_t>(0, reqs.size() - 1)(rng)];
        if (!r.started) {
          matched_in_finished_runs += r.matched;  // start() begins a new count
          m.start(&r);
        }
      } else {
        m.arrive({std::uniform_int_distribution<int>(0, sources - 1)(rng),
                  std::uniform_int_distribution<int>(0, tags - 1)(rng)});
        ++arrived;
      }
    }
    std::uint64_t matched = matched_in_finished_runs;
    for (auto& r : reqs) {
      EXPECT_LE(r.matched, r.expected);
      matched += r.matched;
    }
    EXPECT_EQ(matched + m.unexpected(), arrived) << "trial " << trial;
  }
}

}  // namespace
