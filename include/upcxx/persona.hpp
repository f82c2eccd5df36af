// Personas and progress (spec chapter 10): persona, persona_scope, master/current/default
// persona, liberate_master_persona, lpc/lpc_ff, top/default_persona_scope, in_progress,
// discharge, progress_required.
//
// A persona receives notifications. Every OS thread has a stack of active personas whose
// bottom is its default persona; the thread that calls init() also holds the master
// persona. Completions of an operation are delivered to the persona that was current when
// the operation was initiated, during that persona's user-level progress; lpc_ff()
// delivers to the target persona during its user-level progress and may be called from any
// thread.
//
// Threading: a persona's deferred-completion queue is touched only by the thread holding
// it; its LPC inbox is a lock-free multi-producer stack, drained by the holder.
// Memory ordering: everything sequenced before lpc_ff() happens-before the callback (the
// inbox push is a release, the drain an acquire).
#pragma once

#include "upcxx/version.hpp"

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "upcxx/detail/future_cell.hpp"
#include "upcxx/future.hpp"
#include "upcxx/init.hpp"

namespace upcxx {

class persona;

namespace detail {

// Work queued for user-level progress of a persona.
struct deferred_fulfill {
  cell_base* cell;  // holds one reference, dropped after fulfilling
  std::intptr_t count;
};

struct lpc_node {
  lpc_node* next = nullptr;
  void (*run)(lpc_node* self, bool execute) = nullptr;  // runs (if execute) and frees the node
};

template <typename Fn>
struct lpc_impl final : lpc_node {
  Fn fn;
  template <typename F>
  explicit lpc_impl(F&& f) : fn(std::forward<F>(f)) {
    run = [](lpc_node* n, bool execute) {
      auto* self = static_cast<lpc_impl*>(n);
      if (execute) guard_callback("an LPC callback (persona::lpc_ff)", self->fn);
      delete self;
    };
  }
};

// persona::lpc's future (spec §10.5.1 ¶27): future<U> for an lvalue reference U, else the
// future of U's decayed type (a returned future is unwrapped, void gives future<>).
template <typename U>
struct lpc_future {
  using type = typename future_of<std::decay_t<U>>::type;
};
template <typename U>
struct lpc_future<U&> {
  using type = future<U&>;
};
template <>
struct lpc_future<void> {
  using type = future<>;
};
template <typename U>
using lpc_future_t = typename lpc_future<U>::type;

// Collective operations are called by the thread holding the master persona (spec §11.1 ¶6):
// otherwise reports `what` and aborts.
void check_master_persona(const char* what);

}  // namespace detail

class persona {
 public:
  persona() = default;
  persona(const persona&) = delete;
  persona& operator=(const persona&) = delete;
  ~persona();

  // Enqueues func for this persona's user-level progress; thread-safe; never runs it
  // synchronously (spec §10.5.1 ¶16-18).
  template <typename Func>
  void lpc_ff(Func&& func) {
    enqueue(new detail::lpc_impl<std::decay_t<Func>>(std::forward<Func>(func)));
  }

  // As lpc_ff, and returns a future, owned by the calling persona, of func's result
  // (unwrapped if func returns a future) (spec §10.5.1 ¶20-30).
  template <typename Func>
  detail::lpc_future_t<std::invoke_result_t<std::decay_t<Func>&>> lpc(Func&& func);

  bool active_with_caller() const;

  // ---- internal ----
  // Queues `count` fulfillments of `cell` (which the queue now holds a reference to) for
  // the next user-level progress of this persona. Only the holding thread calls it.
  void defer_fulfill(detail::cell_base* cell, std::intptr_t count) { deferred_.push_back({cell, count}); }
  void enqueue(detail::lpc_node* n) noexcept {
    detail::lpc_node* head = inbox_.load(std::memory_order_relaxed);
    do {
      n->next = head;
      // Release: the callback's captures and everything before lpc_ff are visible to the
      // thread that drains the inbox (acquire exchange in run_user_work).
    } while (!inbox_.compare_exchange_weak(head, n, std::memory_order_release, std::memory_order_relaxed));
  }
  // Runs everything queued for this persona; returns whether anything ran.
  bool run_user_work();
  bool has_user_work() const noexcept {
    return !deferred_.empty() || inbox_.load(std::memory_order_relaxed) != nullptr;
  }

 private:
  std::vector<detail::deferred_fulfill> deferred_;
  std::atomic<detail::lpc_node*> inbox_{nullptr};
};

persona& master_persona();
persona& default_persona();
persona& current_persona();

// Releases the master persona from the thread that called init (spec §10.5.1 ¶43-45).
void liberate_master_persona();

class persona_scope;
namespace detail {
struct implicit_scope_tag {};
void persona_scope_moved(persona_scope* from, persona_scope* to) noexcept;
}  // namespace detail

class persona_scope {
 public:
  // Pushes p on the calling thread's persona stack; the destructor pops it.
  explicit persona_scope(persona& p) { push(p); }
  // Internal: the scope every thread starts with, on its default persona (spec 10.5.2 ¶18).
  persona_scope(detail::implicit_scope_tag, persona& p) noexcept : persona_(&p) {}
  // Locks mutex, then pushes p; the destructor pops p, then unlocks.
  template <typename Mutex>
  persona_scope(Mutex& mutex, persona& p) {
    mutex.lock();
    mutex_ = &mutex;
    unlock_ = [](void* m) { static_cast<Mutex*>(m)->unlock(); };
    push(p);
  }
  persona_scope(persona_scope&& o) noexcept
      : persona_(o.persona_), mutex_(o.mutex_), unlock_(o.unlock_), active_(o.active_) {
    if (active_) detail::persona_scope_moved(&o, this);
    o.active_ = false;
    o.mutex_ = nullptr;
  }
  persona_scope(const persona_scope&) = delete;
  persona_scope& operator=(const persona_scope&) = delete;
  persona_scope& operator=(persona_scope&&) = delete;
  ~persona_scope();

 private:
  void push(persona& p);
  persona* persona_ = nullptr;
  void* mutex_ = nullptr;
  void (*unlock_)(void*) = nullptr;
  bool active_ = false;
};

// The calling thread's innermost live persona_scope, and the implicit bottom one on its
// default persona (spec 10.5.2 ¶17-22).
persona_scope& top_persona_scope();
persona_scope& default_persona_scope();

// True while the calling thread runs callbacks inside user-level progress (§10.2).
bool in_progress();
// Whether operations initiated by a set of personas still need internal progress to reach
// their targets (§10.3); discharge() makes internal progress until they do not.
//
// Which personas: with no argument, every persona the calling thread holds (its whole
// persona stack), as in UPC++ 2023.9; with a scope ps, the personas of ps and of the scopes
// pushed above it (2020.10's form, whose default was top_persona_scope()). This
// implementation answers for the whole process (outgoing RPC batches and parked messages
// are shared by its threads), which the specification allows: true means some persona's
// operations need progress, so every selection gets the same, conservative, answer.
//
// discharge() makes progress, so it may not be called inside the restricted context (UPC++
// 2023.9, UPC++ specification issue 104): debug codemode reports it. Precondition of the
// scope forms (checked in debug codemode): ps is one of the calling thread's live persona
// scopes.
bool progress_required();
bool progress_required(persona_scope& ps);
void discharge();
void discharge(persona_scope& ps);

namespace detail {

// persona::lpc: the result travels back to the initiating persona by a second LPC, so the
// returned future is readied only by its owner's progress.
template <typename Fut>
struct lpc_return;

template <typename... R>
struct lpc_return<future<R...>> {
  template <typename Func>
  static future<R...> start(persona& target, Func&& func) {
    persona& initiator = current_persona();
    auto* cell = new value_cell<R...>();
    cell->add_ref();  // held by the callbacks until the value is delivered
    target.lpc_ff([cell, &initiator, fn = std::decay_t<Func>(std::forward<Func>(func))]() mutable {
      future<R...> result = invoke_to_future<future<R...>>(fn, std::tuple<>{}, "an LPC callback (persona::lpc)");
      // The values leave this thread by move where they can (a move-only result works),
      // carried by an LPC back to the initiator.
      auto deliver = [cell, &initiator](future<R...>&& ready) {
        initiator.lpc_ff([cell, vals = std::move(ready).result_tuple()]() mutable {
          cell->emplace_tuple(std::move(vals));
          cell->fulfill(1);
          cell->drop_ref();
        });
      };
      if (result.ready()) {
        deliver(std::move(result));
        return;
      }
      // Pending: a second handle, kept by the callback, takes the values out once ready
      // (copied for a copyable type, since the then() state still shares them). A result
      // that never becomes ready drops the callback, and the handle with it.
      result.then([deliver, keep = result](cref_t<R>...) mutable { deliver(std::move(keep)); });
    });
    return future<R...>(adopt_cell, cell);
  }
};

}  // namespace detail

template <typename Func>
detail::lpc_future_t<std::invoke_result_t<std::decay_t<Func>&>> persona::lpc(Func&& func) {
  using result_future = detail::lpc_future_t<std::invoke_result_t<std::decay_t<Func>&>>;
  return detail::lpc_return<result_future>::start(*this, std::forward<Func>(func));
}

}  // namespace upcxx
