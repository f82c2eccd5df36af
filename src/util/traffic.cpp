#include "util/traffic.hpp"

#include <cstdlib>
#include <cstring>

#include "gannet/traffic.hpp"

namespace gannet::util {

namespace {
// GANNET_STATS reports the messages sent, counted here.
bool traffic_requested() {
  const char* v = std::getenv("GANNET_COUNT_TRAFFIC");
  const char* stats = std::getenv("GANNET_STATS");
  return (v && std::strcmp(v, "1") == 0) || (stats && *stats && std::strcmp(stats, "0") != 0);
}
}  // namespace

const bool g_traffic_on = traffic_requested();
traffic_counters g_traffic;

}  // namespace gannet::util

namespace gannet {

bool traffic_counting() { return util::g_traffic_on; }

traffic_counts traffic() {
  auto& t = util::g_traffic;
  return {t.messages.load(std::memory_order_relaxed), t.bytes.load(std::memory_order_relaxed),
          t.signals.load(std::memory_order_relaxed), t.peer_visits.load(std::memory_order_relaxed)};
}

}  // namespace gannet
