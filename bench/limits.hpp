// Physical limits of the machine, measured with plain C++ and no library.
//
// Every Gannet benchmark states its result as a ratio to one of these figures,
// measured in the same run: the machine is small (2 cores) and shared, and
// absolute figures swing up to 3x between launches, so a ratio against a limit
// taken side by side is the only comparison that means something.
//
// Header-only so that any benchmark can include it and call
// print_limits_header() before its own rows.  Linux/POSIX only (fork, mmap).
//
// Method: each measurement runs `repeats` times; each repeat times, with
// std::chrono::steady_clock, a loop calibrated to take about `target_ms`.  We
// report the minimum (the figure least disturbed by other work on the machine)
// and the median (how typical the minimum is) of the per-operation time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gannet::bench {

// Result of one measurement, in nanoseconds per operation.
struct stats {
  double min_ns = 0;
  double median_ns = 0;
  int repeats = 0;
  std::uint64_t ops = 0;    // operations timed in each repeat
  std::size_t bytes = 0;    // bytes moved per operation; 0 when bandwidth is meaningless

  // GB/s = 10^9 bytes copied per second (size / time, not read + write
  // traffic), the convention of the reference figures.
  double min_gbps() const { return bytes && min_ns > 0 ? double(bytes) / min_ns : 0; }
  double median_gbps() const { return bytes && median_ns > 0 ? double(bytes) / median_ns : 0; }
};

struct options {
  int repeats = 15;
  // Each repeat runs about this long: long enough that clock overhead and
  // timer granularity vanish, short enough that 15 repeats of all limits stay
  // well under the 5 s budget, and that a repeat often fits between two
  // preemptions on a busy machine (which is what makes the minimum clean).
  double target_ms = 8.0;
};

namespace detail {

inline double elapsed_ns(std::chrono::steady_clock::time_point t0,
                         std::chrono::steady_clock::time_point t1) {
  return std::chrono::duration<double, std::nano>(t1 - t0).count();
}

inline double median_of(std::vector<double> v) {  // by value: sorts a copy
  std::sort(v.begin(), v.end());
  std::size_t const m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace detail

// Times `body(n)`, which runs about n operations and returns how many it
// actually ran (a body may round n up to whole passes, or count two half
// round trips per iteration).  Calibrates n so that one repeat takes about
// opt.target_ms, then runs opt.repeats timed repeats.  Usable by any benchmark.
template <class Body>
stats measure(Body&& body, options const& opt = {}) {
  using clock = std::chrono::steady_clock;
  double const target_ns = opt.target_ms * 1e6;

  auto time_body = [&body](std::uint64_t n) {
    auto const t0 = clock::now();
    body(n);
    auto const t1 = clock::now();
    return detail::elapsed_ns(t0, t1);
  };

  // Calibration: double n until a run takes at least 1/8 of the target, then
  // scale n to the target.  Each step takes the faster of two runs: a
  // preemption during calibration would otherwise stop the doubling early
  // and leave every repeat far too short (seen on this 2-core machine with
  // other work running).  These runs also warm caches, TLB and branch
  // predictors and fault in the memory the body touches, so the timed
  // repeats see none of that.  Time is per unit of n (not per operation
  // body() reports), so the scaled n is in the units body() takes.
  std::uint64_t n = 1;
  double t = 0;
  for (;;) {
    t = std::min(time_body(n), time_body(n));
    if (t >= target_ns / 8 || n >= (std::uint64_t(1) << 40)) break;
    n *= 2;
  }
  double const per_n_ns = t / double(n);
  n = std::max<std::uint64_t>(1, std::uint64_t(target_ns / std::max(per_n_ns, 1e-3)));

  std::vector<double> samples;
  samples.reserve(std::size_t(std::max(opt.repeats, 1)));
  std::uint64_t ops = 0;
  for (int r = 0; r < std::max(opt.repeats, 1); ++r) {
    auto const t0 = clock::now();
    ops = body(n);
    auto const t1 = clock::now();
    samples.push_back(detail::elapsed_ns(t0, t1) / double(ops ? ops : 1));
  }

  stats s;
  s.min_ns = *std::min_element(samples.begin(), samples.end());
  s.median_ns = detail::median_of(samples);
  s.repeats = int(samples.size());
  s.ops = ops;
  return s;
}

// ---------------------------------------------------------------------------
// 8-byte store loop over a 32 KiB array (fits in L1d): the cost of the
// cheapest possible write to local memory.
inline stats store_8b(options const& opt = {}) {
  constexpr std::size_t array_bytes = 32 * 1024;
  constexpr std::size_t words = array_bytes / sizeof(std::uint64_t);
  constexpr std::size_t unroll = 8;
  static_assert(words % unroll == 0);

  // Heap, 64-byte aligned, so that no store straddles a cache line.
  struct free_deleter {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, free_deleter> mem(std::aligned_alloc(64, array_bytes));
  if (!mem) throw std::bad_alloc();
  std::memset(mem.get(), 0, array_bytes);

  // volatile: every store is emitted, as one 8-byte mov, in program order.
  // Without it the compiler may drop stores it can prove are overwritten, or
  // merge them into 16/32/64-byte vector stores, which would measure
  // something other than an 8-byte store.  volatile itself costs nothing at
  // run time: it only constrains the compiler.
  auto* const p = static_cast<std::uint64_t volatile*>(mem.get());

  auto body = [p](std::uint64_t n) -> std::uint64_t {
    std::uint64_t const passes = (n + words - 1) / words;
    for (std::uint64_t pass = 0; pass < passes; ++pass) {
      // Manually unrolled: the compiler does not unroll volatile loops, and
      // with one store per iteration the loop counter and branch would eat
      // issue slots the store port could use (artificially slow).
      for (std::size_t i = 0; i < words; i += unroll) {
        p[i + 0] = pass;
        p[i + 1] = pass;
        p[i + 2] = pass;
        p[i + 3] = pass;
        p[i + 4] = pass;
        p[i + 5] = pass;
        p[i + 6] = pass;
        p[i + 7] = pass;
      }
    }
    return passes * words;
  };
  return measure(body, opt);
}

// ---------------------------------------------------------------------------
// Cross-process cache-line ping-pong through shared memory: the latency floor
// for any on-node one-sided notification between two ranks (processes).

namespace detail {

// Two flags, each on its own cache line.  They sit 128 bytes apart rather
// than 64: Intel's adjacent-line (spatial) prefetcher fetches lines in
// 128-byte pairs, so 64 bytes apart they would still interfere.
struct pingpong_page {
  alignas(128) std::atomic<std::uint64_t> ping{0};  // written by the parent only
  alignas(128) std::atomic<std::uint64_t> pong{0};  // written by the child only
};
// The flags are shared between processes: only lock-free atomics are
// guaranteed to work there (a lock-based atomic would use a process-local lock).
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

// Sent as `ping` to tell the child to exit.
inline constexpr std::uint64_t pingpong_stop = ~std::uint64_t(0);

// Spin iterations before a waiter yields the CPU.  Tens of microseconds: far
// above a healthy round trip (tens of ns), so yielding never touches a clean
// sample, but it keeps a preempted partner from costing a whole time slice
// when the two processes share one core (2-core machine, other work running).
inline constexpr unsigned spin_before_yield = 1u << 15;

[[noreturn]] inline void pingpong_child(pingpong_page* page, pid_t parent) {
  // Die with the parent: if the parent is killed mid-measurement nobody will
  // ever send `pingpong_stop`, and an orphan would spin forever.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // parent died before prctl took effect

  std::uint64_t last = 0;
  for (;;) {
    std::uint64_t v;
    unsigned spins = 0;
    // acquire: pairs with the parent's release store of `ping`.  The flag
    // carries no payload here, but a real notification publishes data before
    // it, and acquire is what the receiver of such a flag must pay; on x86
    // it is a plain load anyway.
    while ((v = page->ping.load(std::memory_order_acquire)) == last) {
      if (++spins == spin_before_yield) {
        spins = 0;
        if (::getppid() != parent) ::_exit(1);
        ::sched_yield();
      }
    }
    if (v == pingpong_stop) ::_exit(0);  // _exit: never run the parent's atexit handlers or flush its stdio buffers
    last = v;
    // release: the reply would publish the child's data to the parent.
    page->pong.store(v, std::memory_order_release);
  }
}

// Owns the shared page and the child; the destructor always stops and reaps
// the child, also when a measurement throws.
class pingpong_pair {
 public:
  pingpong_pair() {
    // MAP_SHARED|MAP_ANONYMOUS before fork: the child inherits the mapping,
    // and unlike shm_open nothing is ever left behind in /dev/shm.
    void* mem = ::mmap(nullptr, sizeof(pingpong_page), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw_errno("mmap");
    page_ = new (mem) pingpong_page();

    pid_t const parent = ::getpid();
    child_ = ::fork();
    if (child_ < 0) {
      int const e = errno;
      ::munmap(mem, sizeof(pingpong_page));
      errno = e;
      throw_errno("fork");
    }
    if (child_ == 0) pingpong_child(page_, parent);  // never returns
  }

  pingpong_pair(pingpong_pair const&) = delete;
  pingpong_pair& operator=(pingpong_pair const&) = delete;

  ~pingpong_pair() {
    // release: orders nothing in particular, but keeps every store to the
    // page in the same style; the child reads it with acquire.
    page_->ping.store(pingpong_stop, std::memory_order_release);
    reap();
    ::munmap(page_, sizeof(pingpong_page));
  }

  // n round trips; returns the number of half round trips.
  std::uint64_t run(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t const seq = ++seq_;
      // release: in a real exchange this publishes the message written just
      // before the flag; pairs with the child's acquire load.
      page_->ping.store(seq, std::memory_order_release);
      unsigned spins = 0;
      // acquire: pairs with the child's release store of `pong`.  No pause
      // instruction in the spin: one pause takes ~23 ns on this CPU (more on
      // Skylake-SP), the same order as the 32-45 ns floor of a well-placed
      // pair of cores, so it could hide part of the latency we measure.
      while (page_->pong.load(std::memory_order_acquire) != seq) {
        if (++spins == spin_before_yield) {
          spins = 0;
          check_child_alive();
          ::sched_yield();
        }
      }
    }
    return 2 * n;
  }

 private:
  [[noreturn]] static void throw_errno(char const* what) {
    throw std::runtime_error(std::string("pingpong: ") + what + ": " + std::strerror(errno));
  }

  void check_child_alive() {
    int status = 0;
    pid_t const r = ::waitpid(child_, &status, WNOHANG);
    if (r == child_ || (r < 0 && errno == ECHILD)) {
      child_ = -1;  // already reaped (or reaped by someone else)
      throw std::runtime_error("pingpong: child process died");
    }
  }

  void reap() noexcept {
    if (child_ <= 0) return;
    // Give the child up to ~1 s to see the stop flag (it may be preempted),
    // then kill it: in no case may the child outlive this object.
    for (int i = 0; i < 1000; ++i) {
      int status = 0;
      pid_t const r = ::waitpid(child_, &status, WNOHANG);
      if (r == child_ || (r < 0 && errno != EINTR)) {  // reaped, or ECHILD (SIGCHLD ignored)
        child_ = -1;
        return;
      }
      timespec const ms{0, 1000000};
      ::nanosleep(&ms, nullptr);
    }
    ::kill(child_, SIGKILL);
    int status = 0;
    while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
    child_ = -1;
  }

  pingpong_page* page_ = nullptr;
  pid_t child_ = -1;
  std::uint64_t seq_ = 0;  // parent-private; 0 is the flags' initial value, never sent
};

}  // namespace detail

// Nanoseconds per half round trip (one one-way notification).
inline stats pingpong_half_rtt(options const& opt = {}) {
  detail::pingpong_pair pair;
  return measure([&pair](std::uint64_t n) { return pair.run(n); }, opt);
}

// ---------------------------------------------------------------------------
// Core handover: two processes pinned to one CPU take turns through a shared counter,
// each yielding the CPU (sched_yield) until it is its turn. One operation is one turn,
// i.e. one context switch: the floor for any wait in which a rank must let another rank
// that shares its core run (more ranks than cores).
inline stats yield_handover(options const& opt = {}) {
  void* mem = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::runtime_error(std::string("yield_handover: mmap: ") + std::strerror(errno));
  auto* turn = new (mem) std::atomic<std::uint64_t>(0);  // even: parent's turn, odd: child's
  cpu_set_t one;
  CPU_ZERO(&one);
  int cpu = ::sched_getcpu();
  CPU_SET(cpu < 0 ? 0 : cpu, &one);
  cpu_set_t before;
  ::sched_getaffinity(0, sizeof before, &before);
  ::sched_setaffinity(0, sizeof one, &one);
  pid_t const parent = ::getpid();
  pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    for (;;) {
      std::uint64_t v;
      while ((v = turn->load(std::memory_order_acquire)) % 2 == 0) ::sched_yield();
      if (v == ~std::uint64_t(0)) ::_exit(0);
      turn->store(v + 1, std::memory_order_release);
    }
  }
  stats r{};
  if (child > 0) {
    r = measure(
        [turn](std::uint64_t n) {
          for (std::uint64_t i = 0; i < n; ++i) {
            turn->fetch_add(1, std::memory_order_acq_rel);  // odd: the child's turn
            while (turn->load(std::memory_order_acquire) % 2 != 0) ::sched_yield();
          }
          return 2 * n;  // two handovers per exchange
        },
        opt);
    turn->store(~std::uint64_t(0), std::memory_order_release);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::sched_setaffinity(0, sizeof before, &before);
  ::munmap(mem, 4096);
  if (child < 0) throw std::runtime_error(std::string("yield_handover: fork: ") + std::strerror(errno));
  return r;
}

// ---------------------------------------------------------------------------
// memcpy of `size` bytes, called out of line: the floor for copying a
// payload, and for the 8-byte case the cost of a library call that moves it.
inline stats memcpy_ns(std::size_t size, options const& opt = {}) {
  // Called through a volatile function pointer: the compiler cannot see
  // which function it calls, so an 8-byte copy stays a real call instead of
  // being inlined into a single mov (and no copy can be elided, since the
  // buffers escape into an unknown function).
  static void* (*volatile const copy_fn)(void*, void const*, std::size_t) = &std::memcpy;

  struct free_deleter {
    void operator()(void* p) const { std::free(p); }
  };
  // 64-byte aligned, rounded up to a whole line (aligned_alloc's rule): the
  // usual case for a payload buffer.
  std::size_t const alloc = (std::max<std::size_t>(size, 1) + 63) / 64 * 64;
  std::unique_ptr<void, free_deleter> src(std::aligned_alloc(64, alloc));
  std::unique_ptr<void, free_deleter> dst(std::aligned_alloc(64, alloc));
  if (!src || !dst) throw std::bad_alloc();
  // Touch both so page faults are not timed.
  std::memset(src.get(), 0x5a, alloc);
  std::memset(dst.get(), 0, alloc);

  void* const d = dst.get();
  void const* const s = src.get();
  auto body = [d, s, size](std::uint64_t n) -> std::uint64_t {
    for (std::uint64_t i = 0; i < n; ++i) copy_fn(d, s, size);
    return n;
  };
  stats r = measure(body, opt);
  r.bytes = size;
  return r;
}

// ---------------------------------------------------------------------------
// Output: one machine-readable row per figure, `key=value` fields,
//   limit store_8b min_ns=0.712 median_ns=0.741 repeats=15 ops=... unit=store
// `unit` names what one operation is; `kind` is the first word, so other
// benchmarks can print their own rows in the same format.
inline void print_row(std::string_view name, stats const& s, std::string_view unit = "op",
                      std::string_view kind = "limit", std::FILE* out = stdout) {
  std::fprintf(out, "%.*s %.*s min_ns=%.3f median_ns=%.3f repeats=%d ops=%llu unit=%.*s",
               int(kind.size()), kind.data(), int(name.size()), name.data(), s.min_ns,
               s.median_ns, s.repeats, static_cast<unsigned long long>(s.ops), int(unit.size()),
               unit.data());
  if (s.bytes) std::fprintf(out, " min_gbps=%.2f median_gbps=%.2f", s.min_gbps(), s.median_gbps());
  std::fputc('\n', out);
}

// All limits, for benchmarks that compute ratios against them.
struct limits {
  stats store_8b;
  stats pingpong_half_rtt;
  stats memcpy_8b;
  stats memcpy_4k;
  stats memcpy_1m;
};

inline limits measure_limits(options const& opt = {}) {
  limits l;
  l.store_8b = store_8b(opt);
  l.pingpong_half_rtt = pingpong_half_rtt(opt);
  l.memcpy_8b = memcpy_ns(8, opt);
  l.memcpy_4k = memcpy_ns(4096, opt);
  l.memcpy_1m = memcpy_ns(1 << 20, opt);
  return l;
}

inline void print_limits(limits const& l, std::FILE* out = stdout) {
  print_row("store_8b", l.store_8b, "store", "limit", out);
  print_row("pingpong_half_rtt", l.pingpong_half_rtt, "half_rtt", "limit", out);
  print_row("memcpy_8b", l.memcpy_8b, "copy", "limit", out);
  print_row("memcpy_4k", l.memcpy_4k, "copy", "limit", out);
  print_row("memcpy_1m", l.memcpy_1m, "copy", "limit", out);
}

// Measures and prints every limit; returns them for ratio computations.
// Flushes before measuring so the caller's earlier output is not held back
// for the ~1 s the measurements take.
inline limits print_limits_header(options const& opt = {}, std::FILE* out = stdout) {
  std::fflush(out);
  limits const l = measure_limits(opt);
  print_limits(l, out);
  std::fflush(out);
  return l;
}

// For benchmarks run under gannet-run: rank 0 (or a process started without the launcher)
// measures and prints the limits before upcxx::init, while the other ranks wait in init's
// bootstrap, which sleeps, so they leave the cores free. Other ranks get zeros.
// Whether this process is rank 0 (or was started without a launcher), before init.
inline bool is_first_rank() {
  // gannet-run's rank variable, else mpirun's (Open MPI, then PMI launchers such as MPICH's).
  const char* rank = std::getenv("GANNET_RANK");
  if (!rank) rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  return !rank || std::atoi(rank) == 0;
}

inline limits print_limits_on_first_rank() { return is_first_rank() ? print_limits_header() : limits{}; }

}  // namespace gannet::bench
