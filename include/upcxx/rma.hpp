// One-sided communication (spec chapter 8): rput and rget, scalar and bulk, with any
// completion object (completion.hpp).
//
// Paths: when the target is load/store addressable from this process (every rank on this
// machine) the data moves by a plain copy before the call returns, and every completion
// event has happened synchronously: eager notifications are delivered at once with no
// allocation. Otherwise the operation goes through the transport and its
// notifications arrive during later user-level progress of the initiating persona.
//
// Progress level: internal (the call may poll the transport). Memory ordering as spec
// §8.2: the data movement happens-before the operation-completion notification.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/completion.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/serialization.hpp"

namespace upcxx {

namespace detail {

// rput/rget move bytes: the element type must be TriviallySerializable (spec §8.1), and
// the last argument, if given, a completion object. Checked by static_assert rather than
// by constraints: no other overload could take the call, and the message says what is wrong.
// A class, not a function: its assertions fire where rput/rget names it, before any error
// that the body would go on to produce.
template <typename T, typename Cx>
struct rma_types_check {
  static_assert(upcxx::is_trivially_serializable<T>::value,
                "upcxx::rput/rget: the element type must be TriviallySerializable "
                "(is_trivially_serializable<T>; spec 8.1)");
  static_assert(is_completion_object_v<Cx>,
                "upcxx::rput/rget: the argument after the pointers and count must be a completion object "
                "(completion_object: a source_cx/operation_cx/remote_cx factory, or a | of them; spec 7)");
};
template <typename Cx>
struct rget_cx_check {
  static_assert(!cx_asks_for<detail::remove_cvref_t<Cx>, cx_event::source>,
                "upcxx::rget has no source completion (spec 8.2.2): its source is remote memory; use "
                "operation_cx::as_future() (or as_promise, as_lpc, and remote_cx::as_rpc)");
};

[[noreturn]] void fail_null_rma(const char* what, const detail::source_loc& loc);

// Debug codemode: null pointers and buffers are caught with the caller's location (spec
// §8.2: they must not be null). In opt codemode the check is empty and the callers'
// side-effect-free conditions compile away.
inline void check_rma_args([[maybe_unused]] bool null_argument, [[maybe_unused]] const char* what,
                           [[maybe_unused]] const detail::source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (UPCXX_DETAIL_UNLIKELY(null_argument))
    fail_null_rma(what, loc);
#endif
}

// ---- the off-node path (src/rma/rma.cpp) ----
inline constexpr unsigned ev_source = 1, ev_operation = 2;

struct rma_op : pooled {
  void (*on_events)(rma_op* self, unsigned events) = nullptr;  // from internal progress
  persona* initiator = nullptr;
  unsigned pending = 0;  // events not yet delivered
  // GANNET_TRACE/GANNET_STATS: when the operation started (0: not observed), what and where.
  std::uint64_t observed_t0 = 0;
  std::uint64_t observed_bytes = 0;
  intrank_t observed_peer = 0;
  std::uint8_t observed_kind = 0;  // observe_op: rput, rget, atomic, vis_put, vis_get
  std::uint16_t observed_track = 0;  // the initiating thread's track (another may complete it)
  // Room for the runtime's adapter to the transport's completion interface, so an
  // off-node operation costs one allocation.
  alignas(void*) unsigned char sink_storage[2 * sizeof(void*)];
};

// GANNET_TRACE/GANNET_STATS: an off-node operation's span runs from observe_start to
// observed_done (at operation completion), src/rma/rma.cpp.
void observe_start(rma_op* op, observe_op kind, intrank_t rank, std::size_t n);
void observed_done(rma_op* op);

// Inject through the transport; later events reach op->on_events from inside progress.
// `transient_src`: src dies when the call returns (a by-value scalar), so the transport copies it.
void rma_put_remote(intrank_t rank, const void* owner_addr, const void* src, std::size_t n, rma_op* op,
                    bool transient_src = false);
void rma_get_remote(intrank_t rank, const void* owner_addr, void* dst, std::size_t n, rma_op* op);

template <typename Cxs, typename SrcVals, typename OpVals>
struct async_op;

// An RMA in flight through the transport: its notifications (cx_async_state) and, for a
// value-producing rget, the value's landing place.
template <typename Cxs, typename... S, typename... O>
struct async_op<Cxs, std::tuple<S...>, std::tuple<O...>> : rma_op {
  cx_async_state<Cxs, std::tuple<S...>, std::tuple<O...>> cx;
  std::tuple<O...> op_values{};

  async_op(Cxs&& c, unsigned events, intrank_t target) : cx(std::move(c), target) {
    initiator = cx.initiator;
    pending = events;
    on_events = &async_op::deliver;
  }
  auto prepare() { return cx.prepare(); }

  static void deliver(rma_op* base, unsigned events) {
    auto* self = static_cast<async_op*>(base);
    events &= self->pending;
    if (events & ev_source) self->cx.template notify<cx_event::source>(std::tuple<S...>{});
    if (events & ev_operation) {
      // A put's remote completion is its operation completion (the data is in place).
      self->cx.template notify<cx_event::remote>(std::tuple<>{});
      self->cx.template notify<cx_event::operation>(self->op_values);
    }
    self->pending &= ~events;
    if (self->pending == 0) delete self;
  }
};

// Prepares the notifications, then injects: a transport may report events from inside the
// injection, and they must find the futures in place.
template <typename Op, typename Inject>
decltype(auto) start_async(Op* op, Inject&& inject) {
  if constexpr (std::is_void_v<decltype(op->prepare())>) {
    op->prepare();
    inject();
  } else {
    auto result = op->prepare();
    inject();
    return result;
  }
}

template <typename Cx>
using cx_decay = detail::remove_cvref_t<Cx>;

}  // namespace detail

// ---- rput (spec §8.2.1) ----

template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto rput(T value, global_ptr<T> dest, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_assert(detail::value_size_ok<T>,
                UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::rput(value, ...)", "rput(const T* src, dest, count)"));
  static_cast<void>(sizeof(detail::rma_types_check<T, Cx>));
  detail::check_init("upcxx::rput", loc);  // before anything reads the peer table (debug codemode)
  detail::check_rma_args(dest.is_null(), "upcxx::rput", loc);
  detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
  if (UPCXX_DETAIL_LIKELY(dest.detail_addressable())) {
    detail::local_copy(0, dest.where(), static_cast<void*>(dest.detail_local_unchecked()), &value, sizeof(T));
    return detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, dest.where());
  }
  auto* op = new detail::async_op<detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(
      std::move(cxs), detail::ev_source | detail::ev_operation, dest.where());
  return detail::start_async(op, [&] { detail::rma_put_remote(dest.where(), dest.raw_, &value, sizeof(T), op, true); });
}

template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto rput(const T* src, global_ptr<T> dest, std::size_t count, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_cast<void>(sizeof(detail::rma_types_check<T, Cx>));
  detail::check_init("upcxx::rput", loc);  // before anything reads the peer table (debug codemode)
  detail::check_rma_args(dest.is_null() || src == nullptr, "upcxx::rput", loc);
  detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
  if (UPCXX_DETAIL_LIKELY(dest.detail_addressable())) {
    detail::local_copy(0, dest.where(), static_cast<void*>(dest.detail_local_unchecked()), src, count * sizeof(T));
    return detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, dest.where());
  }
  auto* op = new detail::async_op<detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(
      std::move(cxs), detail::ev_source | detail::ev_operation, dest.where());
  return detail::start_async(op, [&] { detail::rma_put_remote(dest.where(), dest.raw_, src, count * sizeof(T), op); });
}

// ---- rget (spec §8.2.2) ----

template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto rget(global_ptr<const T> src, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_assert(detail::value_size_ok<T>,
                UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::rget(src) returning a value", "rget(src, T* dest, count)"));
  static_cast<void>(sizeof(detail::rma_types_check<T, Cx>));
  static_cast<void>(sizeof(detail::rget_cx_check<Cx>));
  detail::check_init("upcxx::rget", loc);  // before anything reads the peer table (debug codemode)
  detail::check_rma_args(src.is_null(), "upcxx::rget", loc);
  detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
  if (UPCXX_DETAIL_LIKELY(src.detail_addressable())) {
    std::tuple<T> value;
    detail::local_copy(1, src.where(), static_cast<void*>(&std::get<0>(value)), src.detail_local_unchecked(), sizeof(T));
    return detail::complete_sync(cxs, std::tuple<>{}, value, src.where());
  }
  auto* op = new detail::async_op<detail::cx_decay<Cx>, std::tuple<>, std::tuple<T>>(std::move(cxs),
                                                                                    detail::ev_operation, src.where());
  return detail::start_async(
      op, [&] { detail::rma_get_remote(src.where(), src.raw_, &std::get<0>(op->op_values), sizeof(T), op); });
}

template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto rget(global_ptr<const T> src, T* dest, std::size_t count, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_cast<void>(sizeof(detail::rma_types_check<T, Cx>));
  static_cast<void>(sizeof(detail::rget_cx_check<Cx>));
  detail::check_init("upcxx::rget", loc);  // before anything reads the peer table (debug codemode)
  detail::check_rma_args(src.is_null() || dest == nullptr, "upcxx::rget", loc);
  detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
  if (UPCXX_DETAIL_LIKELY(src.detail_addressable())) {
    detail::local_copy(1, src.where(), static_cast<void*>(dest), src.detail_local_unchecked(), count * sizeof(T));
    return detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, src.where());
  }
  auto* op = new detail::async_op<detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(std::move(cxs),
                                                                                   detail::ev_operation, src.where());
  return detail::start_async(op, [&] { detail::rma_get_remote(src.where(), src.raw_, dest, count * sizeof(T), op); });
}

}  // namespace upcxx
