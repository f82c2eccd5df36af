// A rank's notification slots ("Notified Access" paper §IV): where ranks of the same machine
// deliver notified-access notifications to it.
//
// The ring: many producers (any rank of the machine), one consumer (the owner). It lives in
// shared memory, in the runtime reserve of the target's segment, right after the scratch
// (runtime.hpp), so every transport that maps a peer's segment (smp, MPI on one machine)
// reaches it the same way. Claiming a ring position is a compare-and-swap, and a locked
// instruction waits for the producer's earlier stores, among them its last notification,
// whose line the waiting consumer is reading: a producer that streams notifications would
// pay a round trip between caches for each one.
//
// Lanes: so a producer that notifies one target often (the 16th notification) gets a lane
// of its own, single producer and single consumer, in its own notify area (at most
// out_lanes of them) and announced through the ring. Writing a lane slot needs no locked
// instruction. A consumer grants at most max_lanes lanes, so its poll looks at a bounded
// number of places; other producers keep to the ring.
//
// Cache lines: the consumer never writes a slot, and producers read `head` only when the
// value they last saw says the slots may be full (the caller keeps it, see free()), so a
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

// Slots taken in order by one consumer: positions 0, 1, 2, ... map to slot p % N. A
// producer publishes a slot by storing p + 1 into its `turn` (release); the consumer takes
// positions in order and moves `head` past them (release) when it has read them.
template <std::uint64_t N>
struct notify_slots {
  static constexpr std::uint64_t slots = N;
  alignas(64) std::atomic<std::uint64_t> head;  // positions below it have been taken (consumer)
  alignas(64) notify_slot slot[N];

  void reset() {
    head.store(0, std::memory_order_relaxed);
    for (auto& s : slot) s.turn.store(0, std::memory_order_relaxed);
  }

  // Producer: whether position p may be written. `known_head` is the caller's last sight of
  // head (never ahead of it; 0 will do): head is read again only when that says the slots
  // may be full. Acquire: the consumer's reads of the slot we are about to reuse happen-
  // before our writes to it (also through a stale known_head: that load was acquire too).
  bool free(std::uint64_t p, std::uint64_t& known_head) const {
    if (p < known_head + N) return true;
    known_head = head.load(std::memory_order_acquire);
    return p < known_head + N;
  }
  // Asks for the line of position pos's slot in a state we can write (PREFETCHW: without an
  // -march flag the compiler's write prefetch is a read prefetch, after which the store must
  // still take the line from the consumer; older CPUs decode it as a no-op).
  void prefetch_for_write(std::uint64_t pos) {
#if defined(__x86_64__)
    asm volatile("prefetchw %0" : : "m"(*reinterpret_cast<const char*>(&slot[pos % N])));
#else
    __builtin_prefetch(&slot[pos % N], 1, 3);
#endif
  }
  static void publish(notify_slot& s, std::uint64_t pos) { s.turn.store(pos + 1, std::memory_order_release); }

  // Consumer: the slot of position `h` if it has been published, else null. Once it has
  // read the slots it takes, it moves head past them with taken_up_to().
  notify_slot* ready(std::uint64_t h) {
    notify_slot& s = slot[h % N];
    return s.turn.load(std::memory_order_acquire) == h + 1 ? &s : nullptr;
  }
  void taken_up_to(std::uint64_t h) { head.store(h, std::memory_order_release); }
};

// A lane: the slots of one producer for one consumer (single producer, so claiming a
// position is a private increment, not a locked instruction). It lives in the producer's
// notify area (below); the producer announces it through the consumer's ring (lane_tag).
// Few slots: a stream reuses lines it wrote a moment ago, and the producer's stores find
// them sooner than lines the consumer read long ago (a stream of notifications ran 1.5x
// faster with 8 slots than with 32). Not too few: a producer that runs ahead of its
// consumer, as the children of a tree reduction do, then waits for room (8 slots made the
// tree reduction 2x slower than 32). 16 is between.
using notify_lane = notify_slots<16>;

// The ring: many producers. A producer claims position p by moving `tail` from p to p+1,
// only while slot p is free, so a full ring makes claim() fail instead of making the
// producer own a slot it must wait for; the caller then serves its own ring and tries again
// (no deadlock between two full rings).
struct notify_ring : notify_slots<128> {
  alignas(64) std::atomic<std::uint64_t> tail;  // next position to claim (producers)
  // Lanes producers have been granted (take one with fetch_add; at most max_lanes, so that
  // a consumer's poll looks at a bounded number of them whatever the job's size).
  alignas(64) std::atomic<std::uint32_t> lanes;
  static constexpr std::uint32_t max_lanes = 16;
  // A ring slot with this tag announces a lane: `dest` is its index in the producer's notify
  // area. Later notifications of that producer to this consumer go through the lane.
  static constexpr std::int32_t lane_tag = -2;

  void reset() {
    notify_slots<128>::reset();
    tail.store(0, std::memory_order_relaxed);
    lanes.store(0, std::memory_order_relaxed);
  }

  // Producer: claims the next position, or returns null when the ring is full; on success
  // *pos is the position claimed. `known_head` as for free().
  notify_slot* claim(std::uint64_t& known_head, std::uint64_t* pos) {
    std::uint64_t p = tail.load(std::memory_order_relaxed);
    for (;;) {
      if (!free(p, known_head)) return nullptr;
      if (tail.compare_exchange_weak(p, p + 1, std::memory_order_relaxed)) {
        *pos = p;
        return &slot[p % slots];
      }
    }
  }
};

// What each rank keeps in its segment's runtime reserve: its ring, and the lanes it writes
// to (one per consumer it streams to, at most out_lanes of them).
struct notify_area {
  static constexpr std::size_t out_lanes = 16;
  notify_ring ring;
  notify_lane lane[out_lanes];
};

}  // namespace gannet::runtime
