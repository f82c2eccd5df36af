// A rank's ring of notification slots (issue 12, seed 004 §IV): where ranks of the same
// machine deliver notified-access notifications to it. It lives in shared memory, in the
// runtime reserve of the target's segment, right after the scratch (runtime.hpp), so every
// transport that maps a peer's segment (smp, MPI on one machine) reaches it the same way.
//
// Many producers (any rank of the machine), one consumer (the owner): a bounded queue in the
// manner of Vyukov's, where each slot's `turn` says whose it is. Position p of the ring is
// slot p % slots in lap p / slots; the slot's turn is
//   2*lap       free for the producer of position p,
//   2*lap + 1   published: the notification of position p is ready for the consumer,
// and the consumer moves it to 2*(lap+1) once it has taken it. A producer claims position
// p by moving `tail` from p to p+1, only when the slot is free for p, so a full ring makes
// claim() fail instead of making the producer own a slot it must wait for; the caller then
// serves its own ring and tries again (no deadlock between two full rings).
//
// A slot is one cache line: the notification and up to inline_bytes of data, which the
// consumer copies to `dest` before it delivers the notification. One line moves from the
// producer's core to the consumer's for a small notified put.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gannet::runtime {

struct alignas(64) notify_slot {
  static constexpr std::size_t inline_bytes = 32;
  std::atomic<std::uint64_t> turn;
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
  alignas(64) std::atomic<std::uint64_t> tail;  // next position to claim
  alignas(64) notify_slot slot[slots];

  // Producer: claims the next position; null when the ring is full. On success *turn is the
  // value that publishes the slot (publish with it as a release store).
  notify_slot* claim(std::uint64_t* turn) {
    std::uint64_t pos = tail.load(std::memory_order_relaxed);
    for (;;) {
      notify_slot& s = slot[pos % slots];
      const std::uint64_t mine = 2 * (pos / slots);
      // Acquire: what the consumer read from the slot happens-before our writes to it.
      const std::uint64_t t = s.turn.load(std::memory_order_acquire);
      if (t == mine) {
        if (tail.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          *turn = mine + 1;
          return &s;
        }
      } else if (t < mine) {
        return nullptr;  // the consumer has not yet taken the previous lap's notification
      } else {
        pos = tail.load(std::memory_order_relaxed);  // another producer took it
      }
    }
  }

  // Consumer: the slot at `head` if it has been published, else null. Release it with
  // done(head) after reading it.
  notify_slot* ready(std::uint64_t head) {
    notify_slot& s = slot[head % slots];
    return s.turn.load(std::memory_order_acquire) == 2 * (head / slots) + 1 ? &s : nullptr;
  }
  void done(std::uint64_t head) { slot[head % slots].turn.store(2 * (head / slots + 1), std::memory_order_release); }

  // Whether the consumer has taken the notification published with `turn` from `s`.
  static bool taken(const notify_slot& s, std::uint64_t turn) {
    return s.turn.load(std::memory_order_acquire) > turn;
  }
};

}  // namespace gannet::runtime
