// Layout of an smp job's shared region: the contract between gannet-run, which creates and
// initialises it, and the smp transport in every rank, which maps it.
//
// The launcher creates one POSIX shared-memory object (mode 0600, random name, O_EXCL),
// sizes it, writes the job header, and unlinks the name at once; the ranks inherit the open
// descriptor (GANNET_JOB_FD) and map the whole region. Nothing is left in /dev/shm on any exit
// path, including SIGKILL of every process, because no name exists once the ranks start.
//
//   [ job_header | rank_slot x N | barrier flags N x rounds | AM ring x N ] padded to segment_align
//   [ segment of rank 0 ][ segment of rank 1 ] ... each seg_stride bytes apart
//
// Memory ordering: the header is written before any rank is forked (fork is the fence).
// Fields written while the job runs are atomics; each comment says who writes it.
//
// The shm room (src/transport/shm): the shared-memory pieces that the smp transport (a whole
// job) and the MPI transport (the ranks of one machine, in a region laid out like this one
// without segments) both build on. Not a transport itself. Owns this layout, the AM rings
// (ring.hpp; ring_dispatch.hpp runs their handlers in place) and the region barrier
// (barrier.hpp: dissemination or central counter, and the CPU-aware wait hint). May
// include: the transport contract (transport/transport.hpp) and util/ only, never a concrete
// transport or anything above the transport room (scripts/check-layering.sh); the launcher
// (tools/gannet-run.cpp) includes this file too, so it stays header-only and free of the
// runtime. Threading: every cross-process field is a lock-free atomic with a single writer or
// a documented CAS protocol; a rank's own use of a ring or barrier is not thread-safe and is
// serialized by the runtime lock above. Progress: nothing here runs by itself; rings are
// drained and barriers tested only from the owning transport's poll() and barrier_test().
// Each segment starts with segment_reserve bytes (transport::runtime_reserve_bytes) that
// the core lays out (all_gather's area, the collectives' scratch, the notified-access area);
// rank 0 writes the barrier choice before counting itself booted, so every rank uses the
// same algorithm whatever its own CPU affinity says.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gannet::smp {

inline constexpr std::uint64_t job_magic = 0x31424f4a544e4e47ull;  // "GNNTJOB1"
inline constexpr std::uint32_t job_version = 7;
inline constexpr std::size_t cache_line = 64;
inline constexpr std::size_t segment_align = 64 * 1024;
inline constexpr int max_barrier_rounds = 32;
// Runtime bytes in front of each heap (transport::runtime_reserve_bytes).
inline constexpr std::size_t segment_reserve = 32768;

// Environment handed from the launcher to each rank.
inline constexpr const char* env_job_fd = "GANNET_JOB_FD";
inline constexpr const char* env_rank = "GANNET_RANK";
inline constexpr const char* env_rank_n = "GANNET_RANK_N";

enum rank_state : std::uint32_t {
  rank_started = 0,      // forked, has not reached init
  rank_initialized = 1,  // inside init..finalize
  rank_finalized = 2,    // finalize completed; exiting now is a clean exit
};

struct alignas(cache_line) rank_slot {
  std::atomic<std::uint32_t> state;         // written by the rank, read by the launcher
  std::atomic<std::uint64_t> region_base;   // the rank's mapping address, written once at init
  // Hints for ranks waiting in the central barrier, written by the rank: the last barrier it
  // arrived at, and the CPU it last ran on (at arrival, and whenever it checks while
  // waiting). Read without ordering: they steer whether a waiter spins or yields its core,
  // never whether the barrier is complete.
  std::atomic<std::uint64_t> barrier_epoch;
  std::atomic<std::int32_t> cpu;
};

struct alignas(cache_line) barrier_flag {
  // Written only by the rank's partner in one round of the dissemination barrier: the epoch
  // (barrier count) it has reached. Monotonic, so it never needs resetting.
  std::atomic<std::uint64_t> epoch;
};

// Active-message ring of one receiving rank: a bounded multi-producer, single-consumer
// queue of fixed-size slots (ring.hpp has the protocol).
inline constexpr std::size_t ring_slot_bytes = 128;
inline constexpr std::size_t ring_slots = 4096;  // 512 KiB of messages per receiving rank

struct alignas(cache_line) ring_control {
  alignas(cache_line) std::atomic<std::uint64_t> tail;  // next position to reserve (producers CAS)
  alignas(cache_line) std::atomic<std::uint64_t> head;  // next position to consume (consumer only)
};

struct job_header {
  std::uint64_t magic;
  std::uint32_t version;
  std::int32_t rank_n;
  std::uint64_t region_bytes;   // the whole object
  std::uint64_t control_bytes;  // offset of segment 0
  std::uint64_t seg_stride;     // distance between segments
  std::uint64_t heap_bytes;     // requested heap; each segment is heap_bytes + segment_reserve
  std::int32_t launcher_pid;
  alignas(cache_line) std::atomic<std::uint32_t> abort;       // set by the launcher on teardown
  alignas(cache_line) std::atomic<std::uint32_t> boot_count;  // ranks through bootstrap
  // The barrier every rank uses (1: central counter), written by rank 0 before it counts
  // itself in boot_count, so that ranks whose CPU affinities differ still agree.
  std::atomic<std::uint32_t> barrier_central;
  // Central barrier (used when ranks outnumber cores): arrivals ever, and the last barrier
  // every rank has arrived at. Both only grow.
  alignas(cache_line) std::atomic<std::uint64_t> barrier_arrivals;
  alignas(cache_line) std::atomic<std::uint64_t> barrier_done;
  // MPI transport, where the region holds the ranks of one machine of a larger job: the last
  // job-wide barrier the machine's leader has seen complete (written by the leader only).
  alignas(cache_line) std::atomic<std::uint64_t> node_release;
  // Ranks that returned from main without upcxx::finalize() and wait for the rest (only grows).
  alignas(cache_line) std::atomic<std::uint32_t> exits;
};

struct job_layout {
  std::size_t slots_offset;
  std::size_t flags_offset;
  std::size_t rings_offset;  // ring_bytes per rank: control, sequence numbers, slots
  std::size_t control_bytes;
  std::size_t seg_stride;
  std::size_t region_bytes;

  static constexpr std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
  static constexpr std::size_t ring_bytes() {
    return round_up(sizeof(ring_control), 4096) + ring_slot_bytes * ring_slots;
  }

  static job_layout compute(int rank_n, std::size_t heap_bytes) {
    job_layout l{};
    l.slots_offset = round_up(sizeof(job_header), cache_line);
    l.flags_offset = l.slots_offset + sizeof(rank_slot) * static_cast<std::size_t>(rank_n);
    std::size_t flags = sizeof(barrier_flag) * static_cast<std::size_t>(rank_n) * max_barrier_rounds;
    l.rings_offset = round_up(l.flags_offset + flags, 4096);
    l.control_bytes = round_up(l.rings_offset + ring_bytes() * static_cast<std::size_t>(rank_n), segment_align);
    l.seg_stride = round_up(heap_bytes + segment_reserve, segment_align);
    l.region_bytes = l.control_bytes + l.seg_stride * static_cast<std::size_t>(rank_n);
    return l;
  }
};

inline job_header* header_of(void* region) { return static_cast<job_header*>(region); }
inline void* ring_of(void* region, const job_layout& l, int rank) {
  return static_cast<char*>(region) + l.rings_offset + job_layout::ring_bytes() * static_cast<std::size_t>(rank);
}
inline rank_slot* slots_of(void* region, const job_layout& l) {
  return reinterpret_cast<rank_slot*>(static_cast<char*>(region) + l.slots_offset);
}
inline barrier_flag* flag_of(void* region, const job_layout& l, int rank, int round) {
  return reinterpret_cast<barrier_flag*>(static_cast<char*>(region) + l.flags_offset) +
         static_cast<std::size_t>(rank) * max_barrier_rounds + round;
}

static_assert(sizeof(rank_slot) == cache_line);
static_assert(sizeof(barrier_flag) == cache_line);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

}  // namespace gannet::smp
