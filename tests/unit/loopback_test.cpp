// The transport contract on the loopback transport, synchronous and asynchronous: which
// completions are reported at injection, which arrive through the sink during poll(), and
// active-message delivery only inside poll().
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "transport/transport.hpp"

namespace gt = gannet::transport;

namespace {

struct recording_sink final : gt::completion_sink {
  unsigned bits = 0;
  int calls = 0;
  void complete(gt::cx_bits which) override {
    EXPECT_EQ(bits & which, 0u) << "a completion was delivered twice";
    bits |= which;
    ++calls;
  }
};

TEST(Loopback, SynchronousRmaReportsEverythingDone) {
  auto tp = gt::make_loopback({1 << 16, false});
  auto seg = tp->segment(0);
  ASSERT_NE(tp->local_address(0, seg.base), nullptr);
  long v = 42, back = 0;
  recording_sink s;
  auto r = tp->put(0, seg.base + 64, &v, sizeof v, &s, gt::op_none);
  EXPECT_EQ(r.st, gt::status::ok);
  EXPECT_EQ(r.done, gt::cx_all);
  r = tp->get(0, seg.base + 64, &back, sizeof back, &s, gt::op_none);
  EXPECT_EQ(r.done, gt::cx_all);
  EXPECT_EQ(back, 42);
  tp->poll();
  EXPECT_EQ(s.calls, 0) << "nothing left to deliver";
}

TEST(Loopback, AsynchronousRmaCompletesInPoll) {
  auto tp = gt::make_loopback({1 << 16, true});
  auto seg = tp->segment(0);
  EXPECT_EQ(tp->local_address(0, seg.base), nullptr);
  long v = 7;
  recording_sink put_sink;
  auto r = tp->put(0, seg.base, &v, sizeof v, &put_sink, gt::op_none);
  EXPECT_EQ(r.done, gt::cx_source) << "the source was captured at injection";
  v = 99;  // reusing the source must not change what lands
  long back = -1;
  recording_sink get_sink;
  r = tp->get(0, seg.base, &back, sizeof back, &get_sink, gt::op_none);
  EXPECT_EQ(r.done, gt::cx_none);
  EXPECT_EQ(back, -1) << "nothing moves before poll";
  EXPECT_TRUE(tp->poll());
  EXPECT_EQ(put_sink.bits, unsigned{gt::cx_remote});
  EXPECT_EQ(get_sink.bits, unsigned{gt::cx_all});
  EXPECT_EQ(back, 7) << "operations complete in order";
  EXPECT_FALSE(tp->poll());
}

std::vector<std::string> g_seen;
void record_handler(const gt::am_message& m) {
  g_seen.emplace_back(reinterpret_cast<const char*>(m.header.data()), m.header.size());
  g_seen.back() += "|";
  g_seen.back().append(reinterpret_cast<const char*>(m.payload.data()), m.payload.size());
}

TEST(Loopback, ActiveMessagesRunOnlyInsidePoll) {
  auto tp = gt::make_loopback({1 << 16, false});
  ASSERT_TRUE(tp->caps().active_messages);
  tp->am_register(3, record_handler);
  const char h[] = "hdr", p[] = "payload";
  auto st = tp->am_send(0, 3, std::as_bytes(std::span(h, 3)), std::as_bytes(std::span(p, 7)), gt::op_none);
  EXPECT_EQ(st, gt::status::ok);
  EXPECT_TRUE(g_seen.empty());
  tp->poll();
  ASSERT_EQ(g_seen.size(), 1u);
  EXPECT_EQ(g_seen[0], "hdr|payload");
  std::vector<std::byte> big(tp->caps().am_max_medium + 1);
  EXPECT_EQ(tp->am_send(0, 3, {}, big, gt::op_none), gt::status::unsupported);
}

TEST(Loopback, BarrierIsImmediate) {
  auto tp = gt::make_loopback({1 << 16, false});
  tp->barrier_arrive();
  EXPECT_TRUE(tp->barrier_test());
  EXPECT_EQ(tp->rank_n(), 1);
  EXPECT_EQ(tp->local_ranks().size(), 1u);
}

}  // namespace
