// A rank's ring of notification slots (issue 12, seed 004 §IV): where ranks of the same
// machine deliver notified-access notifications to it. It lives in shared memory, in the
// runtime reserve of the target's segment, right after the scratch (runtime.hpp), so every
// transport that maps a peer's segment (smp, MPI on one machine) reaches it the same way.
//
// Many producers (any rank of the machine), one consumer (the owner). Positions 0, 1, 2, ...
// map to slot p % slots. A producer claims position p by moving `tail` from p to p+1, only
// while p < head + slots (the consumer has taken position p - slots), so a full ring makes
// claim() fail instead of making the producer own a slot it must wait for; the caller then
// serves its own ring and tries again (no deadlock between two full rings). It publishes the
// slot by storing p + 1 into its `turn` (release); the consumer takes positions in order and
// moves `head` past them (release) when it has read them.
//
// Cache lines: the consumer never writes a slot, and producers read `head` only when the
// value they last saw says the ring may be full (the caller keeps it, see claim()), so a
// notification costs one line moving from producer to consumer and nothing on the way back.
// A slot carries the notification and up to inline_bytes of data, which the consumer copies
// to `dest` before it delivers the notification.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gannet::runtime {

struct alignas(64) notify_slot {
  static constexpr std::size_t inline_bytes = 32;
  std::atomic<std::uint64_t> turn;  // position + 1 once published
  std::int32_t source;  // world rank of the producer
  std::int32_t tag;
  std::uint64_t dest;    // owner's address of the inline data's destination
  std::uint32_t bytes;   // inline data bytes (0: a notification alone)
  std::uint32_t unused;
  std::byte data[inline_bytes];
};
static_assert(sizeof(notify_slot) == 64);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct notify_ring {
  static constexpr std::uint64_t slots = 128;
  alignas(64) std::atomic<std::uint64_t> tail;  // next position to claim (producers)
  alignas(64) std::atomic<std::uint64_t> head;  // positions below it have been taken (consumer)
  alignas(64) notify_slot slot[slots];

  // Producer: claims the next position, or returns null when the ring is full. `known_head`
  // is the caller's last sight of head (never ahead of it; 0 will do): head is read again
  // only when that says the ring may be full. On success *pos is the position claimed.
  notify_slot* claim(std::uint64_t& known_head, std::uint64_t* pos) {
    std::uint64_t p = tail.load(std::memory_order_relaxed);
    for (;;) {
      if (p >= known_head + slots) {
        // Acquire: the consumer's reads of the slot we are about to reuse happen-before our
        // writes to it (also through a stale known_head: that load was acquire too).
        known_head = head.load(std::memory_order_acquire);
        if (p >= known_head + slots) return nullptr;
      }
      if (tail.compare_exchange_weak(p, p + 1, std::memory_order_relaxed)) {
        *pos = p;
        return &slot[p % slots];
      }
    }
  }
  static void publish(notify_slot& s, std::uint64_t pos) { s.turn.store(pos + 1, std::memory_order_release); }

  // Consumer: the slot of position `h` if it has been published, else null. Once it has
  // read the slots it takes, it moves head past them with taken().
  notify_slot* ready(std::uint64_t h) {
    notify_slot& s = slot[h % slots];
    return s.turn.load(std::memory_order_acquire) == h + 1 ? &s : nullptr;
  }
  void taken_up_to(std::uint64_t h) { head.store(h, std::memory_order_release); }

  // Whether the consumer has taken position `pos`.
  bool taken(std::uint64_t pos) const { return head.load(std::memory_order_acquire) > pos; }
};

}  // namespace gannet::runtime
