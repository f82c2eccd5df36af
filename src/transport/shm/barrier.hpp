// The barrier of ranks that share one job region (job.hpp): every rank of an smp job, or the
// ranks of one machine under the MPI transport. Two algorithms, chosen once for the region
// (every rank of it must use the same one):
//  - Dissemination (Hensgen, Finkel & Manber) when every rank has a core: in round k rank i
//    signals rank (i + 2^k) mod n and waits for rank (i - 2^k) mod n. ceil(log2 n) rounds,
//    each flag has a single writer, and epochs only grow, so nothing is ever reset.
//  - A central counter when ranks outnumber cores: then every barrier costs context switches
//    (a waiting rank must yield its core to a rank that has not arrived), and a rank that
//    needs a partner to run between its rounds costs more of them than a single round. Each
//    rank adds one arrival; the rank whose arrival completes barrier e (arrivals == e * n)
//    publishes e.
// Completion is a full release/acquire fence among the region's ranks.
//
// The floor: with 4 ranks on 2 cores a barrier needs at least one context switch per core,
// so no barrier gets near a cache-line round trip there. bench/foundation.cpp measures it
// beside the library: plain_barrier (the same processes meeting through one shared atomic
// counter, no library, waiting with a yield), aware_barrier (that counter with the
// spin-or-yield rule of wait_hint() below) and yield_handover (one context switch between two
// processes on one core, 1.1-1.6 us on the development VM). Yielding at every idle poll gave
// about two switches per core per barrier: a rank that had arrived gave its core back and
// forth to a neighbour, also arrived, while both waited for the other core.
#pragma once

#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "transport/shm/job.hpp"
#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/traffic.hpp"

namespace gannet::smp {

class region_barrier {
 public:
  region_barrier() = default;
  // `me` and `n` index the region's ranks (0..n-1), not necessarily the job's.
  region_barrier(void* region, const job_layout& layout, int me, int n, bool central)
      : region_(region), layout_(layout), header_(header_of(region)), slots_(slots_of(region, layout)),
        me_(me), n_(n), central_(central) {
    while ((1 << rounds_) < n_) ++rounds_;
  }

  bool central() const { return central_; }

  void arrive() {
    ++epoch_;
    round_ = 0;
    signalled_ = false;
    if (central_) {
      auto& mine = slots_[me_];
      mine.cpu.store(::sched_getcpu(), std::memory_order_relaxed);
      mine.barrier_epoch.store(epoch_, std::memory_order_relaxed);
      first_missing_ = 0;
      // acq_rel: our writes before the barrier are released to whoever completes it, and
      // the completer acquires every arrival's writes before publishing.
      std::uint64_t arrived = header_->barrier_arrivals.fetch_add(1, std::memory_order_acq_rel) + 1;
      util::count_signal();
      if (arrived == epoch_ * static_cast<std::uint64_t>(n_)) {
        header_->barrier_done.store(epoch_, std::memory_order_release);
        util::count_signal();
      }
    }
  }

  bool test() {
    if (central_) return header_->barrier_done.load(std::memory_order_acquire) >= epoch_;
    while (round_ < rounds_) {
      if (!signalled_) {
        int partner = (me_ + (1 << round_)) % n_;
        // Release: our writes before the barrier are visible to the partner once it
        // observes the epoch (and, transitively, to everyone after the last round).
        flag_of(region_, layout_, partner, round_)->epoch.store(epoch_, std::memory_order_release);
        util::count_signal();
        signalled_ = true;
      }
      // Acquire: pairs with the release above in the rank that signals us.
      if (flag_of(region_, layout_, me_, round_)->epoch.load(std::memory_order_acquire) < epoch_) return false;
      ++round_;
      signalled_ = false;
    }
    return true;
  }

  // Central barrier only (ranks outnumber cores): a rank that has not arrived and last ran
  // on our CPU is queued behind us, so spinning only delays it by a time slice; if every
  // missing rank runs on another core, spinning notices the end a context switch sooner
  // than yielding would (4 ranks on 2 cores: one switch per core per barrier instead of
  // two). A call looks at no more than `window` slots from the first rank not known to have
  // arrived, so a poll costs the same at 4 and at 4096 ranks; when it cannot see every
  // missing rank it answers `any` (the runtime then yields as ranks outnumber cores).
  transport::transport::wait_hint wait_hint() {
    using hint = transport::transport::wait_hint;
    if (!central_) return hint::any;
    constexpr int window = 8;
    int const cpu = ::sched_getcpu();
    auto& mine = slots_[me_];
    if (mine.cpu.load(std::memory_order_relaxed) != cpu) mine.cpu.store(cpu, std::memory_order_relaxed);
    int r = first_missing_;
    for (int seen = 0; r < n_ && seen < window; ++r, ++seen) {
      if (slots_[r].barrier_epoch.load(std::memory_order_relaxed) >= epoch_) {
        if (r == first_missing_) ++first_missing_;
      } else if (slots_[r].cpu.load(std::memory_order_relaxed) == cpu) {
        return hint::yield;
      }
    }
    return r >= n_ ? hint::spin : hint::any;
  }

  std::uint64_t epoch() const { return epoch_; }

 private:
  void* region_ = nullptr;
  job_layout layout_{};
  job_header* header_ = nullptr;
  rank_slot* slots_ = nullptr;
  int me_ = 0, n_ = 1, rounds_ = 0;
  std::uint64_t epoch_ = 0;
  int round_ = 0;
  int first_missing_ = 0;  // central barrier: ranks below it have arrived at epoch_
  bool signalled_ = false;
  bool central_ = false;
};

// The cores this process may run on (its affinity mask), at least 1.
inline int available_cores() {
  cpu_set_t set;
  int cores = 0;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  return cores > 0 ? cores : 1;
}

// The barrier for `ranks` ranks on this machine that may run on `cores` cores between them:
// central when they outnumber the cores. GANNET_BARRIER=central|dissemination overrides the
// choice (tests run both anywhere). One rank chooses for the region and publishes it.
inline bool choose_central_barrier(int ranks, int cores) {
  bool central = ranks > cores;
  if (const char* b = std::getenv("GANNET_BARRIER"); b && *b) {
    if (std::strcmp(b, "central") == 0) central = true;
    else if (std::strcmp(b, "dissemination") == 0) central = false;
    else util::fatal("GANNET_BARRIER='%s': expected 'central' or 'dissemination'", b);
  }
  return central;
}

}  // namespace gannet::smp
