// Library state: init/finalize (spec chapter 2), the peer table behind global_ptr, progress,
// world()/local_team() and barrier(). The runtime talks to the engine only through
// transport::transport (src/transport/transport.hpp) and never names a concrete transport.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <atomic>
#include <mutex>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "gannet/exchange.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/init.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/say.hpp"
#include "upcxx/team.hpp"
#include "util/crash.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"
#include "util/size_parse.hpp"

namespace upcxx::detail {
const peer_view g_no_peers[1] = {{0, false}};
runtime_state g_state;
void barrier_unchecked(const team& t);  // barrier() without the debug-codemode caller checks
void drain_after_barrier();             // progress.cpp
void team_barrier(const team& t);       // src/coll/team.cpp: any team
bool debug_checks_enabled();
}

namespace gannet::coll {
void coll_attach();       // src/coll/coll.cpp
void finalize_barrier();  // src/coll/team.cpp
}
namespace gannet::runtime {
void atomics_attach();  // atomics.cpp
}

namespace gannet::runtime {
namespace {

// Crash reports from the start of main() (util/crash.hpp), so that a call made before
// init() that faults still says where, and why.
const char* crash_note() {
  return upcxx::detail::g_state.init_count == 0
             ? "note: UPC++ was not initialized when this happened: a call before upcxx::init() or after "
               "upcxx::finalize()? Built in debug codemode (upcxx -g), such a call is reported with its file and line"
             : nullptr;
}
[[maybe_unused]] const bool g_crash_reports = [] {
  util::set_crash_note(crash_note);
  util::install_crash_handlers();
  return true;
}();

constexpr std::size_t default_heap_bytes = 128ull << 20;
// The first bytes of every segment are runtime scratch (gannet::all_gather); the heap
// allocator manages the rest.
constexpr std::size_t scratch_bytes = transport::runtime_reserve_bytes;
static_assert(gannet::all_gather_max_bytes + coll_scratch_bytes <= notify_ring_offset);
// (notify.cpp checks that its area fits between notify_ring_offset and the reserve's end.)

struct runtime {
  // The transport outlives finalize so that a later init() reuses the same job (spec §2.1
  // allows re-initialization); it is destroyed at process exit.
  std::unique_ptr<transport::transport> tp;
  std::vector<upcxx::detail::peer_view> peers;
  // The segments this process can address, by their address here, ascending (for
  // to_global_ptr: which rank's segment holds a pointer, in O(log P)).
  struct local_segment {
    std::uintptr_t lo, hi;
    upcxx::intrank_t rank;
  };
  std::vector<local_segment> local_segments;
  std::optional<heap_allocator> heap;
  std::optional<upcxx::team> world;
  std::optional<upcxx::team> local;
  std::size_t heap_bytes = 0;
  std::byte* scratch = nullptr;  // this rank's scratch area (start of its segment)
  // From the start of experimental::destroy_heap to restore_heap: allocation returns null.
  std::atomic<bool> heap_destroyed{false};
  std::mutex say_mutex;
};

runtime& rt() {
  static runtime r;
  return r;
}

std::size_t heap_size_from_env() {
  const char* name = "GANNET_SHARED_HEAP_SIZE";  // set by gannet-run --mpi from its option
  const char* gv = std::getenv(name);
  std::string text = gv && *gv ? std::string(gv) : util::upcxx_heap_from_env(&name);
  if (!text.empty()) {
    std::string why;
    auto spec = util::parse_size(text, &why);
    if (!spec) util::fatal("%s='%s' is not a valid size: %s", name, std::getenv(name), why.c_str());
    // A percentage is of the machine's memory, shared by its ranks (gannet-run resolves it
    // before starting them; under mpirun each rank divides by the launcher's local size).
    return util::resolve_size(*spec, transport::launcher_local_ranks());
  }
  return default_heap_bytes;
}

// Spin-then-yield: with more ranks than cores (4 ranks on 2 cores in CI) a pure spin would
// burn the time slice the rank we wait for needs.
struct backoff {
  unsigned spins = 0;
  void pause() {
    if (++spins < spin_limit()) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      ::sched_yield();
    }
  }
};

}  // namespace

transport::transport* g_transport = nullptr;

unsigned g_spin_limit = 64;

// With more ranks than cores on this machine (4 ranks on 2 cores in CI), a rank that spins
// only delays the rank it waits for, which needs the core: yield almost at once.
void choose_spin_limit(int local_ranks, int cores) { g_spin_limit = (cores > 0 && local_ranks > cores) ? 1 : 64; }

std::atomic<bool> g_thread_safe{false};
bool g_initializing = false;
namespace {
std::recursive_mutex g_big_lock;
}  // namespace

void enable_thread_safety() { g_thread_safe.store(true, std::memory_order_relaxed); }

namespace {
thread_local int t_lock_levels = 0;  // how many runtime_locks this thread holds
}

void big_lock() {
  g_big_lock.lock();
  ++t_lock_levels;
}
void big_unlock() {
  --t_lock_levels;
  g_big_lock.unlock();
}

int unlock_all_levels() {
  const int levels = t_lock_levels;
  for (int i = 0; i < levels; ++i) g_big_lock.unlock();
  t_lock_levels = 0;
  return levels;
}
void relock_levels(int levels) {
  for (int i = 0; i < levels; ++i) g_big_lock.lock();
  t_lock_levels = levels;
}
heap_allocator& my_heap() { return *rt().heap; }

// ---- the transport's barrier over world, shared in collective order ----
// barrier() and the world collectives that synchronise through the transport's barrier
// (collectives.hpp: barrier_async and small reduce_all on a team of local ranks) queue here
// in the order the rank calls them, which is the same order on every rank (spec 12.1): one
// transport barrier at a time, the next arriving once the previous has completed and its
// user has been told.
namespace {
// A ring of users: no allocation per barrier, a few instructions to queue and to pop.
class barrier_queue {
 public:
  bool empty() const { return count_ == 0; }
  world_barrier_user& front() { return ring_[head_]; }
  void push_back(const world_barrier_user& u) {
    if (count_ == ring_.size()) grow();
    ring_[(head_ + count_) & (ring_.size() - 1)] = u;
    ++count_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
  }

 private:
  void grow() {
    std::vector<world_barrier_user> bigger(ring_.size() * 2);
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
  }
  std::vector<world_barrier_user> ring_ = std::vector<world_barrier_user>(16);  // a power of two
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};
barrier_queue g_wb_queue;
bool g_wb_in_flight = false;
// barrier()'s own arrival is in flight (nothing was queued): barrier() tests it itself, once
// per pass, and progress leaves it alone (a second test per pass, another read of the line
// the partner is about to write, slowed a 2-rank barrier by a quarter).
bool g_wb_direct = false;
// After every change of the two above.
void wb_update() { g_wb_queued = !g_wb_direct && !g_wb_queue.empty(); }
}  // namespace
bool g_wb_queued = false;

bool world_barrier_begin_direct() {
  if (!g_wb_queue.empty()) return false;
  rpc_flush();  // batched calls leave before we arrive (see world_barrier_poll)
  rt().tp->barrier_arrive();
  g_wb_direct = true;
  wb_update();
  return true;
}

void world_barrier_end_direct() {
  g_wb_direct = false;
  wb_update();
  world_barrier_poll();  // collectives queued meanwhile (from callbacks) arrive next
}

void world_barrier_enqueue(world_barrier_user u) {
  g_wb_queue.push_back(u);
  wb_update();
}

bool world_barrier_poll() {
  if (g_wb_direct || g_wb_queue.empty()) return false;
  auto& tp = *rt().tp;
  bool did = false;
  for (;;) {
    if (g_wb_in_flight) {
      if (!tp.barrier_test()) return did;
      g_wb_in_flight = false;
      const world_barrier_user u = g_wb_queue.front();
      g_wb_queue.pop_front();
      wb_update();
      barrier_completed();  // progress drains what arrived before its callbacks (runtime.hpp)
      u.done(u.ctx);
      did = true;
    }
    if (g_wb_queue.empty()) return did;
    const world_barrier_user& next = g_wb_queue.front();
    if (next.arrive) next.arrive(next.ctx);
    // Batched calls leave before we arrive: a barrier that is already complete returns
    // without a progress call, and finalize() detaches right after its barrier.
    rpc_flush();
    tp.barrier_arrive();
    g_wb_in_flight = true;
    did = true;
  }
}

std::byte* notify_ring_area(int rank) {
  auto& r = rt();
  if (rank == r.tp->rank_me()) return r.scratch + notify_ring_offset;
  auto seg = r.tp->segment(rank);
  auto* base = static_cast<std::byte*>(r.tp->local_address(rank, seg.base));
  return base ? base + notify_ring_offset : nullptr;
}

std::byte* coll_scratch(int rank) {
  auto& r = rt();
  auto seg = r.tp->segment(rank);
  auto* base = static_cast<std::byte*>(r.tp->local_address(rank, seg.base));
  return base ? base + gannet::all_gather_max_bytes : nullptr;
}

void wait_until_aborting_or(bool (*done)(void*), void* arg, upcxx::progress_level level) {
  auto& r = rt();
  backoff b;
  while (!done(arg)) {
    hang_tick(progress_pass(level));
    if (r.tp->job_aborting()) std::_Exit(1);  // the launcher is ending the job
    b.pause();
  }
}

}  // namespace gannet::runtime

namespace upcxx {

void runtime_push_master_persona();  // progress.cpp

using gannet::runtime::rt;

namespace {
bool g_debug_checks = false;  // the program was compiled in debug codemode

// Returning from main without finalize() (docs/compatibility.md): UPC++ programs do it, and
// UPC++ ends such a job normally. Run by exit() with its status (glibc on_exit). The rank's
// batched calls leave; it waits, with internal progress only (main has returned: no user
// code runs), until every rank of the job is leaving the same way, then detaches, so the
// job ends with status 0 and the launcher removes the shared memory. A rank that waits
// longer than GANNET_EXIT_WAIT seconds (10) for the others (they still compute, wait for it,
// or called finalize() and wait in its barrier) ends the job with a message naming itself.
// A non-zero status ends the job as before: the launcher reports it.
void exit_without_finalize(int status, void*) {
  if (status != 0 || detail::g_state.init_count <= 0) return;
  auto& r = rt();
  auto& tp = *r.tp;
  {
    gannet::runtime::runtime_lock lock;
    gannet::runtime::rpc_flush();
  }
  tp.exit_arrive();
  double wait_s = 10;
  if (const char* v = std::getenv("GANNET_EXIT_WAIT"); v && *v) wait_s = std::atof(v);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  unsigned idle = 0;
  while (!tp.exit_test()) {
    bool did;
    {
      // The transport only: this thread's persona stack is gone (thread_locals are destroyed
      // before exit handlers run). Incoming calls wait in the backlog, never to run.
      gannet::runtime::runtime_lock lock;
      gannet::runtime::rpc_direct_scope internal_only(false);
      did = tp.poll();
    }
    if (!did && ++idle > 64) {
      ::sched_yield();
      idle = 0;
    }
    if (tp.job_aborting()) std::_Exit(1);  // the launcher is ending the job
    if (std::chrono::steady_clock::now() > deadline) {
      std::fflush(nullptr);
      gannet::util::fatal("rank %d returned from main without calling upcxx::finalize() while other ranks still run "
                          "(it waited %g s for them to return too, GANNET_EXIT_WAIT): ending the job. Call "
                          "upcxx::finalize() on every rank before returning from main",
                          detail::g_state.rank_me, wait_s);
    }
  }
  if (g_debug_checks && detail::g_state.rank_me == 0)
    std::fprintf(stderr, "upcxx: note: the program returned from main without calling upcxx::finalize(); the job ends "
                         "normally, as with UPC++ (debug codemode note)\n");
  tp.detach();
  detail::g_state.init_count = 0;
}
}  // namespace

namespace {
// GANNET_TRACE: ranks on another machine than rank 0 shift their clock onto rank 0's, as
// read by every rank right after a barrier (good to the barrier's exit skew, microseconds).
void align_trace_clocks(gannet::transport::transport& tp) {
  const std::uint64_t mine = gannet::observe::now_ns();
  const std::vector<std::uint64_t> all = gannet::all_gather(mine);
  const auto local = tp.local_ranks();
  if (std::find(local.begin(), local.end(), 0) == local.end())
    gannet::observe::set_clock_offset(static_cast<std::int64_t>(all[0]) - static_cast<std::int64_t>(mine));
}

// GANNET_STATS: rank 0 reports every rank's counts. Every rank decides the same way (the
// variable is the job's), so the exchange is collective.
void finish_observing() {
  namespace ob = gannet::observe;
  if (!ob::stats_on()) {
    ob::finish(nullptr);
    return;
  }
  std::uint64_t words[ob::stats_words];
  ob::stats_snapshot(words);
  std::vector<std::uint64_t> all(ob::stats_words * static_cast<std::size_t>(detail::g_state.rank_n));
  gannet::detail::all_gather_bytes(words, sizeof words, all.data());
  ob::finish(detail::g_state.rank_me == 0 ? all.data() : nullptr);
}
}  // namespace

void detail::init_library(bool par, bool debug) {
  auto& r = rt();
  if (par) gannet::runtime::enable_thread_safety();
  if (debug) g_debug_checks = true;
  if (detail::g_state.init_count++ > 0) return;  // nested init: count only (spec §2.3 ¶3)
  // No user callback runs inside init() (runtime.hpp): a peer already past its init() may
  // send to us while we wait in the barrier below, before the program has set up what its
  // handlers use.
  gannet::runtime::g_initializing = true;

  if (!r.tp) {
    r.tp = gannet::transport::make_transport(gannet::runtime::heap_size_from_env());
    gannet::runtime::g_transport = r.tp.get();
    char prefix[48];
    std::snprintf(prefix, sizeof prefix, "gannet rank %d", r.tp->rank_me());
    gannet::util::set_log_prefix(prefix);
    gannet::util::install_crash_handlers();  // takes back the signals MPI_Init may have taken
  }
  auto& tp = *r.tp;
  tp.attach();
  if (debug) {
    // GANNET_ATTENTIVENESS_SECONDS tunes the watch (0 turns it off); tests use a short one.
    double seconds = 5;
    if (const char* v = std::getenv("GANNET_ATTENTIVENESS_SECONDS")) seconds = std::atof(v);
    if (seconds > 0) tp.watch_attentiveness(seconds);
  }
  gannet::runtime::rpc_attach(tp);
  gannet::runtime::hang_attach(tp.rank_me(), tp.rank_n());
  gannet::coll::coll_attach();
  gannet::runtime::atomics_attach();
  gannet::runtime::vis_attach();
  const int n = tp.rank_n();
  const int me = tp.rank_me();

  r.peers.assign(static_cast<std::size_t>(n), detail::peer_view{0, false});
  r.local_segments.clear();
  for (int i = 0; i < n; ++i) {
    auto seg = tp.segment(i);
    void* here = tp.local_address(i, seg.base);
    if (here) {
      r.peers[i].local = true;
      r.peers[i].delta = reinterpret_cast<std::intptr_t>(here) - static_cast<std::intptr_t>(seg.base);
      auto lo = reinterpret_cast<std::uintptr_t>(here);
      r.local_segments.push_back({lo, lo + seg.size, i});
    }
  }
  std::sort(r.local_segments.begin(), r.local_segments.end(),
            [](const auto& a, const auto& b) { return a.lo < b.lo; });

  auto mine = tp.segment(me);
  r.heap_bytes = mine.size;
  void* heap_base = tp.local_address(me, mine.base);
  // The owner's address is its own, even where the transport reports no load/store access.
  if (!heap_base) heap_base = reinterpret_cast<void*>(mine.base);
  if (mine.size < gannet::runtime::scratch_bytes + 4096)
    gannet::util::fatal("the shared heap of %zu bytes is too small", mine.size);
  r.scratch = static_cast<std::byte*>(heap_base);
  r.heap.emplace(r.scratch + gannet::runtime::scratch_bytes, mine.size - gannet::runtime::scratch_bytes);

  gannet::runtime::choose_spin_limit(static_cast<int>(tp.local_ranks().size()), tp.machine_cores());
  std::vector<intrank_t> local_members(tp.local_ranks().begin(), tp.local_ranks().end());
  intrank_t local_me = 0;
  for (std::size_t i = 0; i < local_members.size(); ++i)
    if (local_members[i] == me) local_me = static_cast<intrank_t>(i);
  r.world.emplace(detail::gptr_raw_tag{}, std::vector<intrank_t>{}, me, n, 0);
  r.local.emplace(detail::gptr_raw_tag{}, std::move(local_members), local_me, n, 1);

  detail::g_state.rank_me = me;
  detail::g_state.rank_n = n;
  detail::g_state.peers = r.peers.data();

  gannet::runtime::run_attach_hooks();  // before the barrier: peers address us after it
  runtime_push_master_persona();
  // After the transport's own exit handler (the MPI transport's): handlers run last first.
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = ::on_exit(exit_without_finalize, nullptr) == 0;
  gannet::observe::start(me, n, gannet::runtime::g_thread_safe.load(std::memory_order_relaxed));
  detail::barrier_unchecked(world());
  if (gannet::observe::tracing()) align_trace_clocks(tp);
  gannet::runtime::g_initializing = false;
}

void finalize() {
  auto& r = rt();
  if (detail::g_state.init_count <= 0)
    gannet::util::fatal("upcxx::finalize() called while UPC++ is not initialized");
  if (detail::g_state.init_count > 1) {
    --detail::g_state.init_count;
    return;
  }
  gannet::runtime::run_detach_hooks();  // nothing of the extensions' in flight past here
  finish_observing();
  {
    gannet::runtime::blocked_scope waiting("finalize", -1, nullptr, /*final=*/true);
    // A barrier of messages first, which no rank's upcxx::barrier() can complete: a rank that
    // skipped a barrier the others called waits here (and the hang report says so) instead
    // of passing finalize with the others' barrier and leaving them waiting in finalize.
    gannet::coll::finalize_barrier();
    detail::barrier_unchecked(world());  // spec §2.3 ¶11
  }
  gannet::runtime::hang_detach();
  r.tp->detach();
  r.heap.reset();
  r.world.reset();
  r.local.reset();
  detail::g_state.init_count = 0;
  // Pointers of the job that ended still index the table: every rank becomes "not
  // addressable", and what reaches the off-node path says it came after finalize().
  r.peers.assign(r.peers.size(), detail::peer_view{0, false});
}

bool initialized() { return detail::g_state.init_count > 0; }

char* getenv_console(const char* env_var) { return std::getenv(env_var); }

// ---- teams (src/coll/team.cpp builds the others) ----

team& world() {
  detail::check_init("upcxx::world()", ::upcxx::detail::source_loc::current());
  return *rt().world;
}

team& local_team() {
  detail::check_init("upcxx::local_team()", ::upcxx::detail::source_loc::current());
  return *rt().local;
}

bool local_team_contains(intrank_t world_rank, ::upcxx::detail::source_loc loc) {
  // Checked in every codemode: the library is built once, and the check is cheap here.
  if (world_rank < 0 || world_rank >= detail::g_state.rank_n)
    detail::fail_bad_rank("upcxx::local_team_contains", world_rank, detail::g_state.rank_n, loc);
  return rt().local->from_world(world_rank, -1) >= 0;
}

namespace {
// For the hang report: "barrier #12 on world".
long g_world_barriers = 0, g_local_barriers = 0;
long barrier_number(const team& t) {
  if (&t == &*rt().world) return ++g_world_barriers;
  if (&t == &*rt().local) return ++g_local_barriers;
  return -1;
}
const char* team_name(const team& t) {
  if (&t == &*rt().world) return "world";
  if (&t == &*rt().local) return "local_team";
  return "a team made by split or create";
}
}  // namespace

// Not inlined: its return address is the call site that names the phase it begins
// (gannet::overlap; the signature stays UPC++'s).
__attribute__((noinline)) void barrier(const team& t) {
  detail::check_init("upcxx::barrier()", ::upcxx::detail::source_loc::current());
  if (g_debug_checks) {
    if (in_progress()) detail::fail_restricted("upcxx::barrier()");  // spec §10.2 ¶4
    detail::check_master_persona("upcxx::barrier()");
  }
  gannet::runtime::blocked_scope waiting("barrier", barrier_number(t), team_name(t));
  if (gannet::observe::on()) [[unlikely]] {
    const std::uint64_t t0 = gannet::observe::now();
    detail::team_barrier(t);
    gannet::observe::span(gannet::observe::kind::barrier, -1, 0, t0);
  } else {
    detail::team_barrier(t);
  }
  gannet::runtime::run_barrier_done_hooks(reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

bool detail::debug_checks_enabled() { return g_debug_checks; }

// The barrier of init, finalize and all_gather: their callers were checked, or (finalize
// called without the master persona) are let through as before.
void detail::barrier_unchecked(const team& t) {
  auto& r = rt();
  if (t.rank_n() != detail::g_state.rank_n)
    gannet::util::fatal("internal: the transport's barrier over a team that is not world()");
  // With nothing queued, barrier() arrives at once and tests the transport itself (the common
  // case costs what it did before the queue existed); behind queued collectives it queues.
  bool direct;
  bool done = false;
  gannet::runtime::deliver_before_barrier();  // our calls are delivered before we arrive
  {
    gannet::runtime::runtime_lock lock;
    direct = gannet::runtime::world_barrier_begin_direct();
    if (!direct) {
      gannet::runtime::world_barrier_enqueue({nullptr, [](void* d) { *static_cast<bool*>(d) = true; }, &done});
      gannet::runtime::world_barrier_poll();
    }
  }
  // The transport says whether a rank we wait for may need our core (ranks outnumber
  // cores): then yield at once; if they all run elsewhere, spin, yielding only every
  // `spin_cap` polls in case its view is stale (a rank that moved to our core while it was
  // not running cannot say so). No pause instruction: a progress pass already spaces the
  // tests, and a pause (~40 ns on recent x86) only adds to the time between the last arrival
  // and our noticing it.
  using hint = gannet::transport::transport::wait_hint;
  constexpr unsigned spin_cap = 256;
  unsigned spins = 0;
  for (;;) {
    hint h;
    {
      gannet::runtime::runtime_lock lock;
      if (direct) {
        if (r.tp->barrier_test()) {
          gannet::runtime::world_barrier_end_direct();
          gannet::runtime::barrier_completed();
          break;
        }
      } else {
        gannet::runtime::world_barrier_poll();
        if (done) break;
      }
      h = r.tp->barrier_wait_hint();
    }
    gannet::runtime::hang_tick(gannet::runtime::progress_pass(upcxx::progress_level::user));
    if (r.tp->job_aborting()) std::_Exit(1);  // the launcher is ending the job
    // Without a hint, a rank that has a core of its own yields only every spin_cap polls: a
    // yield there only delays the RPCs and the last arrival it serves (spec 12.2 ¶8).
    const unsigned limit = h == hint::any && gannet::runtime::spin_limit() <= 1 ? 1u : spin_cap;
    if (h == hint::yield || ++spins >= limit) {
      ::sched_yield();
      spins = 0;
    }
  }
  detail::drain_after_barrier();  // the calls that reached us before it run now
}

// ---- bootstrap exchange (gannet/exchange.hpp) ----------------------------------------

}  // namespace upcxx

namespace gannet::detail {

void all_gather_bytes(const void* in, std::size_t n, void* out) {
  using namespace upcxx;
  upcxx::detail::check_init("gannet::all_gather", ::upcxx::detail::source_loc::current());
  auto& r = rt();
  if (n > all_gather_max_bytes) util::fatal("gannet::all_gather: %zu bytes is more than %zu", n, all_gather_max_bytes);
  std::memcpy(r.scratch, in, n);
  upcxx::detail::barrier_unchecked(world());  // every rank's value is in place
  auto* dst = static_cast<std::byte*>(out);
  // Values of ranks on other machines come by RMA gets, all in flight at once: one wait for
  // the lot, not a round trip per rank.
  struct sink final : transport::completion_sink {
    std::size_t pending = 0;
    void complete(transport::cx_bits b) override {
      if (b & transport::cx_remote) --pending;
    }
  } s;
  for (intrank_t i = 0; i < upcxx::detail::g_state.rank_n; ++i) {
    auto seg = r.tp->segment(i);
    void* src = r.tp->local_address(i, seg.base);
    if (src) {
      std::memcpy(dst + i * n, src, n);
      continue;
    }
    ++s.pending;
    auto res = r.tp->get(i, seg.base, dst + i * n, n, &s, transport::op_none);
    if (res.done & transport::cx_remote) --s.pending;
  }
  if (s.pending > 0) runtime::wait_until_aborting_or([](void* a) { return static_cast<sink*>(a)->pending == 0; }, &s);
  upcxx::detail::barrier_unchecked(world());  // nobody overwrites its scratch before everyone has read it
}

}  // namespace gannet::detail

namespace upcxx {

// ---- shared heap ---------------------------------------------------------------------

// ---- experimental::destroy_heap and restore_heap (the reference implementation's; see
// docs/compatibility.md). Collective over world. Destroying frees everything in this rank's
// heap at once; until restore_heap, allocation fails (new_ throws bad_shared_alloc, RPCs
// too large for a message travel in pieces instead of through the heap).
namespace experimental {

void destroy_heap() {
  detail::check_init("upcxx::experimental::destroy_heap()", ::upcxx::detail::source_loc::current());
  auto& r = rt();
  if (r.heap_destroyed.exchange(true))
    gannet::util::fatal("upcxx::experimental::destroy_heap(): the shared heap is already destroyed");
  // From here no new large RPC record of ours goes into the heap (they travel in pieces), and
  // user objects are dead. The records already there wait for their targets: every rank waits
  // in user-level progress, here and in both barriers, so every such body is run and freed.
  barrier();
  gannet::runtime::wait_until_aborting_or([](void*) { return gannet::runtime::rpc_large_outstanding() == 0; },
                                          nullptr);
  barrier();
  gannet::runtime::runtime_lock lock;  // threadmode par: no other thread is inside the allocator
  if (std::size_t live = r.heap->live_blocks(); live > 0)
    say(std::cerr) << "upcxx::experimental::destroy_heap(): " << live
                   << " objects still allocated in this rank's shared heap are destroyed with it";
  r.heap.emplace(r.scratch + gannet::runtime::scratch_bytes, r.heap_bytes - gannet::runtime::scratch_bytes);
}

void restore_heap() {
  detail::check_init("upcxx::experimental::restore_heap()", ::upcxx::detail::source_loc::current());
  auto& r = rt();
  if (!r.heap_destroyed.exchange(false))
    gannet::util::fatal("upcxx::experimental::restore_heap(): the shared heap was not destroyed (call destroy_heap() first)");
  barrier();
}

}  // namespace experimental

std::size_t shared_segment_size() { return rt().heap ? rt().heap->capacity() : 0; }
std::size_t shared_segment_used() { return rt().heap ? rt().heap->used() : 0; }

void* allocate(std::size_t size, std::size_t alignment) {
  detail::check_init("upcxx::allocate", ::upcxx::detail::source_loc::current());
  return detail::heap_allocate(size, alignment);
}

void deallocate(void* p, detail::source_loc loc) {
  if (!p || detail::freed_late("upcxx::deallocate", loc)) return;
  detail::heap_deallocate(p);
}

namespace detail {

void* heap_allocate(std::size_t size, std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    gannet::util::fatal("upcxx::allocate: alignment %zu is not a power of two", alignment);
  auto& r = rt();
  if (!r.heap) gannet::util::fatal("shared-heap allocation while UPC++ is not initialized");
  if (r.heap_destroyed) return nullptr;
  void* p = r.heap->allocate(size, alignment);
  if (gannet::observe::on()) [[unlikely]] {
    if (p)
      gannet::observe::heap_in_use(r.heap->used());
    else
      gannet::observe::heap_failed(size);
  }
  return p;
}

void note_freed_late(const char* what, const source_loc& loc) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    gannet::util::warn("%s at %s:%u while UPC++ is not initialized (after upcxx::finalize()): nothing is freed and "
                       "no destructor runs, the shared heap went with finalize(); free shared objects before "
                       "finalize(). Reported once per process (debug codemode).",
                       what, loc.file_name(), loc.line());
}

void heap_deallocate(void* p) {
  if (!p) return;
  auto& r = rt();
  if (!r.heap) gannet::util::fatal("shared-heap deallocation while UPC++ is not initialized");
  if (r.heap_destroyed)
    gannet::util::fatal("upcxx::deallocate(%p): the shared heap was destroyed by upcxx::destroy_heap(), and "
                        "everything in it with it", p);
  if (!r.heap->owns(p))
    gannet::util::fatal("upcxx::deallocate(%p): not a pointer into this rank's shared heap", p);
  r.heap->deallocate(p);
}

void throw_bad_shared_alloc(const char* what, std::size_t size) {
  auto& h = *rt().heap;
  using gannet::util::format_size;
  if (rt().heap_destroyed)
    throw bad_shared_alloc(std::string(what) + ": rank " + std::to_string(g_state.rank_me) +
                           " cannot allocate " + format_size(size) +
                           ": its shared heap was destroyed by upcxx::destroy_heap() (restore_heap() makes "
                           "it usable again)");
  std::string msg = std::string(what) + ": rank " + std::to_string(g_state.rank_me) +
                    " cannot allocate " + format_size(size) + " from its shared heap of " +
                    format_size(h.capacity()) + " (" + format_size(h.used()) +
                    " in use, largest free block " + format_size(h.largest_free()) +
                    "); raise the heap with `gannet-run --shared-heap SIZE` (or `upcxx-run "
                    "-shared-heap SIZE`, or UPCXX_SHARED_HEAP_SIZE=SIZE)";
  throw bad_shared_alloc(msg);
}

bool find_segment_owner(const void* p, intrank_t* rank, std::intptr_t* delta) {
  auto& r = rt();
  if (!r.tp || g_state.init_count <= 0) return false;
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  // The last segment starting at or below addr (segments do not overlap).
  auto it = std::upper_bound(r.local_segments.begin(), r.local_segments.end(), addr,
                             [](std::uintptr_t a, const auto& s) { return a < s.lo; });
  if (it == r.local_segments.begin()) return false;
  --it;
  if (addr >= it->hi) return false;
  *rank = it->rank;
  *delta = g_state.peers[it->rank].delta;
  return true;
}

// ---- diagnostics ---------------------------------------------------------------------

void fail_at(const char* file, int line, const std::string& what) {
  gannet::util::fatal_at(file, line, "%s", what.c_str());
}

void fail_not_initialized(const char* what, const ::upcxx::detail::source_loc& loc) {
  fail_at(loc, std::string(what) +
                   " called while UPC++ is not initialized (before upcxx::init(), or after the matching "
                   "upcxx::finalize())");
}

void fail_not_initialized_here(const char* what) {
  gannet::util::fatal("%s called while UPC++ is not initialized (before upcxx::init(), or after the matching "
                      "upcxx::finalize()); the backtrace below shows the call (debug codemode, upcxx -g, names its "
                      "file and line)",
                      what);
}

void fail_bad_rank(const char* what, std::int64_t rank, std::int64_t n, const ::upcxx::detail::source_loc& loc) {
  fail_at(loc, std::string(what) + ": rank " + std::to_string(rank) + " is out of range [0, " +
                   std::to_string(n) + ")");
}

void fail_not_local(intrank_t rank, const void* raw, const ::upcxx::detail::source_loc& loc) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%p", raw);
  fail_at(loc, "global_ptr::local() on a pointer to rank " + std::to_string(rank) + " (" + buf +
                   ") that this process cannot address (is_local() is false)");
}

void fail_null_arith(const ::upcxx::detail::source_loc& loc) {
  fail_at(loc, "arithmetic on a null global_ptr");
}

void fail_not_in_segment(const void* p, const ::upcxx::detail::source_loc& loc) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%p", p);
  fail_at(loc, std::string("upcxx::to_global_ptr(") + buf +
                   "): the pointer is not in the shared segment of any rank of the local team "
                   "(use try_global_ptr to test)");
}

void fail_not_mine(const char* what, intrank_t owner, const ::upcxx::detail::source_loc& loc) {
  fail_at(loc, std::string(what) + ": the pointer belongs to rank " + std::to_string(owner) +
                   "; only the rank that allocated shared memory may free it");
}

void say_emit_to(std::ostream& out, const std::string& line) {
  std::lock_guard<std::mutex> lock(rt().say_mutex);
  out << line;
  if (line.empty() || line.back() != '\n') out << '\n';
  out.flush();
}

void fail_os_env(const std::string& name, const char* why) {
  gannet::util::fatal("upcxx::os_env: the environment variable %s %s", name.c_str(), why);
}

bool os_env_bool(const char* text, bool* out) {
  std::string v(text);
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1" || v == "yes" || v == "y" || v == "true" || v == "on") *out = true;
  else if (v == "0" || v == "no" || v == "n" || v == "false" || v == "off") *out = false;
  else return false;
  return true;
}

bool os_env_size(const char* text, std::size_t unit, std::int64_t* out) {
  std::string v(text);
  // A bare number counts in the caller's unit; a number with a suffix is read as a size.
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno == 0 && end != v.c_str() && *end == '\0') {
    const auto u = static_cast<std::int64_t>(unit > 1 ? unit : 1);
    if (n < 0 || n > INT64_MAX / u) return false;
    *out = static_cast<std::int64_t>(n) * u;
    return true;
  }
  std::string why;
  auto spec = gannet::util::parse_size(v, &why);
  if (!spec || spec->percent != 0) return false;
  *out = static_cast<std::int64_t>(spec->bytes);
  return true;
}

void say_emit(const std::string& line, bool to_stderr) {
  std::string out = line;
  if (out.empty() || out.back() != '\n') out.push_back('\n');
  std::lock_guard<std::mutex> lock(rt().say_mutex);
  std::FILE* f = to_stderr ? stderr : stdout;
  std::fwrite(out.data(), 1, out.size(), f);
  std::fflush(f);
}

}  // namespace detail
}  // namespace upcxx
