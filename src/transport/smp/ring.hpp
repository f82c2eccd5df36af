// The smp active-message ring: a bounded multi-producer, single-consumer queue of messages
// in shared memory, one per receiving rank. Messages occupy whole consecutive slots and
// never wrap (a padding message fills the end of the ring when needed), so a message's
// bytes are contiguous and the receiver runs its handler on them in place.
//
// Protocol (after Vyukov's bounded queue, extended to multi-slot reservations):
//   seq[p % N] == p        slot for position p is free for the lap of p
//   seq[p % N] == p + 1    the message starting at p is published (first slot only)
// A producer reserving k slots at tail p checks that the last one is free
// (seq[(p+k-1) % N] == p+k-1: the consumer frees in order, so all k are), claims them with
// a CAS on tail, writes the message, then publishes seq[p % N] = p + 1 (release). The
// consumer, at head h, waits for seq[h % N] == h + 1 (acquire), runs the message, then
// frees each slot j it used with seq[j % N] = j + N (release).
//
// Memory ordering: the release store that publishes a message pairs with the consumer's
// acquire load, so the consumer sees every byte of it; the release stores that free slots
// pair with the producers' acquire checks, so a producer never writes a slot the consumer
// is still reading.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transport/smp/job.hpp"

namespace gannet::smp {

struct ring_message_header {
  std::uint32_t slots;   // slots this message occupies (header included)
  std::uint16_t handler; // pad_handler for padding
  std::uint16_t flags;
  std::int32_t source;
  std::uint32_t header_bytes;
  std::uint32_t payload_bytes;
  std::uint32_t reserved[3];
};
static_assert(sizeof(ring_message_header) == 32);
inline constexpr std::uint16_t pad_handler = 0xffff;

class ring {
 public:
  static constexpr std::uint64_t n = ring_slots;
  static constexpr std::size_t slot_bytes = ring_slot_bytes;
  // Largest message body (header + payload); keeps a reservation under half the ring.
  static constexpr std::size_t max_body = (n / 2) * slot_bytes - sizeof(ring_message_header);

  ring() = default;
  explicit ring(void* base)
      : ctl_(static_cast<ring_control*>(base)),
        seq_(reinterpret_cast<std::atomic<std::uint64_t>*>(static_cast<char*>(base) + sizeof(ring_control))),
        slots_(static_cast<char*>(base) + job_layout::ring_bytes() - slot_bytes * n) {}

  // Called by the owner before any producer can see the ring.
  void initialize() {
    for (std::uint64_t i = 0; i < n; ++i) seq_[i].store(i, std::memory_order_relaxed);
    ctl_->head.store(0, std::memory_order_relaxed);
    ctl_->tail.store(0, std::memory_order_release);
  }

  static std::uint32_t slots_for(std::size_t body) {
    return static_cast<std::uint32_t>((sizeof(ring_message_header) + body + slot_bytes - 1) / slot_bytes);
  }

  // Producer: tries to send; false when the ring has no room now.
  bool try_send(std::int32_t source, std::uint16_t handler, const void* hdr, std::uint32_t hdr_bytes,
                const void* payload, std::uint32_t payload_bytes) {
    char* dst = reserve(source, handler, hdr_bytes, payload_bytes);
    if (!dst) return false;
    if (hdr_bytes) std::memcpy(dst, hdr, hdr_bytes);
    if (payload_bytes) std::memcpy(dst + hdr_bytes, payload, payload_bytes);
    publish(dst);
    return true;
  }

  // Producer, in two steps, for writers that build the body in place (no staging copy):
  // reserve() returns where the body goes, or null when full; publish() makes it visible.
  char* reserve(std::int32_t source, std::uint16_t handler, std::uint32_t hdr_bytes, std::uint32_t payload_bytes) {
    const std::uint32_t k = slots_for(std::size_t{hdr_bytes} + payload_bytes);
    for (;;) {
      std::uint64_t pos = ctl_->tail.load(std::memory_order_relaxed);
      std::uint64_t offset = pos % n;
      std::uint64_t pad = offset + k > n ? n - offset : 0;
      std::uint64_t last = pos + pad + k - 1;
      std::uint64_t s = seq_[last % n].load(std::memory_order_acquire);
      if (s != last) {
        if (s < last) return nullptr;  // full: the consumer has not freed that slot yet
        continue;                      // another producer moved tail meanwhile
      }
      if (!ctl_->tail.compare_exchange_weak(pos, pos + pad + k, std::memory_order_relaxed)) continue;
      if (pad) {
        auto* ph = slot_header(pos);
        ph->slots = static_cast<std::uint32_t>(pad);
        ph->handler = pad_handler;
        seq_[pos % n].store(pos + 1, std::memory_order_release);
      }
      std::uint64_t start = pos + pad;
      auto* h = slot_header(start);
      h->slots = k;
      h->handler = handler;
      h->flags = 0;
      h->source = source;
      h->header_bytes = hdr_bytes;
      h->payload_bytes = payload_bytes;
      h->reserved[0] = static_cast<std::uint32_t>(start);  // remembered for publish()
      h->reserved[1] = static_cast<std::uint32_t>(start >> 32);
      return reinterpret_cast<char*>(h + 1);
    }
  }
  void publish(char* body) {
    auto* h = reinterpret_cast<ring_message_header*>(body) - 1;
    std::uint64_t start = h->reserved[0] | (std::uint64_t{h->reserved[1]} << 32);
    seq_[start % n].store(start + 1, std::memory_order_release);
  }

  // Consumer: calls fn(header) for the next message if one is published; returns whether
  // it did. The message's bytes stay valid until fn returns.
  template <typename Fn>
  bool consume_one(Fn&& fn) {
    std::uint64_t pos = ctl_->head.load(std::memory_order_relaxed);
    for (;;) {
      if (seq_[pos % n].load(std::memory_order_acquire) != pos + 1) return false;
      auto* h = slot_header(pos);
      std::uint32_t k = h->slots;
      bool was_pad = h->handler == pad_handler;
      if (!was_pad) fn(*h);
      for (std::uint64_t j = pos; j < pos + k; ++j) seq_[j % n].store(j + n, std::memory_order_release);
      pos += k;
      // Release: lets the attentiveness check of other ranks see progress.
      ctl_->head.store(pos, std::memory_order_release);
      if (!was_pad) return true;
    }
  }

  bool empty_for_consumer() const {
    std::uint64_t pos = ctl_->head.load(std::memory_order_relaxed);
    return seq_[pos % n].load(std::memory_order_acquire) != pos + 1;
  }
  std::uint64_t head() const { return ctl_->head.load(std::memory_order_acquire); }
  std::uint64_t tail() const { return ctl_->tail.load(std::memory_order_relaxed); }

  static const char* body_of(const ring_message_header& h) { return reinterpret_cast<const char*>(&h + 1); }

 private:
  ring_message_header* slot_header(std::uint64_t pos) {
    return reinterpret_cast<ring_message_header*>(slots_ + (pos % n) * slot_bytes);
  }

  ring_control* ctl_ = nullptr;
  std::atomic<std::uint64_t>* seq_ = nullptr;
  char* slots_ = nullptr;
};

}  // namespace gannet::smp
