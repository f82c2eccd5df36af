// The smp transport: ranks are processes on one machine started by gannet-run, sharing one
// POSIX shared-memory region (layout in job.hpp). Every rank maps every segment, so all
// RMA is load/store and the runtime bypasses put/get entirely (local_address is non-null
// for every rank). Active messages travel through one multi-producer ring per receiving
// rank (ring.hpp); handlers run on the message in place, inside poll().
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "transport/outbox.hpp"
#include "transport/shm/barrier.hpp"
#include "transport/shm/job.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/ring_dispatch.hpp"
#include "transport/smp/smp.hpp"
#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"
#include "util/traffic.hpp"

static_assert(gannet::smp::segment_reserve == gannet::transport::runtime_reserve_bytes);

namespace gannet::transport {
namespace {

// A futex on a 32-bit atomic in memory shared between processes (not FUTEX_PRIVATE).
long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) util::fatal("%s is not set: was this process started by gannet-run?", name);
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > (1L << 30)) util::fatal("%s='%s' is not a valid number", name, v);
  return static_cast<int>(x);
}

class smp_transport final : public transport {
 public:
  smp_transport() {
    me_ = env_int(smp::env_rank);
    n_ = env_int(smp::env_rank_n);
    int fd = env_int(smp::env_job_fd);

    // Read the header first to learn the region's size.
    void* probe = ::mmap(nullptr, sizeof(smp::job_header), PROT_READ, MAP_SHARED, fd, 0);
    if (probe == MAP_FAILED)
      util::fatal("cannot map the job's shared memory (fd %d): %s", fd, std::strerror(errno));
    const auto* h = static_cast<const smp::job_header*>(probe);
    if (h->magic != smp::job_magic || h->version != smp::job_version || h->rank_n != n_)
      util::fatal("the job's shared memory does not match this library (launcher from another "
                  "Gannet version?)");
    std::size_t region_bytes = h->region_bytes;
    heap_bytes_ = h->heap_bytes;
    ::munmap(probe, sizeof(smp::job_header));

    region_ = ::mmap(nullptr, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (region_ == MAP_FAILED)
      util::fatal("cannot map %zu bytes of the job's shared memory: %s", region_bytes,
                  std::strerror(errno));
    region_bytes_ = region_bytes;
    ::close(fd);  // the mapping keeps the object alive; the fd must not leak into children
    ::unsetenv(smp::env_job_fd);
    layout_ = smp::job_layout::compute(n_, heap_bytes_);
    header_ = smp::header_of(region_);
    slots_ = smp::slots_of(region_, layout_);

    if (me_ == 0) {
      // Rank 0 chooses for everyone (bootstrap publishes it).
      header_->barrier_central.store(smp::choose_central_barrier(n_, smp::available_cores()) ? 1 : 0, std::memory_order_relaxed);
    }

    local_.resize(static_cast<std::size_t>(n_));
    std::iota(local_.begin(), local_.end(), 0);

    rings_.resize(static_cast<std::size_t>(n_));
    for (int r = 0; r < n_; ++r) rings_[r] = smp::ring(smp::ring_of(region_, layout_, r));
    rings_[me_].initialize();  // before bootstrap: nobody sends before everyone is through it

    bootstrap();
  }

  ~smp_transport() override {
    if (region_ && region_ != MAP_FAILED) ::munmap(region_, region_bytes_);
  }

  const char* name() const override { return "smp"; }
  capabilities caps() const override {
    capabilities c;
    c.rma = true;
    c.active_messages = true;
    c.am_max_medium = smp::ring::max_body;
    return c;
  }

  rank_t rank_me() const override { return me_; }
  rank_t rank_n() const override { return n_; }
  std::span<const rank_t> local_ranks() const override { return local_; }

  segment_info segment(rank_t r) const override {
    return {owner_base_[static_cast<std::size_t>(r)] + seg_offset(r), heap_bytes_ + smp::segment_reserve};
  }

  void* local_address(rank_t r, std::uintptr_t owner_addr) const override {
    return reinterpret_cast<void*>(owner_addr + delta_[static_cast<std::size_t>(r)]);
  }

  op_result put(rank_t r, std::uintptr_t owner_addr, const void* src, std::size_t n,
                completion_sink*, std::uint32_t) override {
    std::memcpy(local_address(r, owner_addr), src, n);
    return {status::ok, cx_all};
  }

  op_result get(rank_t r, std::uintptr_t owner_addr, void* dst, std::size_t n, completion_sink*,
                std::uint32_t) override {
    std::memcpy(dst, local_address(r, owner_addr), n);
    return {status::ok, cx_all};
  }

  void am_register(am_handler_id id, am_handler fn) override {
    if (id >= max_am_handlers) util::fatal("active-message handler id %u out of range", id);
    handlers_[id] = fn;
  }

  status am_send(rank_t r, am_handler_id id, std::span<const std::byte> header,
                 std::span<const std::byte> payload, std::uint32_t flags) override {
    if (header.size() + payload.size() > smp::ring::max_body) return status::unsupported;
    util::count_message(header.size() + payload.size());
    // The common case, kept small: nothing parked for anyone, and room in r's ring.
    if (outbox_.size() == 0 && try_send(r, id, header, payload)) [[likely]] return status::ok;
    return am_send_waiting(r, id, header, payload, flags);
  }

  // am_send when messages wait in the outbox or r's ring is full.
  [[gnu::noinline]] status am_send_waiting(rank_t r, am_handler_id id, std::span<const std::byte> header,
                                           std::span<const std::byte> payload, std::uint32_t flags) {
    unsigned spins = 0;
    bool stalled = false;
    // Messages to one rank leave in order: behind any that wait in its outbox.
    while (!outbox_drained(r) || !try_send(r, id, header, payload)) {
      if (flags & op_immediate) return status::would_block;
      if (poll_depth_ > 0) {
        // Inside a handler the ring we are reading cannot be drained (its slots are still
        // in use), so waiting here could deadlock two ranks sending to each other from
        // handlers: park the message instead and send it from a later poll.
        outbox_.park(r, id, header, payload);
        return status::ok;
      }
      // Back-pressure: keep draining our own ring while we wait for room in theirs, so two
      // ranks flooding each other cannot deadlock.
      if (!stalled && observe::on()) observe::count_stall();
      stalled = true;
      if (!poll() && ++spins > 64) ::sched_yield();
      if (job_aborting()) std::_Exit(1);
    }
    return status::ok;
  }

  // The barrier of the job's region (barrier.hpp: dissemination, or a central counter when
  // ranks outnumber cores).
  void barrier_arrive() override { barrier_.arrive(); }
  bool barrier_test() override { return barrier_.test(); }
  wait_hint barrier_wait_hint() override { return barrier_.wait_hint(); }
  // Rank 0's choice of barrier, published to all: ranks outnumber cores (or GANNET_BARRIER
  // asked for the central barrier, which the runtime then treats alike).
  bool ranks_outnumber_cores() const override { return barrier_.central(); }

  bool poll() override {
    // Handlers run on messages in place, so the ring cannot be consumed re-entrantly (a
    // handler that sends may come back here).
    if (poll_depth_ > 0) return false;
    bool did = outbox_.size() > 0 && flush_all();
    auto& mine = rings_[static_cast<std::size_t>(me_)];
    ++poll_depth_;
    // A bounded batch: the caller (progress) comes back soon, and a flood from other ranks
    // must not keep one poll running forever.
    did = smp::dispatch_ring(mine, handlers_, 64) || did;
    --poll_depth_;
    // Every 64 polls: often enough that a loaded machine, where each idle poll may give the
    // core away for a time slice, does not make our own observations look stale.
    if (watch_seconds_ > 0 && (++polls_ & 63) == 0) check_attentiveness();
    return did;
  }

  bool one_queue() const override { return true; }
  void exit_arrive() override { header_->exits.fetch_add(1, std::memory_order_acq_rel); }
  bool exit_test() override { return header_->exits.load(std::memory_order_acquire) == static_cast<std::uint32_t>(n_); }

  // One machine: every message travels through a ring, so leaving the outbox is enough.
  bool delivered() override {
    if (outbox_.size() > 0) flush_all();
    return outbox_.size() == 0;
  }
  bool drain_arrived() override {
    if (poll_depth_ > 0) return false;  // inside a handler (cannot happen from the runtime)
    ++poll_depth_;
    const bool did = smp::drain_ring(rings_[static_cast<std::size_t>(me_)], handlers_, [this] { return job_aborting(); });
    --poll_depth_;
    return did;
  }

  void watch_attentiveness(double seconds) override {
    watch_seconds_ = seconds;
    last_check_ = std::chrono::steady_clock::now();
    watch_.clear();
    watched_.assign(static_cast<std::size_t>(n_), 0);
    watch_next_ = 0;
  }
  // RMA is done at injection; messages parked by handlers still need a poll to leave.
  bool progress_required() const override { return outbox_.size() > 0; }

  bool job_aborting() const override {
    return header_->abort.load(std::memory_order_relaxed) != 0;
  }

  // The launcher reads the state when the rank exits: exiting while attached is a failure.
  void attach() override { slots_[me_].state.store(smp::rank_initialized, std::memory_order_release); }
  void detach() override { slots_[me_].state.store(smp::rank_finalized, std::memory_order_release); }

 private:
  std::uintptr_t seg_offset(rank_t r) const {
    return layout_.control_bytes + layout_.seg_stride * static_cast<std::size_t>(r);
  }

  // Publishes this rank's mapping address and waits until every rank has done the same, so
  // that segment() and local_address() can translate addresses of any rank.
  void bootstrap() {
    slots_[me_].region_base.store(reinterpret_cast<std::uintptr_t>(region_), std::memory_order_relaxed);
    slots_[me_].cpu.store(::sched_getcpu(), std::memory_order_relaxed);
    auto& count = header_->boot_count;
    const auto all = static_cast<std::uint32_t>(n_);
    // The last rank to arrive wakes the others, which sleep on the count (a futex shared by
    // the processes): a rank that waits for a thousand others to start does not wake up
    // every few microseconds meanwhile, taking the cores they need to start.
    if (count.fetch_add(1, std::memory_order_acq_rel) + 1 == all) {
      futex(&count, FUTEX_WAKE, INT32_MAX, nullptr);
    } else {
      unsigned spins = 0;
      for (std::uint32_t seen; (seen = count.load(std::memory_order_acquire)) < all;) {
        if (job_aborting()) std::_Exit(1);  // another rank failed; the launcher reports it
        if (++spins < 64) continue;
        // A timeout, to notice a failed job (its abort flag wakes nobody).
        timespec tick{0, 50'000'000};
        futex(&count, FUTEX_WAIT, seen, &tick);
      }
    }
    // Acquire above pairs with rank 0's acq_rel count, which follows its store of the choice.
    barrier_ = smp::region_barrier(region_, layout_, me_, n_,
                                   header_->barrier_central.load(std::memory_order_relaxed) != 0);
    owner_base_.resize(static_cast<std::size_t>(n_));
    delta_.resize(static_cast<std::size_t>(n_));
    auto mine = reinterpret_cast<std::uintptr_t>(region_);
    for (int r = 0; r < n_; ++r) {
      owner_base_[r] = slots_[r].region_base.load(std::memory_order_acquire);
      delta_[r] = mine - owner_base_[r];  // unsigned wrap-around is the intended arithmetic
    }
  }

  int me_ = 0, n_ = 1;
  std::size_t heap_bytes_ = 0, region_bytes_ = 0;
  void* region_ = nullptr;
  smp::job_layout layout_{};
  smp::job_header* header_ = nullptr;
  smp::rank_slot* slots_ = nullptr;
  std::vector<rank_t> local_;
  std::vector<smp::ring> rings_;
  am_handler handlers_[max_am_handlers] = {};
  int poll_depth_ = 0;

  // Attentiveness watch (debug codemode): for each peer we have sent to, its ring's head
  // when we last saw it move, and when. A check looks at a bounded number of them in turn,
  // so it costs the same whatever the job's size or the number of peers we talk to.
  struct watch_state {
    std::uint64_t head = 0;
    std::chrono::steady_clock::time_point since{};
    bool reported = false;
  };
  double watch_seconds_ = 0;
  std::chrono::steady_clock::time_point last_check_{};
  std::uint64_t polls_ = 0;
  struct watched_peer {
    rank_t rank;
    watch_state state;
  };
  std::vector<watched_peer> watch_;     // peers we have sent to, in order of first contact
  std::vector<std::uint8_t> watched_;  // per rank: in watch_ (one byte per peer)
  std::size_t watch_next_ = 0;         // where the next check starts

  void check_attentiveness() {
    auto now = std::chrono::steady_clock::now();
    // Our own observations are only evidence if we kept making them: after a pause of our
    // own (we were computing, or asleep) start watching afresh.
    bool stale = std::chrono::duration<double>(now - last_check_).count() > watch_seconds_ / 2;
    last_check_ = now;
    constexpr std::size_t per_check = 16;
    for (std::size_t k = 0; k < per_check && k < watch_.size(); ++k) {
      if (watch_next_ >= watch_.size()) watch_next_ = 0;
      util::count_peer_visit();
      auto& [r, w] = watch_[watch_next_++];
      auto& q = rings_[static_cast<std::size_t>(r)];
      std::uint64_t head = q.head(), tail = q.tail();
      if (stale || tail == head || head != w.head) {  // no evidence, nothing waiting, or consumed
        w.head = head;
        w.since = now;
        continue;
      }
      if (w.reported || std::chrono::duration<double>(now - w.since).count() < watch_seconds_) continue;
      w.reported = true;
      util::warn("rank %d has left incoming messages (RPCs) unprocessed for %.0f s: it is not making progress. "
                 "RPCs run only inside calls that make user-level progress (upcxx::progress(), wait(), barrier()); "
                 "have rank %d call upcxx::progress() regularly during long computations. (Reported once; debug "
                 "codemode.)",
                 r, watch_seconds_, r);
    }
  }

  // Messages sent from inside handlers while the destination ring was full.
  outboxes outbox_;

  bool try_send(rank_t r, am_handler_id id, std::span<const std::byte> header, std::span<const std::byte> payload) {
    auto& q = rings_[static_cast<std::size_t>(r)];
    if (!q.try_send(me_, id, header.data(), static_cast<std::uint32_t>(header.size()), payload.data(),
                    static_cast<std::uint32_t>(payload.size())))
      return false;
    if (watch_seconds_ > 0 && r != me_ && !watched_[static_cast<std::size_t>(r)]) [[unlikely]] {
      watched_[static_cast<std::size_t>(r)] = 1;
      watch_.push_back(watched_peer{r, watch_state{q.head(), std::chrono::steady_clock::now(), false}});
    }
    return true;
  }
  bool send_parked(rank_t r, const outboxes::message& m) { return try_send(r, m.id, m.header(), m.payload()); }
  // Sends what waits for r while its ring has room; true if nothing waits for r any more.
  bool outbox_drained(rank_t r) {
    return outbox_.drain(r, [this](rank_t to, const outboxes::message& m) { return send_parked(to, m); });
  }
  bool flush_all() {
    return outbox_.drain_all([this](rank_t to, const outboxes::message& m) { return send_parked(to, m); });
  }
  std::vector<std::uintptr_t> owner_base_, delta_;
  smp::region_barrier barrier_;
};

}  // namespace

std::unique_ptr<transport> make_smp() { return std::make_unique<smp_transport>(); }

bool smp_job_present() { return std::getenv(smp::env_job_fd) != nullptr; }

}  // namespace gannet::transport
