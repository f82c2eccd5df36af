// The smp active-message ring: a bounded multi-producer, single-consumer queue of messages
// in shared memory, one per receiving rank. Messages occupy whole consecutive slots and
// never wrap (a padding message fills the end of the ring when needed), so a message's
// bytes are contiguous and the receiver runs its handler on them in place.
//
// Protocol. Positions grow forever; slot = position % N.
//   producer: reserve k slots at tail p with a CAS on `tail`, after checking that the
//             consumer is far enough ahead (p + k - head <= N: head only grows, so a stale
//             head only makes the check conservative); write the body; then publish by
//             storing p + 1 into the first slot's header `seq` (release).
//   consumer: at head h, the message is ready when slot(h).seq == h + 1 (acquire); stale
//             values from earlier laps are h + 1 - N*j, never equal. After running it the
//             consumer advances head (release), which frees the slots.
// The publication marker lives in the message's own first cache line, so a message costs
// the cache-line transfers of its bytes and nothing else; producers read `head` only when
// their cached copy says the ring is full. (An earlier design with a separate sequence array
// paid about twice as many transfers: rpc_ff went from 240 to 110-170 ns per message.) The
// design follows Vyukov's bounded MPMC queue, extended to multi-slot messages.
//
// Memory ordering: the release store of seq pairs with the consumer's acquire load, so the
// consumer sees every byte of the message; the release store of head pairs with the
// producers' acquire load, so a producer never overwrites slots still being read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "transport/shm/job.hpp"

namespace gannet::smp {

struct ring_message_header {
  std::atomic<std::uint64_t> seq;  // position + 1 once published
  std::uint32_t slots;             // slots this message occupies (header included)
  std::uint16_t handler;           // pad_handler for padding
  std::uint16_t flags;
  std::int32_t source;
  std::uint32_t header_bytes;
  std::uint32_t payload_bytes;
  std::uint32_t reserved;
};
static_assert(sizeof(ring_message_header) == 32);
inline constexpr std::uint16_t pad_handler = 0xffff;

class ring {
 public:
  static constexpr std::uint64_t n = ring_slots;
  static constexpr std::size_t slot_bytes = ring_slot_bytes;
  // Largest message body (header + payload); keeps a reservation under half the ring.
  static constexpr std::size_t max_body = (n / 2) * slot_bytes - sizeof(ring_message_header);

  // A ring object is one process's (or, in tests, one thread's) handle on a shared ring: it
  // caches the consumer's head and remembers its pending reservation, so it must not be
  // used by two threads at once; several handles may share one ring.
  ring() = default;
  explicit ring(void* base)
      : ctl_(static_cast<ring_control*>(base)),
        slots_(static_cast<char*>(base) + job_layout::ring_bytes() - slot_bytes * n) {}

  // Called by the owner before any producer can see the ring. A ring nobody has reserved in
  // is still as the zero-filled region made it: its slots are left untouched, so that their
  // pages are populated only as traffic reaches them (a job of P ranks would otherwise make
  // P x 512 KiB resident at start).
  void initialize() {
    if (ctl_->tail.load(std::memory_order_relaxed) != 0)
      for (std::uint64_t i = 0; i < n; ++i) slot_header(i)->seq.store(0, std::memory_order_relaxed);
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
    std::uint64_t pos = ctl_->tail.load(std::memory_order_relaxed);
    for (;;) {
      std::uint64_t offset = pos % n;
      std::uint64_t pad = offset + k > n ? n - offset : 0;
      std::uint64_t end = pos + pad + k;
      if (end - cached_head_ > n) {
        // Acquire: pairs with the consumer's release of head; its reads of the slots we
        // are about to reuse are done.
        cached_head_ = ctl_->head.load(std::memory_order_acquire);
        if (end - cached_head_ > n) return nullptr;  // full
      }
      if (!ctl_->tail.compare_exchange_weak(pos, end, std::memory_order_relaxed)) continue;  // pos reloaded
      if (pad) {
        auto* ph = slot_header(pos);
        ph->slots = static_cast<std::uint32_t>(pad);
        ph->handler = pad_handler;
        ph->seq.store(pos + 1, std::memory_order_release);
      }
      std::uint64_t start = pos + pad;
      auto* h = slot_header(start);
      h->slots = k;
      h->handler = handler;
      h->flags = 0;
      h->source = source;
      h->header_bytes = hdr_bytes;
      h->payload_bytes = payload_bytes;
      h->reserved = 0;
      pending_ = start;
      return reinterpret_cast<char*>(h + 1);
    }
  }
  // Publishes the message of the last reserve() through this handle.
  void publish(char* body) {
    auto* h = reinterpret_cast<ring_message_header*>(body) - 1;
    h->seq.store(pending_ + 1, std::memory_order_release);
  }

  // Consumer: calls fn(header) for the next message if one is published; returns whether
  // it did. The message's bytes stay valid until fn returns.
  template <typename Fn>
  bool consume_one(Fn&& fn) {
    std::uint64_t pos = ctl_->head.load(std::memory_order_relaxed);  // only we write it
    for (;;) {
      auto* h = slot_header(pos);
      if (h->seq.load(std::memory_order_acquire) != pos + 1) return false;
      std::uint32_t k = h->slots;
      bool was_pad = h->handler == pad_handler;
      if (!was_pad) fn(*h);
      pos += k;
      // Release: frees the slots; producers that see the new head may overwrite them.
      ctl_->head.store(pos, std::memory_order_release);
      if (!was_pad) return true;
    }
  }

  bool empty_for_consumer() const {
    std::uint64_t pos = ctl_->head.load(std::memory_order_relaxed);
    return slot_header(pos)->seq.load(std::memory_order_acquire) != pos + 1;
  }
  std::uint64_t head() const { return ctl_->head.load(std::memory_order_acquire); }
  std::uint64_t tail() const { return ctl_->tail.load(std::memory_order_relaxed); }

  static const char* body_of(const ring_message_header& h) { return reinterpret_cast<const char*>(&h + 1); }

 private:
  ring_message_header* slot_header(std::uint64_t pos) const {
    return reinterpret_cast<ring_message_header*>(slots_ + (pos % n) * slot_bytes);
  }

  ring_control* ctl_ = nullptr;
  char* slots_ = nullptr;
  std::uint64_t cached_head_ = 0;  // this producer's last view of head (private memory)
  std::uint64_t pending_ = 0;
};

}  // namespace gannet::smp
