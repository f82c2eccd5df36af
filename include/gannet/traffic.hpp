// gannet::traffic(): what this process has sent since it started, counted only when the
// environment has GANNET_COUNT_TRAFFIC=1 at start-up (tests and benchmarks; otherwise every
// count is zero and costs one branch). Gannet extension, not UPC++.
//   messages, bytes: active messages (RPC batches, collective steps, acknowledgements)
//   signals:         stores into other ranks' shared-memory barrier flags or counters
//   peer_visits:     peers whose state progress looked at (none in an idle pass)
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>

namespace gannet {

struct traffic_counts {
  std::uint64_t messages = 0, bytes = 0, signals = 0, peer_visits = 0;
};

bool traffic_counting();
traffic_counts traffic();

}  // namespace gannet
