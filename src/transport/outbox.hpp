// Messages a transport accepted but could not send yet (sent from inside a handler while the
// destination had no room), kept per destination in order and sent by later polls. Shared
// by the smp and MPI transports. State exists only for destinations with something waiting:
// no per-peer cost for the others, and flushing visits only those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <span>
#include <unordered_map>
#include <vector>

#include "transport/transport.hpp"
#include "util/traffic.hpp"

namespace gannet::transport {

class outboxes {
 public:
  struct message {
    am_handler_id id;
    std::uint32_t header_bytes;
    std::vector<std::byte> bytes;  // header then payload
    std::span<const std::byte> header() const { return std::span(bytes).first(header_bytes); }
    std::span<const std::byte> payload() const { return std::span(bytes).subspan(header_bytes); }
  };

  // Messages waiting, to anyone.
  std::size_t size() const { return count_; }

  void park(rank_t r, am_handler_id id, std::span<const std::byte> header, std::span<const std::byte> payload) {
    message m{id, static_cast<std::uint32_t>(header.size()), {}};
    m.bytes.reserve(header.size() + payload.size());
    m.bytes.insert(m.bytes.end(), header.begin(), header.end());
    m.bytes.insert(m.bytes.end(), payload.begin(), payload.end());
    boxes_[r].push_back(std::move(m));
    ++count_;
  }

  // Sends what waits for r, in order, while send(message) succeeds; true if nothing waits
  // for r afterwards.
  template <typename Send>
  bool drain(rank_t r, Send&& send) {
    if (count_ == 0) return true;
    auto it = boxes_.find(r);
    return it == boxes_.end() || drain(it, send).second;
  }

  // drain() for every destination with messages waiting; true if any message left.
  template <typename Send>
  bool drain_all(Send&& send) {
    bool did = false;
    for (auto it = boxes_.begin(); it != boxes_.end();) {
      auto next = std::next(it);
      util::count_peer_visit();
      did = drain(it, send).first || did;  // may erase it
      it = next;
    }
    return did;
  }

 private:
  using map = std::unordered_map<rank_t, std::deque<message>>;

  // (sent anything, now empty); an emptied outbox is removed.
  template <typename Send>
  std::pair<bool, bool> drain(map::iterator it, Send& send) {
    auto& box = it->second;
    bool did = false;
    while (!box.empty() && send(it->first, box.front())) {
      box.pop_front();
      --count_;
      did = true;
    }
    if (!box.empty()) return {did, false};
    boxes_.erase(it);
    return {did, true};
  }

  map boxes_;
  std::size_t count_ = 0;
};

}  // namespace gannet::transport
