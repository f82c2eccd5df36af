// Traffic counters: what this process sends, so that tests can check that a
// collective or start-up costs O(log P) messages per rank, which timing on 2 cores cannot
// tell. Off unless GANNET_COUNT_TRAFFIC=1 is in the environment at start-up; then each count
// is a relaxed atomic add, otherwise one predictable branch.
//   messages:    active messages sent (one per am_send, whatever the path)
//   bytes:       their header and payload bytes
//   signals:     stores into another rank's barrier flags or counter (shared-memory
//                barriers, which send no messages)
//   peer_visits: peers whose state a poll looked at (outboxes, attentiveness watch): an idle
//                poll should look at none
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gannet::util {

struct traffic_counters {
  std::atomic<std::uint64_t> messages{0}, bytes{0}, signals{0}, peer_visits{0};
};

extern const bool g_traffic_on;
extern traffic_counters g_traffic;

inline void count_message(std::size_t bytes) {
  if (g_traffic_on) [[unlikely]] {
    g_traffic.messages.fetch_add(1, std::memory_order_relaxed);
    g_traffic.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
}
inline void count_signal() {
  if (g_traffic_on) [[unlikely]] g_traffic.signals.fetch_add(1, std::memory_order_relaxed);
}
inline void count_peer_visit() {
  if (g_traffic_on) [[unlikely]] g_traffic.peer_visits.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace gannet::util
