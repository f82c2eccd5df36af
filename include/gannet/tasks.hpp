// A distributed task pool with termination detection, after "Asynchronous Programming in
// UPC: A Case Study and Potential for Improvement". Gannet extension, not UPC++.
//
//   gannet::task_pool pool;               (world)  or  gannet::task_pool pool(team);
//       collective construction, in the order of the team's dist_object constructions
//   pool.spawn(rank, fn, args...)         queue fn(pool, args...) at `rank` of the pool's team
//   pool.run()                            collective: run tasks here until no task is queued
//                                         or in flight anywhere in the team, then return
//   pool.stats(), pool.pending()          counters and the length of this rank's queue
//
// A task runs on its rank as fn(pool, args...), `pool` being that rank's task_pool&, inside
// run() and one at a time per rank; it may spawn more tasks anywhere and may wait() on
// communication (the rank keeps making progress meanwhile, and takes arriving tasks into
// its queue, but starts no other task). fn and args follow rpc_ff's rules (spec 9.2):
// function pointers, trivially copyable lambdas or Serializable function objects, Serializable
// arguments, views, dist_object<T>& and team&. A task spawned to the calling rank is queued
// as is, without serialization, unless an argument's deserialized type differs from its own
// (views, for instance), in which case it is serialized as for another rank, so that a
// task sees the same arguments wherever it runs. A task spawned to another rank travels as
// one RPC record that its target copies into the queue (no remote lock, no round trip).
//
// Termination (docs/architecture.md, "Task pool"): every rank counts the tasks it sent to
// other ranks and those it received; a rank with nothing to run contributes its two counts
// to a wave, a sum over the team by recursive doubling (log2 P messages per rank, no central
// counter), and run() returns on every rank when two consecutive waves of the same run()
// saw equal sums, sent == received, or when one wave saw the sums of the last termination
// (nothing crossed ranks since: an empty run() is one wave). Only tasks count as work: an rpc that spawns a task
// when it runs is not tracked, so create tasks from tasks (or before run()).
//
// spawn and run must be called by the thread holding the master persona, run() not from
// inside progress (an RPC body, a callback). An exception that leaves a task ends the job
// with a message naming it. A rank whose run() has returned may spawn to a rank that is
// still on its way out of the same run(); such a task runs in that rank's next run() or,
// if it arrives first, before the old one returns (termination then waits for it).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/upcxx.hpp"

namespace gannet {

class task_pool;

// This rank's counts, since the pool was constructed.
struct task_stats {
  std::uint64_t run = 0;       // tasks this rank ran
  std::uint64_t spawned = 0;   // tasks this rank spawned, anywhere
  std::uint64_t sent = 0;      // of those, to other ranks
  std::uint64_t received = 0;  // tasks other ranks spawned here
};

namespace detail {

// Task memory (tasks.cpp, runtime/block_cache.hpp): per-thread free lists of 32-byte
// classes, 16-byte aligned, that keep a burst's nodes for the next burst (a queue of
// thousands of arrivals would otherwise cost a malloc and a free each); a pool's
// destruction trims them to 1024 per class.
void* node_allocate(std::size_t bytes);
void node_free(void* p, std::size_t bytes) noexcept;

// A queued task. run_and_free runs it with the pool of its rank, then frees the node; with a
// null pool it only frees it (a pool destroyed with tasks queued).
struct task_node {
  task_node* next = nullptr;
  void (*run_and_free)(task_node* self, task_pool* pool) = nullptr;
  static void* operator new(std::size_t bytes) { return node_allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { node_free(p, bytes); }
};

struct pool_core;  // termination detection (src/ext/tasks/tasks.cpp)
[[noreturn]] void fail_spawn_rank(upcxx::intrank_t rank, upcxx::intrank_t n);

// ---- a task queued here as it was spawned (no serialization) ----

// What a spawn argument is stored as in a local task: dist_object and team arguments by
// address (the callee gets the same object), anything else as a decayed copy.
template <typename A>
struct local_arg {
  using stored = A;
  static A&& use(A& a) { return std::move(a); }
  static A keep(const A& a) { return a; }
  static A keep(A&& a) { return std::move(a); }
};
template <typename T>
struct local_arg<upcxx::dist_object<T>> {
  using stored = upcxx::dist_object<T>*;
  static upcxx::dist_object<T>& use(stored p) { return *p; }
  static stored keep(const upcxx::dist_object<T>& d) { return const_cast<stored>(&d); }
};
template <>
struct local_arg<upcxx::team> {
  using stored = upcxx::team*;
  static upcxx::team& use(stored p) { return *p; }
  static stored keep(const upcxx::team& t) { return const_cast<stored>(&t); }
};

// Whether an argument of type A reaches a local task unchanged without serialization: its
// deserialized type is A itself, and it is not a view (whose bytes are the caller's).
template <typename A>
inline constexpr bool same_when_local_v = [] {
  if constexpr (std::is_same_v<A, upcxx::team> || upcxx::detail::rpc_arg<A>::dist) {
    return true;
  } else if constexpr (!upcxx::is_serializable<A>::value) {
    return true;  // refused by the serialized path's static_assert, which is instantiated too
  } else {
    return std::is_same_v<upcxx::deserialized_type_t<A>, A> && !upcxx::detail::never_trivial<A>::value;
  }
}();

template <typename Fn, typename... Args>
struct local_task final : task_node {
  Fn fn;
  std::tuple<typename local_arg<Args>::stored...> args;

  template <typename F, typename... A>
  explicit local_task(F&& f, A&&... a)
      : fn(std::forward<F>(f)), args(local_arg<Args>::keep(std::forward<A>(a))...) {
    run_and_free = &local_task::run;
  }
  static void run(task_node* self, task_pool* pool) {
    std::unique_ptr<local_task> t(static_cast<local_task*>(self));
    if (!pool) return;
    std::apply([&](auto&... a) { std::invoke(t->fn, *pool, local_arg<Args>::use(a)...); }, t->args);
  }
};

// ---- a task as a serialized RPC record ----
//
// The record is rpc.hpp's call record (rpc_fwd.hpp) with the pool's id in front of the
// function object, and an executor that copies the record into the queue rather than
// running it. The task deserializes its function object and arguments from that copy when
// it runs, so views point into bytes that live as long as the task.

struct record_task : task_node {
  std::size_t bytes = 0;
  const std::byte* body() const { return reinterpret_cast<const std::byte*>(this) + header; }
  static constexpr std::size_t header = (sizeof(task_node) + sizeof(std::size_t) + 15) & ~std::size_t{15};

  static record_task* copy(const std::byte* body, std::size_t bytes, void (*run)(task_node*, task_pool*)) {
    void* mem = node_allocate(header + bytes);
    auto* t = ::new (mem) record_task;
    t->bytes = bytes;
    t->run_and_free = run;
    std::memcpy(reinterpret_cast<std::byte*>(mem) + header, body, bytes);
    return t;
  }
  static void free(record_task* t) noexcept {
    const std::size_t bytes = header + t->bytes;
    t->~record_task();
    node_free(t, bytes);
  }
};
static_assert(alignof(record_task) <= 16);

// The pool a record names, in the process that received it: the last pool found is kept, so
// a run of arrivals for one pool costs one comparison each. Null while this process has not
// constructed the pool yet.
task_pool* pool_lookup(std::uint64_t id);
struct pool_cache {
  std::uint64_t id = 0;
  task_pool* pool = nullptr;
};
inline pool_cache g_pool_cache;  // master persona only
inline task_pool* pool_named(std::uint64_t id) {
  if (UPCXX_DETAIL_LIKELY(id == g_pool_cache.id)) return g_pool_cache.pool;
  return pool_lookup(id);
}
inline void task_arrived(task_pool& pool, task_node* node);        // queues an arrival and counts it (below)
void task_arrived_early(std::uint64_t pool_id, task_node* node);  // ... once the pool exists here

// The record: rpc_wire | the arguments' dist ids (rpc_fwd.hpp) | the pool's id (8 bytes) |
// function object | arguments. The pool travels as a plain id, not as a dist id, so that
// the runtime need not look it up before every arrival; a task for a pool not constructed
// here yet waits for it (as an RPC naming a dist_object would, spec §14.3).
inline std::uint64_t record_pool_id(const std::byte* body) {
  const auto* wire = reinterpret_cast<const upcxx::detail::rpc_wire*>(body);
  std::uint64_t id;
  std::memcpy(&id, body + upcxx::detail::rpc_stream_offset(wire->kind, wire->dist_ids), sizeof id);
  return id;
}

template <typename Fn, typename... Args>
struct record_exec {
  // The record arrived at its target (user-level progress of the master persona): queue it.
  static void arrived(const upcxx::detail::rpc_incoming& in) {
    const std::uint64_t id = record_pool_id(in.body);
    record_task* t = record_task::copy(in.body, in.bytes, &run);
    if (task_pool* pool = pool_named(id)) {
      task_arrived(*pool, t);
    } else {
      task_arrived_early(id, t);
    }
  }
  static void run(task_node* self, task_pool* pool) {
    struct release {
      void operator()(record_task* t) const noexcept { record_task::free(t); }
    };
    std::unique_ptr<record_task, release> t(static_cast<record_task*>(self));
    if (!pool) return;
    const std::byte* body = t->body();
    const auto* wire = reinterpret_cast<const upcxx::detail::rpc_wire*>(body);
    const auto* ids = reinterpret_cast<const std::uint64_t*>(body + upcxx::detail::rpc_ids_offset(wire->kind));
    upcxx::detail::serial_reader r(body + upcxx::detail::rpc_stream_offset(wire->kind, wire->dist_ids) +
                                   sizeof(std::uint64_t));
    upcxx::detail::function_holder<Fn> f(r);
    upcxx::detail::arg_holders<Args...> a(r, ids);
    a.apply([&](auto&&... v) { std::invoke(*f.fn, *pool, std::forward<decltype(v)>(v)...); });
  }
};

// How a function object travels: a function pointer as its token, anything else as itself.
template <typename Fn>
using wire_function_t =
    std::conditional_t<upcxx::detail::is_function_pointer_v<Fn>, upcxx::detail::fn_token, Fn>;

// Whether a task's record has a layout known at compile time (function and arguments all
// plain bytes, no dist ids, small): it is then written with fixed-offset copies, as
// rpc.hpp writes such calls.
template <typename Fn, typename... Args>
inline constexpr bool fixed_record_v = [] {
  namespace ud = upcxx::detail;
  using W = wire_function_t<Fn>;
  if constexpr (!(ud::is_function_pointer_v<Fn> || ud::kind_of<W>() == ud::serial_kind::trivial) ||
                !(ud::plain_bytes_arg_v<Args> && ...)) {
    return false;
  } else {
    return ud::fixed_layout<W, Args...>(sizeof(ud::rpc_wire) + sizeof(std::uint64_t)).end <= ud::rpc_inline_bytes;
  }
}();

// Serializes fn and args into a record naming pool `pool_id` and hands it to
// `consume(bytes, size)`.
template <typename Fn, typename... Args, typename Consume>
void write_record(std::uint64_t pool_id, const Fn& fn, Consume&& consume, const Args&... args) {
  namespace ud = upcxx::detail;
  using exec = record_exec<Fn, ud::remove_cvref_t<Args>...>;
  if constexpr (fixed_record_v<Fn, ud::remove_cvref_t<Args>...>) {
    using W = wire_function_t<Fn>;
    static constexpr ud::fixed_layout<W, ud::remove_cvref_t<Args>...> at(sizeof(ud::rpc_wire) + sizeof(std::uint64_t));
    alignas(16) std::byte buf[at.end];
    const ud::rpc_wire wire{0, ud::rpc_call, 0, ud::exec_token<&exec::arrived>().bits};
    std::memcpy(buf, &wire, sizeof wire);
    std::memcpy(buf + sizeof wire, &pool_id, sizeof pool_id);
    if constexpr (ud::is_function_pointer_v<Fn>) {
      const ud::fn_token token = ud::encode_function(reinterpret_cast<const void*>(fn));
      std::memcpy(buf + at.fn, &token, sizeof token);
    } else if constexpr (!std::is_empty_v<Fn>) {
      // An empty function object has no value bits: its byte is left as is.
      std::memcpy(buf + at.fn, ud::addr_of(fn), sizeof(Fn));
    }
    std::size_t i = 0;
    (std::memcpy(buf + at.args[i++], ud::addr_of(args), sizeof(Args)), ...);
    consume(buf, at.end);
  } else {
    constexpr std::uint16_t n_ids = (ud::rpc_arg<ud::remove_cvref_t<Args>>::dist + ... + 0);
    alignas(16) std::byte inline_buf[ud::rpc_inline_bytes];
    ud::serial_writer w(inline_buf, sizeof inline_buf);
    ud::serialize_into(w, ud::rpc_wire{0, ud::rpc_call, n_ids, ud::exec_token<&exec::arrived>().bits});
    (ud::write_dist_id(w, args), ...);
    if constexpr (n_ids % 2 != 0) ud::serialize_into(w, std::uint64_t{0});  // pad the ids to 16
    ud::serialize_into(w, pool_id);
    ud::write_function(w, fn);
    (ud::write_arg(w, args), ...);
    consume(w.data(), w.size());
  }
}

}  // namespace detail

class task_pool {
 public:
  // Collective over `team` (world by default), like a dist_object's construction; the team
  // must outlive the pool.
  task_pool() : task_pool(upcxx::world()) {}
  explicit task_pool(const upcxx::team& team);
  // Not collective. Tasks still queued here are dropped without running.
  ~task_pool();
  task_pool(const task_pool&) = delete;
  task_pool& operator=(const task_pool&) = delete;

  // Queues fn(pool, args...) at `rank` of the pool's team (see the top of this file).
  template <typename Fn, typename... Args>
  void spawn(upcxx::intrank_t rank, Fn&& fn, Args&&... args) {
    using F = std::decay_t<Fn>;
    if (UPCXX_DETAIL_UNLIKELY(static_cast<std::uint64_t>(rank) >= static_cast<std::uint64_t>(n_)))
      detail::fail_spawn_rank(rank, n_);
#if UPCXX_ASSERT_ENABLED
    upcxx::detail::check_master_persona("gannet::task_pool::spawn");
#endif
    ++stats_.spawned;
    if (rank == me_) {
      if constexpr ((detail::same_when_local_v<upcxx::detail::remove_cvref_t<Args>> && ...)) {
        push(new detail::local_task<F, upcxx::detail::remove_cvref_t<Args>...>(std::forward<Fn>(fn),
                                                                                std::forward<Args>(args)...));
      } else {
        detail::write_record<F>(id_, fn, [this](std::byte* body, std::size_t bytes) {
          using exec = detail::record_exec<F, upcxx::detail::remove_cvref_t<Args>...>;
          push(detail::record_task::copy(body, bytes, &exec::run));
        }, args...);
      }
    } else {
      ++stats_.sent;
      const upcxx::intrank_t target = team_->operator[](rank);
      detail::write_record<F>(id_, fn, [target](std::byte* body, std::size_t bytes) {
        upcxx::detail::rpc_send(target, body, bytes);
      }, args...);
    }
  }

  // Collective over the team: runs this rank's tasks, and those that arrive, until no task is
  // queued or in flight anywhere in the team; returns on every rank. Not from inside a task.
  void run();

  task_stats stats() const { return stats_; }
  std::size_t pending() const { return queued_; }
  const upcxx::team& team() const { return *team_; }

 private:
  friend void detail::task_arrived(task_pool&, detail::task_node*);
  friend void detail::task_arrived_early(std::uint64_t, detail::task_node*);
  friend struct detail::pool_core;

  void push(detail::task_node* t) {
    if (tail_) {
      tail_->next = t;
    } else {
      head_ = t;
    }
    tail_ = t;
    ++queued_;
  }
  detail::task_node* pop() {
    detail::task_node* t = head_;
    if (t) {
      head_ = t->next;
      if (!head_) tail_ = nullptr;
      --queued_;
    }
    return t;
  }

  const upcxx::team* team_;
  upcxx::intrank_t me_;
  upcxx::intrank_t n_;
  detail::task_node* head_ = nullptr;
  detail::task_node* tail_ = nullptr;
  std::size_t queued_ = 0;
  task_stats stats_;
  bool running_ = false;
  std::unique_ptr<detail::pool_core> core_;
  upcxx::dist_object<task_pool*> self_;     // names this pool in records and waves
  std::uint64_t id_;                        // self_'s raw id
};

namespace detail {
inline void task_arrived(task_pool& pool, task_node* node) {
  ++pool.stats_.received;
  pool.push(node);
}
}  // namespace detail

}  // namespace gannet
