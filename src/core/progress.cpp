// Progress and personas (spec chapter 10): the per-thread persona stack, the master
// persona, deferred notifications and LPCs run in user-level progress, and the future
// cells' listener firing.
#include <sched.h>

#include <exception>
#include <vector>

#include "core/block_cache.hpp"
#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/completion.hpp"
#include "upcxx/persona.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"

namespace upcxx {
namespace detail {
bool debug_checks_enabled();  // runtime.cpp: the program was built in debug codemode
void drain_after_barrier();
}  // namespace detail
namespace {

persona g_master;

// Called from a catch block: in debug codemode, reports the exception being handled as one
// that escaped `kind` (spec: callbacks run by the library must not throw; UPC++ 2021.9
// diagnoses it in debug codemode); otherwise rethrows it unchanged (undefined behaviour in
// opt codemode, which we leave as it was).
void escaped_from(const char* kind) {
  if (!detail::debug_checks_enabled()) throw;
  try {
    throw;
  } catch (const std::exception& e) {
    detail::fail_callback_threw(kind, e.what());
  } catch (...) {
    detail::fail_callback_threw(kind, nullptr);
  }
}

struct thread_state {
  persona default_p;
  std::vector<persona*> stack;  // stack.front() is the default persona, back() the current
  persona_scope default_scope{detail::implicit_scope_tag{}, default_p};
  std::vector<persona_scope*> scopes;  // live scopes, innermost last; front() is default_scope
  bool in_user_progress = false;
  int master_depth = 0;  // how many times g_master is on `stack` (every pass asks)
  thread_state() {
    stack.push_back(&default_p);
    scopes.push_back(&default_scope);
  }
};

// Every progress pass and persona query starts here. A thread_local with a constructor pays a
// guard (and a call) on each access; a pointer with constant initialization is one load.
constinit thread_local thread_state* t_state = nullptr;
[[gnu::noinline]] thread_state& tls_first() {
  thread_local thread_state t;
  t_state = &t;
  return t;
}
inline thread_state& tls() {
  if (thread_state* s = t_state) [[likely]]
    return *s;
  return tls_first();
}

// One pass of progress; returns whether anything happened. `waiting`: the caller checks
// for one event after each pass (transport::poll_waiting).
bool progress_once(progress_level level, bool waiting = false) {
  bool did = false;
  thread_state& t = tls();
  // Inside init() every pass is internal: no user callback runs there (runtime.hpp).
  const bool user = level == progress_level::user && !gannet::runtime::g_initializing;
  bool outer = !t.in_user_progress;
  // Callbacks that this progress runs may synchronize with other ranks: memputs complete
  // first (gannet::overlap), while waiting for them is still allowed.
  if (user && outer && gannet::runtime::user_progress_hooks_live()) gannet::runtime::run_before_user_progress_hooks();
  if (user) t.in_user_progress = true;
  if (detail::g_state.init_count > 0) {
    // RPCs run only in user-level progress of the master persona (spec §9.1, §10.5);
    // arriving otherwise they wait in the backlog.
    const bool rpcs_here = user && t.master_depth > 0;  // g_master.active_with_caller()
    // RPC bodies, then() callbacks and LPCs report an exception that leaves them themselves
    // (detail::guard_callback, in the program's codemode), before it unwinds library frames.
    gannet::runtime::runtime_lock lock;
    gannet::runtime::rpc_flush();  // what we sent since the last progress leaves first
    gannet::runtime::rpc_pass_begins();
    gannet::runtime::rpc_direct_scope direct(rpcs_here);
    const bool observing = gannet::observe::on();
    if (observing) [[unlikely]] gannet::observe::pass_begins();
    if (rpcs_here) did = gannet::runtime::rpc_run_backlog();
    auto& tp = gannet::runtime::the_transport();
    did = (waiting ? tp.poll_waiting() : tp.poll()) || did;
    if (gannet::runtime::world_barrier_queued()) did = gannet::runtime::world_barrier_poll() || did;  // collectives riding it
    did = gannet::runtime::run_poll_hooks() || did;      // extensions (notified access on this machine)
    // A barrier completed: the calls that reached us before it run before its completion
    // is seen by any callback below (runtime.hpp, barriers deliver).
    if (rpcs_here) did = gannet::runtime::rpc_drain_after_barrier() || did;
    if (observing) [[unlikely]] gannet::observe::pass_ends();
    // Replies and calls that handlers sent leave now, not at the next progress.
    if (gannet::runtime::rpc_batched()) gannet::runtime::rpc_flush();
  }
  if (!user) return did;
  // Top of the stack first; a persona pushed twice is served once (the upper copy).
  try {
    // Requests of notified access completed meanwhile (their futures belong to the master).
    if (gannet::runtime::finish_hooks_registered() && detail::g_state.init_count > 0 && t.master_depth > 0)
      did = gannet::runtime::run_finish_hooks() || did;
    for (std::size_t i = t.stack.size(); i-- > 0;) {
      persona* p = t.stack[i];
      if (!p->has_user_work()) continue;
      bool seen_above = false;
      for (std::size_t j = i + 1; j < t.stack.size(); ++j) seen_above = seen_above || t.stack[j] == p;
      if (!seen_above) did = p->run_user_work() || did;
    }
  } catch (...) {
    escaped_from("a callback run by upcxx::progress() (a completion, then() callback or LPC)");
  }
  if (outer) t.in_user_progress = false;
  // Callbacks (e.g. futures returned by RPCs, readied now) may have sent replies.
  if (gannet::runtime::rpc_batched()) {
    gannet::runtime::runtime_lock lock;
    gannet::runtime::rpc_flush();
  }
  return did;
}

}  // namespace

// After a barrier completed: the calls that reached us before it run now, in user-level
// progress of the master persona (runtime.hpp, barriers deliver). Without the master
// persona they wait for its next user-level progress.
void detail::drain_after_barrier() {
  if (detail::g_state.init_count == 0 || gannet::runtime::g_initializing || !g_master.active_with_caller()) return;
  thread_state& t = tls();
  const bool outer = !t.in_user_progress;
  t.in_user_progress = true;
  {
    gannet::runtime::runtime_lock lock;
    gannet::runtime::rpc_direct_scope direct(true);
    gannet::runtime::rpc_drain_after_barrier();
  }
  if (outer) t.in_user_progress = false;
}

persona::~persona() {
  // Undefined by the specification with work pending (spec §10.5.1 ¶8); free the queued
  // callbacks without running them: a thread that is exiting runs no user code.
  detail::lpc_node* n = inbox_.exchange(nullptr, std::memory_order_acquire);
  while (n) {
    detail::lpc_node* next = n->next;
    n->run(n, false);
    n = next;
  }
  for (const auto& d : deferred_) d.cell->drop_ref();
}

bool persona::run_user_work() {
  bool did = false;
  if (!deferred_.empty()) {
    // Take the batch out: fulfilling runs callbacks, which may queue more work here.
    std::vector<detail::deferred_fulfill> batch;
    batch.swap(deferred_);
    for (const auto& d : batch) {
      d.cell->fulfill(d.count);
      d.cell->drop_ref();
    }
    // Give the capacity back so that a steady stream of deferred notifications does not
    // allocate; unless callbacks queued new work meanwhile, which stays.
    batch.clear();
    if (deferred_.empty()) deferred_.swap(batch);
    did = true;
  }
  if (inbox_.load(std::memory_order_relaxed) != nullptr) {
    // Acquire: pairs with the release push in enqueue().
    detail::lpc_node* n = inbox_.exchange(nullptr, std::memory_order_acquire);
    detail::lpc_node* fifo = nullptr;  // the inbox is a stack: reverse to run in arrival order
    while (n) {
      detail::lpc_node* next = n->next;
      n->next = fifo;
      fifo = n;
      n = next;
    }
    while (fifo) {
      detail::lpc_node* next = fifo->next;
      fifo->run(fifo, true);
      fifo = next;
    }
    did = true;
  }
  return did;
}

bool persona::active_with_caller() const {
  if (this == &g_master) return tls().master_depth > 0;  // asked on every progress pass
  for (persona* p : tls().stack)
    if (p == this) return true;
  return false;
}

persona& master_persona() { return g_master; }
persona& default_persona() { return tls().default_p; }
persona& current_persona() { return *tls().stack.back(); }

void liberate_master_persona() {
  auto& st = tls().stack;
  if (st.size() < 2 || st.back() != &g_master)
    gannet::util::fatal("upcxx::liberate_master_persona(): the calling thread does not hold the master persona "
                        "on top of its persona stack (spec 10.5.1: call it from the thread that called init, "
                        "before pushing other personas)");
  st.pop_back();
  --tls().master_depth;
}

void persona_scope::push(persona& p) {
  persona_ = &p;
  auto& t = tls();
  t.stack.push_back(&p);
  if (&p == &g_master) ++t.master_depth;
  t.scopes.push_back(this);
  active_ = true;
}

persona_scope::~persona_scope() {
  if (active_) {
    auto& t = tls();
    if (t.stack.size() < 2 || t.stack.back() != persona_ || t.scopes.back() != this)
      gannet::util::fatal("persona_scope destroyed out of order (spec 10.5.2: scopes nest)");
    if (t.stack.back() == &g_master) --t.master_depth;
    t.stack.pop_back();
    t.scopes.pop_back();
  }
  if (mutex_) unlock_(mutex_);
}

namespace detail {
void persona_scope_moved(persona_scope* from, persona_scope* to) noexcept {
  auto& scopes = tls().scopes;
  for (std::size_t i = scopes.size(); i-- > 0;)
    if (scopes[i] == from) {
      scopes[i] = to;
      return;
    }
}
}  // namespace detail

persona_scope& top_persona_scope() { return *tls().scopes.back(); }
persona_scope& default_persona_scope() { return *tls().scopes.front(); }

bool in_progress() { return tls().in_user_progress; }

namespace detail {

void fail_restricted(const char* what) {
  gannet::util::fatal("%s called inside the restricted context: a callback that UPC++ progress is running (an RPC "
                      "body, a then() callback, an LPC or completion). Progress cannot happen there, so waiting "
                      "can never end, and collectives are not allowed (spec 10.2); return instead, and "
                      "continue from a then() callback or from outside progress.",
                      what);
}

void fail_callback_threw(const char* kind, const char* what) noexcept {
  if (what)
    gannet::util::fatal("an exception escaped %s into the UPC++ library (what(): %s). Callbacks that UPC++ runs (RPC "
                        "bodies, then() callbacks, LPCs, completion callbacks) must not throw; catch it inside the "
                        "callback (UPC++ 2021.9 diagnoses this in debug codemode).",
                        kind, what);
  gannet::util::fatal("an exception (not derived from std::exception) escaped %s into the UPC++ library. Callbacks "
                      "that UPC++ runs (RPC bodies, then() callbacks, LPCs, completion callbacks) must not throw; "
                      "catch it inside the callback (UPC++ 2021.9 diagnoses this in debug codemode).",
                      kind);
}

void check_master_persona(const char* what) {
  if (!g_master.active_with_caller())
    gannet::util::fatal("%s must be called by the thread holding the master persona (spec 11.1: collectives); "
                        "this thread does not (see upcxx::liberate_master_persona and persona_scope)",
                        what);
}

}  // namespace detail

namespace {

// Debug codemode: the scope forms take one of the calling thread's live scopes (spec 10.5.3).
void check_scope_of_caller(const persona_scope& ps, const char* what) {
  if (!detail::debug_checks_enabled()) return;
  for (const persona_scope* s : tls().scopes)
    if (s == &ps) return;
  gannet::util::fatal("%s: the persona_scope argument is not a live persona_scope of the calling thread (spec 10.5.3: "
                      "it selects part of this thread's persona stack)",
                      what);
}

// The answer for every selection of personas: see persona.hpp.
bool progress_required_here() {
  if (detail::g_state.init_count == 0) return false;
  if (gannet::runtime::rpc_batched()) return true;
  gannet::runtime::runtime_lock lock;  // the transport's queues are shared between threads
  return gannet::runtime::the_transport().progress_required();
}

void discharge_here(const char* what) {
  // UPC++ 2023.9 (UPC++ specification issue 104): an error in the restricted context, where
  // it could wait on progress that cannot happen.
  if (detail::debug_checks_enabled() && tls().in_user_progress) detail::fail_restricted(what);
  while (progress_required_here()) progress(progress_level::internal);
}

}  // namespace

bool progress_required() { return progress_required_here(); }

bool progress_required(persona_scope& ps) {
  check_scope_of_caller(ps, "upcxx::progress_required(persona_scope&)");
  return progress_required_here();
}

void discharge() { discharge_here("upcxx::discharge()"); }

void discharge(persona_scope& ps) {
  check_scope_of_caller(ps, "upcxx::discharge(persona_scope&)");
  discharge_here("upcxx::discharge(persona_scope&)");
}

}  // namespace upcxx

bool gannet::runtime::progress_pass(upcxx::progress_level level) { return upcxx::progress_once(level); }

namespace upcxx {

void progress(progress_level level) {
  // With more ranks than cores on this machine (spin limit 1), a program that polls
  // `while (!done) upcxx::progress();` would hold its core for a whole time slice while the
  // rank it waits for, queued behind it, cannot run. So it waits as wait() does: after more
  // than spin_limit() idle passes in a row, each idle pass gives up the core (the "polite"
  // waiting of oversubscribed GASNet jobs). With a core per rank it stays a pure spin.
  // bench/ring: a token passed round 4 ranks on 2 cores costs about one handover per hop.
  thread_local unsigned idle = 0;
  if (progress_once(level)) {
    idle = 0;
  } else if (gannet::runtime::spin_limit() <= 1 && ++idle > gannet::runtime::spin_limit()) {
    ::sched_yield();
  }
}

namespace detail {

void cell_base::fire_all() {
  listener* l = waiters;
  waiters = nullptr;
  while (l) {
    listener* next = l->next;  // firing may free the listener
    l->fire(l);
    l = next;
  }
}

void defer_to_current(cell_base* cell, std::intptr_t count) { current_persona().defer_fulfill(cell, count); }

void wait_for_cell(const cell_base* c) {
  if (!is_real_cell(c))
    gannet::util::fatal("wait() on a default-constructed future, which never becomes ready");
  gannet::runtime::idle_passes idle;  // nothing to do locally: let a rank sharing this core run
  gannet::runtime::blocked_scope waiting("wait()");
  // GANNET_TRACE/GANNET_STATS: the wait runs from the stamp of its first progress pass to
  // that of the pass that completed it (observe.hpp: no clock read of its own).
  const bool observing = gannet::observe::on();
  std::uint64_t t0 = 0;
  while (!c->ready()) {
    const bool did = progress_once(progress_level::user, true);
    if (observing && !t0) [[unlikely]] t0 = gannet::observe::last_pass_stamp();
    idle.after(did);
    gannet::runtime::hang_tick(did);
  }
  if (t0) [[unlikely]] gannet::observe::wait_done(t0, gannet::observe::last_pass_stamp());
}

}  // namespace detail

// The thread that initializes the library holds the master persona (spec §10.5.1 ¶35).
void runtime_push_master_persona() {
  auto& st = tls().stack;
  for (persona* p : st)
    if (p == &g_master) return;
  st.push_back(&g_master);
  ++tls().master_depth;
}

}  // namespace upcxx

namespace upcxx::detail {
namespace {
// Futures' cells, reply states and the like: 8 classes (up to 256 bytes), at most 4096 blocks
// kept per class and thread, which bounds idle memory.
using small_blocks = gannet::runtime::block_cache<8, 4096>;
}  // namespace

void* pool_allocate(std::size_t bytes) { return small_blocks::allocate(bytes); }
void pool_free(void* ptr, std::size_t bytes) noexcept { small_blocks::free(ptr, bytes); }

}  // namespace upcxx::detail
