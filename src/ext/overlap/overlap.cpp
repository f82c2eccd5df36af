// Automatic overlap (include/gannet/overlap.hpp; user guide docs/overlap.md; from
// "Automatic nonblocking communication for partitioned global address space programs", §3,
// whose section numbers the comments below cite): outstanding puts per target, the prefetch
// history per phase, and aggregation into non-contiguous transfers.
//
// The overlap room (src/ext/overlap): this one file. Owns the per-target FIFOs of
// outstanding puts, the phase histories and their prefetch buffers, the aggregation queues.
// It sits above the transport contract only (a put or get through the transport with a
// completion sink, and the non-contiguous runtime messages of src/rma/vis.cpp); a peer on
// this machine never reaches it (the header copies inline). May include: the core
// (core/runtime.hpp, hooks.hpp through it), the transport contract, util/ and public
// headers; never another extension, and the rooms below never include it. It registers
// detach, barrier_done and the guarded sync_point, incoming, before_rma and
// before_user_progress hooks (bottom of this file), and raises sync_hooks_live (and
// user_progress_hooks_live while puts are outstanding) only while it has work (set_live), so
// a program with nothing outstanding pays a relaxed load and a branch at each site.
// Threading: the layer's state has no lock; memput/memget are called from the thread that
// holds the master persona (overlap.hpp), and are errors inside progress callbacks (spec
// §10.2), like wait(). Progress: completing puts and waiting for prefetches make internal
// progress; the layer's own progress passes do not re-enter it (state::busy). Entering
// user-level progress completes every put first, so no callback ever finds one outstanding.
//
// Puts (§3.1). A memput to an off-node peer is started through the transport and, once its
// source may be reused, left in its target's FIFO of outstanding puts with the bounding box
// of their remote bytes. An access to that target that misses the box costs two compares;
// inside it, the FIFO is scanned, and the prefix up to the last put it overlaps is completed
// before the access goes on (two puts to one place through MPI are not ordered, and a get
// must see the bytes put before it). The head of the FIFO is retired whenever the target is
// touched; a FIFO longer than GANNET_OVERLAP_MAX_PUTS (256) is completed whole. Every
// synchronization point completes them all (the sync_point hook: every barrier through
// deliver_before_barrier, every collective through coll_start, rpc/rpc_ff initiation, remote
// and on-node atomics, notified puts; and before_user_progress at the start of user-level
// progress), so a blocking program sees them where it expects.
//
// Gets (§3.2). A phase that begins at a blocking barrier, fence() or phase_end() has an
// identity; its history lists, per target and in first-use order, the (address, bytes) of the
// memgets it made whose overlap (time since the phase began) exceeded the cost of copying out
// of a buffer. When it begins again each entry is started as a get into its own buffer,
// 64 per target at first and the next 64 once a memget finds the last one started complete
// (the paper's flow control); a memget that matches an entry waits for it and copies. At the
// end of the phase entries nobody asked for are dropped (still in flight: kept aside until
// they land), and a phase whose prefetches mostly go unused four times in a row stops
// prefetching. A memput marks the entries it overlaps stale; an RPC that runs here marks them
// all stale (it may announce data written after they were read): a stale entry is re-read.
// A phase's identity is the return address of the blocking upcxx::barrier() that began it
// (barrier is noinline for that), of fence()/phase_end(), or the id given to phase_end(id).
// Phases begun any other way (barrier_async, a collective, an RPC) prefetch nothing: their
// synchronization may complete after the call returns. Buffers stay with their entries
// across executions, so a steady phase allocates nothing; they total at most
// GANNET_OVERLAP_POOL (64 MiB), a phase holds at most 4096 entries, and at most 64 phases
// are kept. Entries dropped while in flight wait in an orphan list (finalize waits for them).
//
// Aggregation (§3.3). Inside an aggregate scope, memputs are packed and memgets queued per
// target; the scope's end sends, per target, one non-contiguous get then one put (runtime
// messages to one target keep their order, so a queued get reads what was there before a
// queued put of the same bytes), waits for the gets, and leaves the put outstanding like any
// other. A memget of bytes a queued memput writes sends the queues at once and ends aggregation
// for the rest of the scope.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gannet/overlap.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/detail/state.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/vis.hpp"
#include "util/observe.hpp"
#include "util/log.hpp"
#include "util/size_parse.hpp"

namespace gannet::overlap {
namespace {

namespace tr = gannet::transport;
namespace rt = gannet::runtime;
using upcxx::intrank_t;

constexpr std::size_t chunk = 64;          // prefetches started at once per target (§4.2)
constexpr std::size_t staged_bytes = 4096;  // puts this small have their source copied
constexpr int strikes_to_stop = 4;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// ---- outstanding puts ----

struct put_rec final : tr::completion_sink {
  std::uintptr_t lo = 0, hi = 0;  // remote bytes [lo, hi)
  // An aggregated put: its runs (lo/hi their box); empty for a plain put.
  std::vector<std::pair<std::uintptr_t, std::size_t>> runs;  // (address, bytes)
  bool source_done = false;
  bool done = false;
  void complete(tr::cx_bits b) override {
    if (b & tr::cx_source) source_done = true;
    if (b & tr::cx_remote) source_done = done = true;
  }
  bool overlaps(std::uintptr_t a, std::uintptr_t b) const {
    if (b <= lo || a >= hi) return false;
    if (runs.empty()) return true;
    for (const auto& r : runs)
      if (a < r.first + r.second && r.first < b) return true;
    return false;
  }
};

// The runtime side of a non-contiguous transfer the aggregation sends (vis.cpp reports to it).
struct agg_op final : upcxx::detail::rma_op {
  put_rec* rec = nullptr;  // a put: marked done at operation completion
  int* gets_in_flight = nullptr;  // a get: counted down at operation completion
  static void events(upcxx::detail::rma_op* base, unsigned ev) {
    auto* self = static_cast<agg_op*>(base);
    ev &= self->pending;
    if (ev & upcxx::detail::ev_operation) {
      if (self->rec) self->rec->done = self->rec->source_done = true;
      if (self->gets_in_flight) --*self->gets_in_flight;
    }
    self->pending &= ~ev;
    if (self->pending == 0) delete self;
  }
};

using run = std::pair<std::uintptr_t, std::size_t>;  // (address, bytes)

struct target {
  intrank_t rank = 0;
  std::deque<std::unique_ptr<put_rec>> puts;
  std::uintptr_t box_lo = UINTPTR_MAX, box_hi = 0;
  bool active = false;  // listed in state::active
  // Aggregation queues, as the runs of the transfers they become.
  std::vector<run> agg_get_src, agg_get_dst;  // remote runs, and where they land here
  std::vector<run> agg_puts;                  // remote runs
  std::vector<std::byte> agg_pack;            // the queued puts' bytes, in order
  bool agg_listed = false;
};

// ---- the prefetch history ----

struct entry final : tr::completion_sink {
  std::uintptr_t addr = 0;
  std::size_t bytes = 0;
  std::unique_ptr<std::byte[]> buf;
  bool issued = false;    // started in this execution of the phase
  bool inflight = false;  // started and not yet landed
  bool stale = false;     // a put or an incoming RPC may have changed the bytes since
  bool used = false;      // a memget asked for it in this execution
  void complete(tr::cx_bits b) override {
    if (b & tr::cx_remote) inflight = false;
  }
};

struct key_hash {
  std::size_t operator()(const std::pair<std::uintptr_t, std::size_t>& k) const noexcept {
    return std::hash<std::uintptr_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
  }
};

struct phase_target {
  intrank_t rank = 0;
  std::vector<std::unique_ptr<entry>> gets;  // first-use order
  std::unordered_map<std::pair<std::uintptr_t, std::size_t>, std::size_t, key_hash> index;
  std::size_t next_issue = 0;
  std::uintptr_t box_lo = UINTPTR_MAX, box_hi = 0;
  void reindex() {
    index.clear();
    box_lo = UINTPTR_MAX;
    box_hi = 0;
    for (std::size_t i = 0; i < gets.size(); ++i) {
      index.emplace(std::make_pair(gets[i]->addr, gets[i]->bytes), i);
      box_lo = std::min(box_lo, gets[i]->addr);
      box_hi = std::max(box_hi, gets[i]->addr + gets[i]->bytes);
    }
  }
};

struct phase {
  std::vector<phase_target> targets;
  std::unordered_map<intrank_t, std::size_t> by_rank;
  std::size_t entries = 0;
  int strikes = 0;
  bool stopped = false;  // mispredicts too often: neither records nor prefetches
  std::uint64_t issued = 0, hits = 0;  // this execution
  phase_target& target_for(intrank_t r) {
    auto it = by_rank.find(r);
    if (it != by_rank.end()) return targets[it->second];
    by_rank.emplace(r, targets.size());
    targets.emplace_back();
    targets.back().rank = r;
    return targets.back();
  }
  phase_target* find(intrank_t r) {
    auto it = by_rank.find(r);
    return it == by_rank.end() ? nullptr : &targets[it->second];
  }
};

struct state {
  bool configured = false;
  bool enabled = true;
  bool timing = false;
  std::size_t max_puts = 256;                    // per target (GANNET_OVERLAP_MAX_PUTS)
  std::size_t pool_limit = std::size_t{64} << 20;  // prefetch buffer bytes (GANNET_OVERLAP_POOL)
  std::size_t max_phases = 64;
  std::size_t max_entries = 4096;  // per phase

  std::unordered_map<intrank_t, target> targets;
  std::vector<target*> active;  // targets with outstanding puts
  std::size_t outstanding = 0;
  std::vector<std::unique_ptr<put_rec>> spare;

  int agg_depth = 0;
  bool agg_broken = false;  // a conflict ended aggregation for the rest of the scope
  std::vector<target*> agg_targets;

  std::unordered_map<std::uint64_t, phase> history;
  phase* cur = nullptr;  // the predicted phase running, or null
  std::uint64_t observed_phase_t0 = 0;  // GANNET_TRACE/GANNET_STATS: when it began
  std::uint64_t cur_id = 0;
  bool cut = false;  // an incoming RPC invalidated the current phase's prefetches
  std::uint64_t phase_start = 0;
  std::vector<std::unique_ptr<entry>> orphans;  // dropped while in flight
  std::size_t pool_bytes = 0;

  bool used = false;  // an off-node memput/memget happened: the hooks have work
  bool busy = false;  // inside the layer: hooks from its own progress do nothing
  statistics st;
};
// Never destroyed: a transport may still report to its sinks while the process exits.
state& g = *new state();

void configure() {
  if (g.configured) return;
  g.configured = true;
  if (const char* v = std::getenv("GANNET_OVERLAP"); v && *v) {
    std::string s(v);
    if (s == "0" || s == "off" || s == "no") {
      g.enabled = false;
    } else if (s != "1" && s != "on" && s != "yes") {
      util::fatal("GANNET_OVERLAP=%s: expected 0 (plain blocking copies) or 1 (automatic overlap, the default)", v);
    }
  }
  if (const char* v = std::getenv("GANNET_OVERLAP_MAX_PUTS"); v && *v) {
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 1) util::fatal("GANNET_OVERLAP_MAX_PUTS=%s: expected a count of at least 1", v);
    g.max_puts = static_cast<std::size_t>(n);
  }
  if (const char* v = std::getenv("GANNET_OVERLAP_POOL"); v && *v) {
    std::string why;
    auto s = util::parse_size(v, &why);
    if (!s || s->percent != 0) util::fatal("GANNET_OVERLAP_POOL=%s: expected a size such as 64MB (%s)", v, why.c_str());
    g.pool_limit = static_cast<std::size_t>(s->bytes);
  }
  if (const char* v = std::getenv("GANNET_OVERLAP_TIMING"); v && *v) g.timing = std::string(v) != "0";
}

void set_live() {
  const bool puts = g.outstanding > 0 || !g.agg_targets.empty();
  rt::g_user_progress_hooks.store(puts, std::memory_order_relaxed);
  rt::set_sync_hooks_live(puts || g.cur != nullptr);
}

// Blocking calls are errors where wait() is (spec §10.2): inside callbacks progress runs.
void check_context(const char* what) {
  if (upcxx::detail::g_state.init_count <= 0) util::fatal("%s called while UPC++ is not initialized", what);
  if (upcxx::in_progress())
    util::fatal("%s inside a callback that progress is running (an RPC body, a then() callback, a completion): it "
                "blocks, which is not allowed there (spec 10.2); call it from the program's own flow",
                what);
}

struct busy_scope {
  bool was;
  busy_scope() : was(g.busy) { g.busy = true; }
  ~busy_scope() { g.busy = was; }
};

template <typename Done>
void wait_for(Done&& done) {
  rt::idle_passes idle;
  auto& tp = rt::the_transport();
  while (!done()) {
    const bool did = rt::progress_pass(upcxx::progress_level::internal);
    idle.after(did);
    rt::hang_tick(did);
    if (tp.job_aborting()) std::_Exit(1);  // the launcher is ending the job; it said why
  }
}

target& target_of(intrank_t r) {
  auto [it, fresh] = g.targets.try_emplace(r);
  if (fresh) it->second.rank = r;
  return it->second;
}

void recycle(std::unique_ptr<put_rec> p) {
  p->runs.clear();
  p->done = p->source_done = false;
  if (g.spare.size() < 1024) g.spare.push_back(std::move(p));
}

std::unique_ptr<put_rec> fresh_rec() {
  if (g.spare.empty()) return std::make_unique<put_rec>();
  auto p = std::move(g.spare.back());
  g.spare.pop_back();
  return p;
}

// Retires the completed puts at the head of t's FIFO.
void retire(target& t) {
  while (!t.puts.empty() && t.puts.front()->done) {
    recycle(std::move(t.puts.front()));
    t.puts.pop_front();
    --g.outstanding;
  }
  if (t.puts.empty()) {
    t.box_lo = UINTPTR_MAX;
    t.box_hi = 0;
  }
}

// Completes t's puts up to and including index `last`.
// The FIFO does not change meanwhile: the caller is busy, so no hook retires or appends.
void complete_through(target& t, std::size_t last) {
  wait_for([&] {
    for (std::size_t i = 0; i <= last; ++i)
      if (!t.puts[i]->done) return false;
    return true;
  });
  retire(t);
}

void complete_all_puts() {
  if (g.outstanding == 0) return;
  busy_scope busy;
  wait_for([] {
    for (target* t : g.active)
      for (auto& p : t->puts)
        if (!p->done) return false;
    return true;
  });
  for (target* t : g.active) {
    retire(*t);
    t->active = false;
  }
  g.active.clear();
  ++g.st.syncs;
}

// An access to [a, b) of t: completes the outstanding puts it overlaps (paper §3.1, rule 2).
std::size_t last_conflict(target& t, std::uintptr_t a, std::uintptr_t b) {
  retire(t);
  if (t.puts.empty() || b <= t.box_lo || a >= t.box_hi) return t.puts.size();
  for (std::size_t i = t.puts.size(); i-- > 0;)
    if (!t.puts[i]->done && t.puts[i]->overlaps(a, b)) return i;
  return t.puts.size();
}

void check_puts(target& t, std::uintptr_t a, std::uintptr_t b) {
  const std::uint64_t t0 = g.timing ? now_ns() : 0;
  const std::size_t last = last_conflict(t, a, b);
  if (g.timing) g.st.check_ns += now_ns() - t0;
  if (last == t.puts.size()) return;
  ++g.st.put_conflicts;
  busy_scope busy;
  complete_through(t, last);
}

void list_active(target& t) {
  if (!t.active) {
    t.active = true;
    g.active.push_back(&t);
  }
}

void add_outstanding(target& t, std::unique_ptr<put_rec> rec) {
  t.box_lo = std::min(t.box_lo, rec->lo);
  t.box_hi = std::max(t.box_hi, rec->hi);
  t.puts.push_back(std::move(rec));
  ++g.outstanding;
  ++g.st.puts_deferred;
  list_active(t);
  if (t.puts.size() > g.max_puts) {
    busy_scope busy;
    complete_through(t, t.puts.size() - 1);
  }
}

// ---- prefetch ----

void free_entry_bytes(entry& e) {
  if (e.buf) {
    g.pool_bytes -= e.bytes;
    e.buf.reset();
  }
}

void sweep_orphans() {
  auto& o = g.orphans;
  o.erase(std::remove_if(o.begin(), o.end(),
                         [](std::unique_ptr<entry>& e) {
                           if (e->inflight) return false;
                           free_entry_bytes(*e);
                           return true;
                         }),
          o.end());
}

void issue(phase_target& pt, std::size_t i) {
  entry& e = *pt.gets[i];
  e.issued = true;
  if (e.stale) return;  // a put of this phase overlaps it: the memget reads it directly
  if (!e.buf) {
    if (g.pool_bytes + e.bytes > g.pool_limit) {
      e.stale = true;  // no room: the memget reads it directly
      return;
    }
    e.buf.reset(new std::byte[e.bytes]);
    g.pool_bytes += e.bytes;
  }
  e.inflight = true;
  auto r = rt::the_transport().get(pt.rank, e.addr, e.buf.get(), e.bytes, &e, tr::op_none);
  if (r.done & tr::cx_remote) e.inflight = false;
  ++g.st.prefetch_issued;
  ++g.cur->issued;
}

// Starts the next chunk of pt's prefetches, at least through entry `through`.
void issue_chunk(phase_target& pt, std::size_t through = 0) {
  const std::size_t end = std::min(pt.gets.size(), std::max(pt.next_issue + chunk, through + 1));
  for (; pt.next_issue < end; ++pt.next_issue) issue(pt, pt.next_issue);
}

// A put to [a, b) of rank r: prefetches of those bytes would return what was there before.
void stale_prefetches(intrank_t r, std::uintptr_t a, std::uintptr_t b) {
  if (!g.cur) return;
  const std::uint64_t t0 = g.timing ? now_ns() : 0;
  phase_target* pt = g.cur->find(r);
  if (pt && b > pt->box_lo && a < pt->box_hi)
    for (auto& e : pt->gets)
      if (a < e->addr + e->bytes && e->addr < b && !e->stale) {
        e->stale = true;
        if (e->issued) ++g.st.prefetch_stale;
      }
  if (g.timing) g.st.check_ns += now_ns() - t0;
}

// The end of the current phase (§3.2): entries nobody asked for leave the history.
void end_phase() {
  phase* ph = g.cur;
  if (!ph) return;
  g.cur = nullptr;
  if (g.observed_phase_t0) [[unlikely]] {
    observe::span(observe::kind::overlap, -1, 0, g.observed_phase_t0);
    g.observed_phase_t0 = 0;
  }
  const bool judged = !g.cut && !ph->stopped;
  std::size_t unused = 0;
  for (auto& pt : ph->targets) {
    auto& v = pt.gets;
    std::size_t keep = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      entry& e = *v[i];
      const bool drop = judged && !e.used;
      if (drop) {
        if (e.issued) ++unused;
        if (e.inflight) {
          g.orphans.push_back(std::move(v[i]));
        } else {
          free_entry_bytes(e);
        }
        continue;
      }
      if (e.inflight) {
        // Kept, but still landing from this execution (stale, or cut): the buffer is not
        // free for the next one, so it moves aside and the entry gets a new one.
        auto copy = std::make_unique<entry>();
        copy->addr = e.addr;
        copy->bytes = e.bytes;
        g.orphans.push_back(std::move(v[i]));
        v[i] = std::move(copy);
      }
      v[i]->issued = v[i]->used = v[i]->stale = false;
      if (keep != i) v[keep] = std::move(v[i]);
      ++keep;
    }
    v.resize(keep);
    pt.next_issue = 0;
    pt.reindex();
  }
  ph->entries = 0;
  for (auto& pt : ph->targets) ph->entries += pt.gets.size();
  g.st.prefetch_unused += unused;
  if (judged && ph->issued > 0) {
    ph->strikes = ph->hits * 2 < ph->issued ? ph->strikes + 1 : 0;
    if (ph->strikes >= strikes_to_stop) {
      ph->stopped = true;
      for (auto& pt : ph->targets) {
        for (auto& e : pt.gets) free_entry_bytes(*e);
        pt.gets.clear();
        pt.reindex();
      }
      ph->entries = 0;
    }
  }
  ph->issued = ph->hits = 0;
}

void begin_phase(std::uint64_t id) {
  end_phase();
  g.cut = false;
  if (!g.enabled) return;
  sweep_orphans();
  auto it = g.history.find(id);
  if (it == g.history.end()) {
    if (g.history.size() >= g.max_phases) {
      // A program whose phases never repeat: forget one, so it pays only the recording.
      auto victim = g.history.begin();
      for (auto& pt : victim->second.targets)
        for (auto& e : pt.gets) free_entry_bytes(*e);
      g.history.erase(victim);
    }
    it = g.history.emplace(id, phase{}).first;
  }
  g.cur = &it->second;
  g.cur_id = id;
  g.phase_start = now_ns();
  g.observed_phase_t0 = observe::on() ? observe::now() : 0;
  if (!g.cur->stopped)
    for (auto& pt : g.cur->targets) issue_chunk(pt);
  set_live();
}

// ---- blocking transfers ----

struct wait_sink final : tr::completion_sink {
  bool source = false, remote = false;
  void complete(tr::cx_bits b) override {
    if (b & tr::cx_source) source = true;
    if (b & tr::cx_remote) source = remote = true;
  }
};

// A put (from `here`) or a get (into it) that returns complete.
void blocking_copy(bool put, intrank_t r, std::uintptr_t addr, void* here, std::size_t n) {
  wait_sink s;
  auto& tp = rt::the_transport();
  s.complete((put ? tp.put(r, addr, here, n, &s, tr::op_none) : tp.get(r, addr, here, n, &s, tr::op_none)).done);
  busy_scope busy;
  wait_for([&] { return s.remote; });
}

// ---- aggregation ----

// The runs of a queue, as vis.cpp reads them.
auto runs_of(const run* b, const run* e) {
  return upcxx::detail::vis_iter(b, e, [](const run& r, std::uintptr_t* a, std::size_t* n) {
    *a = r.first;
    *n = r.second;
  });
}

// Sends the queued operations: per target one get, then one put (§3.3).
void flush_aggregation() {
  if (g.agg_targets.empty()) return;
  busy_scope busy;
  const auto loc = upcxx::detail::source_loc::current();
  int gets_in_flight = 0;
  for (target* t : g.agg_targets) {
    t->agg_listed = false;
    if (!t->agg_get_src.empty()) {
      auto* op = new agg_op;
      op->gets_in_flight = &gets_in_flight;
      op->pending = upcxx::detail::ev_source | upcxx::detail::ev_operation | upcxx::detail::ev_hold;
      op->on_events = &agg_op::events;
      ++gets_in_flight;
      auto src = runs_of(t->agg_get_src.data(), t->agg_get_src.data() + t->agg_get_src.size());
      auto dst = runs_of(t->agg_get_dst.data(), t->agg_get_dst.data() + t->agg_get_dst.size());
      upcxx::detail::vis_get_remote(t->rank, src, dst, op, "gannet::overlap::aggregate", loc);
      ++g.st.aggregate_sends;
      g.st.aggregated += t->agg_get_src.size();
      t->agg_get_src.clear();
      t->agg_get_dst.clear();
    }
    if (!t->agg_puts.empty()) {
      auto rec = fresh_rec();
      rec->runs.swap(t->agg_puts);  // the spare record's empty vector becomes the next queue
      rec->lo = UINTPTR_MAX;
      rec->hi = 0;
      for (const run& r : rec->runs) {
        rec->lo = std::min(rec->lo, r.first);
        rec->hi = std::max(rec->hi, r.first + r.second);
      }
      auto* op = new agg_op;
      op->rec = rec.get();
      op->pending = upcxx::detail::ev_source | upcxx::detail::ev_operation | upcxx::detail::ev_hold;
      op->on_events = &agg_op::events;
      const run packed{reinterpret_cast<std::uintptr_t>(t->agg_pack.data()), t->agg_pack.size()};
      auto src = runs_of(&packed, &packed + 1), dst = runs_of(rec->runs.data(), rec->runs.data() + rec->runs.size());
      upcxx::detail::vis_put_remote(t->rank, src, dst, op, nullptr, "gannet::overlap::aggregate", loc);
      ++g.st.aggregate_sends;
      g.st.aggregated += rec->runs.size();
      t->agg_pack.clear();
      if (rec->done) {
        recycle(std::move(rec));
      } else {
        add_outstanding(*t, std::move(rec));
      }
    }
  }
  g.agg_targets.clear();
  wait_for([&] { return gets_in_flight == 0; });
  set_live();
}

void agg_list(target& t) {
  if (!t.agg_listed) {
    t.agg_listed = true;
    g.agg_targets.push_back(&t);
  }
}

bool overlaps_queued_puts(const target& t, std::uintptr_t a, std::uintptr_t b) {
  for (const run& q : t.agg_puts)
    if (a < q.first + q.second && q.first < b) return true;
  return false;
}

// The start of every memput and memget off-node (the caller holds the runtime lock).
target& enter(const char* what, intrank_t rank) {
  check_context(what);
  configure();
  g.used = true;
  return target_of(rank);
}

}  // namespace

// ---- the API ----

namespace detail {

void put_remote(intrank_t rank, std::uintptr_t addr, const void* src, std::size_t bytes) {
  rt::runtime_lock lock;
  target& t = enter("gannet::overlap::memput", rank);
  ++g.st.puts;
  stale_prefetches(rank, addr, addr + bytes);
  check_puts(t, addr, addr + bytes);  // two puts to the same bytes are not ordered otherwise
  if (!g.enabled) {
    blocking_copy(true, rank, addr, const_cast<void*>(src), bytes);
    return;
  }
  if (g.agg_depth > 0 && !g.agg_broken) {
    t.agg_puts.emplace_back(addr, bytes);
    const auto* p = static_cast<const std::byte*>(src);
    t.agg_pack.insert(t.agg_pack.end(), p, p + bytes);
    agg_list(t);
    set_live();
    return;
  }
  auto rec = fresh_rec();
  rec->lo = addr;
  rec->hi = addr + bytes;
  // Small sources are copied by the transport (their source completion is then at once);
  // for larger ones the call waits until the transport no longer reads them (§3.1, rule 3).
  auto r = rt::the_transport().put(rank, addr, src, bytes, rec.get(),
                                   bytes <= staged_bytes ? tr::op_source_transient : tr::op_none);
  rec->complete(r.done);
  if (!rec->source_done) {
    busy_scope busy;
    put_rec* p = rec.get();
    wait_for([p] { return p->source_done; });
  }
  if (rec->done) {
    recycle(std::move(rec));
  } else {
    add_outstanding(t, std::move(rec));
  }
  set_live();
}

void get_remote(void* dst, intrank_t rank, std::uintptr_t addr, std::size_t bytes) {
  rt::runtime_lock lock;
  target& t = enter("gannet::overlap::memget", rank);
  ++g.st.gets;
  check_puts(t, addr, addr + bytes);  // a get sees the bytes put before it
  if (!g.enabled) {
    blocking_copy(false, rank, addr, dst, bytes);
    return;
  }
  if (g.agg_depth > 0 && !g.agg_broken && overlaps_queued_puts(t, addr, addr + bytes)) {
    // A conflict ends aggregation early (§3.3): what is queued leaves now, in order, and the
    // rest of the scope runs unaggregated.
    g.agg_broken = true;
    flush_aggregation();
    check_puts(t, addr, addr + bytes);
  }
  const bool aggregating = g.agg_depth > 0 && !g.agg_broken;
  phase* ph = g.cur && !g.cut && !g.cur->stopped ? g.cur : nullptr;
  phase_target* pt = ph ? ph->find(rank) : nullptr;
  if (pt) {
    auto it = pt->index.find({addr, bytes});
    if (it != pt->index.end()) {
      const std::size_t i = it->second;
      if (!pt->gets[i]->issued) issue_chunk(*pt, i);
      entry& e = *pt->gets[i];
      e.used = true;
      if (e.inflight) {
        busy_scope busy;
        wait_for([&e] { return !e.inflight; });
      }
      if (e.stale || !e.buf) {
        blocking_copy(false, rank, addr, dst, bytes);
      } else {
        std::memcpy(dst, e.buf.get(), bytes);
        ++g.st.prefetch_hits;
        ++ph->hits;
        if (observe::on()) [[unlikely]] observe::span(observe::kind::prefetch_hit, rank, bytes, observe::now());
      }
      // Flow control (§4.2): the last prefetch started has landed, so the network is not
      // busy with ours: start the next chunk.
      if (pt->next_issue < pt->gets.size() && pt->next_issue > 0 && !pt->gets[pt->next_issue - 1]->inflight)
        issue_chunk(*pt);
      return;
    }
  }
  if (aggregating) {
    t.agg_get_src.emplace_back(addr, bytes);
    t.agg_get_dst.emplace_back(reinterpret_cast<std::uintptr_t>(dst), bytes);
    agg_list(t);
    set_live();
    return;
  }
  const std::uint64_t start = ph ? now_ns() : 0;
  blocking_copy(false, rank, addr, dst, bytes);
  if (!ph || ph->entries >= g.max_entries) return;
  // Worth prefetching next time when the time this get could overlap (since the phase began)
  // exceeds the cost of copying it out of a buffer (§3.2): ~10 GB/s plus a fixed cost.
  const std::uint64_t copy_ns = 50 + bytes / 10;
  if (start - g.phase_start <= copy_ns) return;
  phase_target& rec_pt = ph->target_for(rank);
  if (rec_pt.index.count({addr, bytes})) return;
  auto e = std::make_unique<entry>();
  e->addr = addr;
  e->bytes = bytes;
  e->used = true;  // kept at the end of this execution
  rec_pt.index.emplace(std::make_pair(addr, bytes), rec_pt.gets.size());
  rec_pt.box_lo = std::min(rec_pt.box_lo, addr);
  rec_pt.box_hi = std::max(rec_pt.box_hi, addr + bytes);
  rec_pt.gets.push_back(std::move(e));
  // Not started in this execution: later ones start at the end of the list.
  if (rec_pt.next_issue == rec_pt.gets.size() - 1) rec_pt.next_issue = rec_pt.gets.size();
  ++ph->entries;
}

void fail_device(const char* what) {
  util::fatal("%s: the global_ptr points into device memory; gannet::overlap moves host memory only (use "
              "upcxx::copy for device memory)",
              what);
}

void aggregate_begin() {
  rt::runtime_lock lock;
  configure();
  if (g.agg_depth++ == 0) g.agg_broken = false;
}

void aggregate_end() {
  rt::runtime_lock lock;
  if (g.agg_depth <= 0) util::fatal("gannet::overlap::aggregate: more scopes ended than began");
  if (--g.agg_depth == 0) {
    if (!g.agg_targets.empty()) check_context("gannet::overlap::aggregate (end of scope)");
    flush_aggregation();
    g.agg_broken = false;
  }
}

}  // namespace detail

namespace {
void fence_and_begin(std::uint64_t id) {
  rt::runtime_lock lock;
  configure();
  if (g.outstanding > 0 || !g.agg_targets.empty()) check_context("gannet::overlap::fence");
  flush_aggregation();
  complete_all_puts();
  if (g.used) begin_phase(id);
  set_live();
}
}  // namespace

__attribute__((noinline)) void fence() {
  fence_and_begin(reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}
void phase_end(std::uint64_t id) { fence_and_begin(id ^ 0x8000000000000000ull); }
__attribute__((noinline)) void phase_end() {
  fence_and_begin(reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

void set_enabled(bool on) {
  rt::runtime_lock lock;
  configure();
  if (!on) {
    if (g.outstanding > 0 || !g.agg_targets.empty()) check_context("gannet::overlap::set_enabled");
    flush_aggregation();
    complete_all_puts();
    end_phase();
  }
  g.enabled = on;
  set_live();
}

bool enabled() {
  rt::runtime_lock lock;
  configure();
  return g.enabled;
}

statistics stats() {
  rt::runtime_lock lock;
  return g.st;
}

}  // namespace gannet::overlap

// ---- what the core tells the layer (src/core/hooks.hpp) ----

namespace gannet::overlap {
namespace {

void on_sync_point() {
  rt::runtime_lock lock;
  if (g.busy) return;  // the layer's own waiting: the operation came before the outstanding ones
  if (!upcxx::in_progress()) {
    flush_aggregation();
    complete_all_puts();
  }
  end_phase();
  set_live();
}

void on_before_user_progress() {
  rt::runtime_lock lock;
  if (g.busy) return;
  flush_aggregation();
  complete_all_puts();
  set_live();
}

void on_barrier_done(std::uintptr_t call_site) {
  rt::runtime_lock lock;
  if (g.used && g.enabled && !g.busy) begin_phase(call_site);
}

void on_incoming() {
  if (!g.cur || g.cut) return;
  g.cut = true;
  for (auto& pt : g.cur->targets)
    for (auto& e : pt.gets)
      if (e->issued && !e->stale) {
        e->stale = true;
        ++g.st.prefetch_stale;
      }
}

void on_before_rma(int rank, std::uintptr_t lo, std::uintptr_t hi, bool put) {
  rt::runtime_lock lock;
  if (g.busy) return;
  auto it = g.targets.find(rank);
  if (put) stale_prefetches(rank, lo, hi);
  if (it == g.targets.end()) return;
  if (!it->second.agg_get_src.empty() || !it->second.agg_puts.empty()) flush_aggregation();
  check_puts(it->second, lo, hi);
  set_live();
}

void on_detach() {
  rt::runtime_lock lock;
  if (!g.configured) return;
  g.agg_depth = 0;
  flush_aggregation();
  complete_all_puts();
  end_phase();
  {
    busy_scope busy;
    wait_for([] {
      for (auto& o : g.orphans)
        if (o->inflight) return false;
      return true;
    });
  }
  const statistics kept = g.st;
  g = state();
  g.st = kept;
  set_live();
}

// Linked in only with a program that uses the layer, which then hears of every barrier (a
// phase begins there) and, while it has work outstanding, of the other points.
const bool registered = [] {
  rt::extension_hooks h;
  h.name = "gannet::overlap";
  h.detach = on_detach;
  h.barrier_done = on_barrier_done;
  h.sync_point = on_sync_point;
  h.incoming = on_incoming;
  h.before_rma = on_before_rma;
  h.before_user_progress = on_before_user_progress;
  rt::register_extension(h);
  return true;
}();

}  // namespace
}  // namespace gannet::overlap
