// The smp active-message ring (src/transport/shm/ring.hpp) in one process: producers on
// several threads, one consumer, messages of many sizes (forcing wrap-around padding and
// full-ring back-pressure). Every message must arrive once, intact, in per-producer order.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "transport/shm/ring.hpp"

namespace smp = gannet::smp;

namespace {

struct ring_memory {
  void* p;
  ring_memory() : p(std::aligned_alloc(4096, smp::job_layout::ring_bytes())) { std::memset(p, 0, smp::job_layout::ring_bytes()); }
  ~ring_memory() { std::free(p); }
};

TEST(Ring, SingleThreadRoundTripAndFull) {
  ring_memory mem;
  smp::ring q(mem.p);
  q.initialize();
  EXPECT_TRUE(q.empty_for_consumer());
  const char hdr[] = "H";
  std::vector<char> body(300, 'b');
  int sent = 0;
  while (q.try_send(7, 3, hdr, 1, body.data(), static_cast<std::uint32_t>(body.size()))) ++sent;
  // 300 + 1 + 32 bytes take 3 slots of 128: the ring holds n / 3 of them.
  EXPECT_EQ(sent, static_cast<int>(smp::ring::n / 3));
  int got = 0;
  while (q.consume_one([&](const smp::ring_message_header& h) {
    EXPECT_EQ(h.source, 7);
    EXPECT_EQ(h.handler, 3);
    EXPECT_EQ(h.header_bytes, 1u);
    EXPECT_EQ(h.payload_bytes, 300u);
    EXPECT_EQ(smp::ring::body_of(h)[0], 'H');
    EXPECT_EQ(smp::ring::body_of(h)[300], 'b');
  }))
    ++got;
  EXPECT_EQ(got, sent);
  EXPECT_TRUE(q.try_send(1, 1, hdr, 1, nullptr, 0)) << "room again after consuming";
}

TEST(Ring, ManyProducersVariableSizes) {
  ring_memory mem;
  smp::ring q(mem.p);
  q.initialize();
  constexpr int producers = 3, per_producer = 20000;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < producers; ++t) {
    threads.emplace_back([&, t] {
      smp::ring q(mem.p);  // each producer thread has its own handle
      std::mt19937 rng(t);
      std::vector<unsigned char> buf(6000);
      for (int i = 0; i < per_producer; ++i) {
        std::uint32_t size = 8 + rng() % (i % 50 == 0 ? 6000 - 8 : 200);
        std::memcpy(buf.data(), &i, sizeof i);
        for (std::uint32_t k = sizeof i; k < size; ++k) buf[k] = static_cast<unsigned char>(k * 7 + i + t);
        while (!q.try_send(t, 1, nullptr, 0, buf.data(), size)) std::this_thread::yield();
      }
      done.fetch_add(1);
    });
  }
  std::vector<int> next(producers, 0);
  long bad = 0, received = 0;
  while (received < producers * per_producer) {
    bool any = q.consume_one([&](const smp::ring_message_header& h) {
      const auto* p = reinterpret_cast<const unsigned char*>(smp::ring::body_of(h));
      int i;
      std::memcpy(&i, p, sizeof i);
      if (i != next[h.source]) ++bad;  // per-producer order
      next[h.source] = i + 1;
      for (std::uint32_t k = sizeof i; k < h.payload_bytes; ++k)
        if (p[k] != static_cast<unsigned char>(k * 7 + i + h.source)) {
          ++bad;
          break;
        }
    });
    if (any) ++received;
    else std::this_thread::yield();
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(received, long{producers} * per_producer);
  EXPECT_TRUE(q.empty_for_consumer());
}

}  // namespace
