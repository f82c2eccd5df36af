// Non-contiguous one-sided communication (spec chapter 15) and upcxx::copy (spec §16.2.3,
// host memory).
//
//   rput_irregular / rget_irregular   runs of (pointer, element count) on each side
//   rput_regular   / rget_regular     pointers on each side, one run length per side
//   rput_strided   / rget_strided     N-d rectangular sections (strides in bytes), Dim given
//                                     explicitly with pointer arguments or deduced from
//                                     std::array arguments
//   copy                              global to global, private to global, global to private
//
// Every call is one-sided and takes any completion object (completion.hpp). Puts and copy
// signal source, remote (remote_cx::as_rpc) and operation completion; gets signal operation
// completion (spec 15.2.3 ¶16, 15.2.5 ¶11, 15.2.7 ¶8) and, as in UPC++, remote completion:
// a get's remote_cx::as_rpc runs at the source's owner after the data has been read.
//
// Paths. When the remote side is load/store addressable from this process (global_ptr::
// is_local(): every rank on this machine) the runs are copied with memcpy before the call
// returns and every event has happened: eager notifications are delivered at once, with no
// allocation. Otherwise a put packs the data and the destination runs into ONE runtime
// message to the target, which stores them and replies; a get sends the source runs and the
// target replies with the packed bytes, which are unpacked here. Notifications then arrive
// in later user-level progress of the initiating persona. A put's remote_cx::as_rpc leaves
// right behind its data message in the same ordered stream, so it runs at the target after
// the data landed. upcxx::copy uses the contiguous rput/rget transport paths; a copy between
// two ranks that are both not addressable from here relays through a temporary buffer here
// (a get, then a put).
//
// Preconditions checked in debug codemode (with the caller's file and line): no null
// pointers; every run of the remote side has affinity to the same rank. The library checks
// in every codemode that both sides hold the same number of bytes.
//
// Progress level: internal. Memory ordering as spec 15.2: the writes to the destination
// happen-before the operation-completion notifications and the remote-completion RPC.
#pragma once

#include "upcxx/version.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/completion.hpp"
#include "upcxx/detail/source_loc.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/rma.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/serialization.hpp"

namespace upcxx {
namespace detail {

template <typename T>
using vis_decay_t = std::remove_cv_t<std::remove_reference_t<T>>;

// One side of a transfer as a sequence of byte runs. Type-erased so that the data movement
// is non-template code (src/rma/vis.cpp): next() yields the next run's address and
// length and returns false at the end. On the remote side the address is the owner's
// (global_ptr::raw_); the runtime adds the per-rank delta where the memory is addressable.
struct vis_runs {
  bool (*next)(vis_runs* self, std::uintptr_t* addr, std::size_t* bytes);
};

// The runs of an iterator range; Fn maps one element to (address, bytes).
template <typename It, typename Fn>
struct vis_iter_runs final : vis_runs {
  It cur, end;
  Fn fn;
  vis_iter_runs(It b, It e, Fn f) : vis_runs{&vis_iter_runs::step}, cur(b), end(e), fn(f) {}
  static bool step(vis_runs* base, std::uintptr_t* addr, std::size_t* bytes) {
    auto* self = static_cast<vis_iter_runs*>(base);
    if (self->cur == self->end) return false;
    self->fn(*self->cur, addr, bytes);
    ++self->cur;
    return true;
  }
};
template <typename It, typename Fn>
vis_iter_runs<It, Fn> vis_iter(It b, It e, Fn f) {
  return vis_iter_runs<It, Fn>(b, e, f);
}

// The runs of a strided section. Leading dimensions that continue the run in front of them
// (stride == bytes so far, or extent 1) merge into one run, so a section whose first
// dimension is dense costs one run per row, not one per element. index is the caller's
// storage for dim counters (no allocation).
struct vis_strided_runs : vis_runs {
  std::uintptr_t base = 0;
  const std::ptrdiff_t* strides = nullptr;
  const std::size_t* extents = nullptr;
  std::size_t* index = nullptr;
  std::size_t dim = 0;
  std::size_t merged = 0;  // leading dimensions folded into one run
  std::size_t run_bytes = 0;
  std::ptrdiff_t offset = 0;  // of the current run from base
  bool done = false;
};
void vis_strided_init(vis_strided_runs& r, std::uintptr_t base, const std::ptrdiff_t* strides,
                      const std::size_t* extents, std::size_t dim, std::size_t elem_bytes, std::size_t* index);

// An event bit private to non-contiguous operations: set while the initiating call still
// uses the operation, so a reply handled inside the call cannot free it.
inline constexpr unsigned ev_hold = 4;

// Copies src runs to dst runs, both addressable here once the deltas are added.
// Returns the bytes copied.
std::size_t vis_copy_local(vis_runs& src, std::intptr_t src_delta, vis_runs& dst, std::intptr_t dst_delta, const char* what,
                    const source_loc& loc);
// Off-node put: one message to rank with the destination runs and the packed data. Delivers
// ev_source before it returns; after_send (may be null) runs right after the message is
// queued, before any later record to rank; ev_operation comes with the target's reply;
// ev_hold is released last.
void vis_put_remote(intrank_t rank, vis_runs& src, vis_runs& dst, rma_op* op, void (*after_send)(rma_op*),
                    const char* what, const source_loc& loc);
// Off-node get: one request with the source runs; the reply's bytes are unpacked into dst
// (collected now), then ev_source | ev_operation. ev_hold is released before it returns.
void vis_get_remote(intrank_t rank, vis_runs& src, vis_runs& dst, rma_op* op, const char* what,
                    const source_loc& loc);
// copy between two ranks neither of which is addressable here: a get into a temporary buffer,
// then a put from it; op receives ev_source when the temporary holds the data, ev_operation
// when the put is acknowledged. ev_hold is released when the put is sent.
void vis_copy_relay(intrank_t src_rank, std::uintptr_t src_owner_addr, intrank_t dst_rank,
                    std::uintptr_t dst_owner_addr, std::size_t bytes, rma_op* op);

[[noreturn]] void vis_fail_null(const char* what, const source_loc& loc);
[[noreturn]] void vis_fail_ranks(const char* what, intrank_t first, intrank_t other, const source_loc& loc);
[[noreturn]] void vis_fail_device(const char* what, const source_loc& loc);

// A non-contiguous operation in flight off-node.
template <typename Cxs>
struct vis_op final : rma_op {
  cx_async_state<Cxs, std::tuple<>, std::tuple<>> cx;
  // The initiating call sends remote_cx::as_rpc behind the data (puts); otherwise it is
  // sent at operation completion, when the data is known to be in place.
  bool remote_by_initiator;

  vis_op(Cxs&& c, unsigned events, intrank_t remote_target, bool remote_early)
      : cx(std::move(c), remote_target), remote_by_initiator(remote_early) {
    initiator = cx.initiator;
    pending = events | ev_hold;
    on_events = &vis_op::deliver;
  }
  auto prepare() { return cx.prepare(); }

  static void deliver(rma_op* base, unsigned events) {
    auto* self = static_cast<vis_op*>(base);
    events &= self->pending;
    if (events & ev_source) self->cx.template notify<cx_event::source>(std::tuple<>{});
    if (events & ev_operation) {
      if (!self->remote_by_initiator) self->cx.template notify<cx_event::remote>(std::tuple<>{});
      self->cx.template notify<cx_event::operation>(std::tuple<>{});
    }
    self->pending &= ~events;
    if (self->pending == 0) delete self;
  }
  static void send_remote(rma_op* base) {
    static_cast<vis_op*>(base)->cx.template notify<cx_event::remote>(std::tuple<>{});
  }
};

template <typename Cxs>
inline constexpr bool vis_cx_ok = is_completions<Cxs>::value;

// Gets have no source completion (spec 15.2.3 ¶16). Remote completion (remote_cx::as_rpc),
// which the specification lists for puts only, is accepted as UPC++ accepts it: the RPC runs
// at the owner of the source once the data has been read.
template <typename Cxs>
struct vis_no_source : std::false_type {};
template <typename... Items>
struct vis_no_source<completions<Items...>> : std::bool_constant<((Items::event != cx_event::source) && ...)> {};

// Put from local runs to runs at `rank`. `local`: rank's memory is addressable here.
template <typename Cx>
auto vis_put(intrank_t rank, bool local, vis_runs& src, vis_runs& dst, Cx&& completions, const char* what,
             const source_loc& loc) {
  using cxs_t = vis_decay_t<Cx>;
  static_assert(vis_cx_ok<cxs_t>,
                "upcxx::rput_{irregular,regular,strided}: the last argument must be a completion object "
                "(operation_cx::as_future(), source_cx::as_promise(p) | remote_cx::as_rpc(f), ...)");
  cxs_t cxs(std::forward<Cx>(completions));
  if (local) {
    const std::uint64_t t0 = observe_begin();
    const std::size_t bytes = vis_copy_local(src, 0, dst, g_state.peers[rank].delta, what, loc);
    if (UPCXX_DETAIL_UNLIKELY(t0 != 0)) observed_span(observe_vis_put, rank, bytes, t0);
    return complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, rank);
  }
  auto* op = new vis_op<cxs_t>(std::move(cxs), ev_source | ev_operation, rank, true);
  return start_async(op, [&] { vis_put_remote(rank, src, dst, op, &vis_op<cxs_t>::send_remote, what, loc); });
}

// Get from runs at `rank` into local runs.
template <typename Cx>
auto vis_get(intrank_t rank, bool local, vis_runs& src, vis_runs& dst, Cx&& completions, const char* what,
             const source_loc& loc) {
  using cxs_t = vis_decay_t<Cx>;
  static_assert(vis_cx_ok<cxs_t>,
                "upcxx::rget_{irregular,regular,strided}: the last argument must be a completion object "
                "(operation_cx::as_future(), operation_cx::as_promise(p), ...)");
  static_assert(vis_no_source<cxs_t>::value,
                "upcxx::rget_{irregular,regular,strided} have no source completion (spec 15.2.3 ¶16): "
                "use operation_cx:: (or remote_cx::as_rpc) completions");
  cxs_t cxs(std::forward<Cx>(completions));
  if (local) {
    const std::uint64_t t0 = observe_begin();
    const std::size_t bytes = vis_copy_local(src, g_state.peers[rank].delta, dst, 0, what, loc);
    if (UPCXX_DETAIL_UNLIKELY(t0 != 0)) observed_span(observe_vis_get, rank, bytes, t0);
    return complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, rank);
  }
  // remote_cx::as_rpc leaves for the source's owner at operation completion (the data has
  // been read).
  auto* op = new vis_op<cxs_t>(std::move(cxs), ev_operation, rank, false);
  return start_async(op, [&] { vis_get_remote(rank, src, dst, op, what, loc); });
}

// Debug codemode: every remote run non-null and on `rank`; every local run non-null.
template <typename It, typename Gp>
void vis_check_remote(It b, It e, intrank_t rank, Gp gp_of, const char* what, const source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  for (; b != e; ++b) {
    auto gp = gp_of(*b);
    if (gp.is_null()) vis_fail_null(what, loc);
    if (gp.where() != rank) vis_fail_ranks(what, rank, gp.where(), loc);
  }
#else
  (void)b, (void)e, (void)rank, (void)gp_of, (void)what, (void)loc;
#endif
}
template <typename It, typename Ptr>
void vis_check_local(It b, It e, Ptr ptr_of, const char* what, const source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  for (; b != e; ++b)
    if (ptr_of(*b) == nullptr) vis_fail_null(what, loc);
#else
  (void)b, (void)e, (void)ptr_of, (void)what, (void)loc;
#endif
}
inline void vis_check_nonnull(bool null_argument, const char* what, const source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (null_argument) vis_fail_null(what, loc);
#else
  (void)null_argument, (void)what, (void)loc;
#endif
}

template <typename T>
std::uintptr_t vis_addr(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

template <std::size_t Dim, typename T, typename Cx>
auto vis_put_strided(const T* src_base, const std::ptrdiff_t* src_strides, global_ptr<T> dest_base,
                     const std::ptrdiff_t* dest_strides, const std::size_t* extents, Cx&& completions,
                     const source_loc& loc) {
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rput_strided: T must be TriviallySerializable (spec 15.2.6 ¶3)");
  constexpr const char* what = "upcxx::rput_strided";
  vis_check_nonnull(src_base == nullptr || dest_base.is_null(), what, loc);
  std::size_t src_index[Dim > 0 ? Dim : 1], dest_index[Dim > 0 ? Dim : 1];
  vis_strided_runs src, dst;
  vis_strided_init(src, vis_addr(src_base), src_strides, extents, Dim, sizeof(T), src_index);
  vis_strided_init(dst, vis_addr(dest_base.raw_), dest_strides, extents, Dim, sizeof(T), dest_index);
  return vis_put(dest_base.where(), dest_base.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

template <std::size_t Dim, typename T, typename Cx>
auto vis_get_strided(global_ptr<const T> src_base, const std::ptrdiff_t* src_strides, T* dest_base,
                     const std::ptrdiff_t* dest_strides, const std::size_t* extents, Cx&& completions,
                     const source_loc& loc) {
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rget_strided: T must be TriviallySerializable (spec 15.2.7 ¶2)");
  constexpr const char* what = "upcxx::rget_strided";
  vis_check_nonnull(src_base.is_null() || dest_base == nullptr, what, loc);
  std::size_t src_index[Dim > 0 ? Dim : 1], dest_index[Dim > 0 ? Dim : 1];
  vis_strided_runs src, dst;
  vis_strided_init(src, vis_addr(src_base.raw_), src_strides, extents, Dim, sizeof(T), src_index);
  vis_strided_init(dst, vis_addr(dest_base), dest_strides, extents, Dim, sizeof(T), dest_index);
  return vis_get(src_base.where(), src_base.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

}  // namespace detail

// ---- irregular (spec 15.2.2, 15.2.3) ----

template <typename SrcIter, typename DestIter, typename Cx = decltype(operation_cx::as_future())>
auto rput_irregular(SrcIter src_runs_begin, SrcIter src_runs_end, DestIter dest_runs_begin, DestIter dest_runs_end,
                    Cx&& completions = operation_cx::as_future(),
                    detail::source_loc loc = detail::source_loc::current()) {
  using dest_gptr = detail::vis_decay_t<decltype(std::get<0>(*dest_runs_begin))>;
  using T = std::remove_const_t<typename dest_gptr::element_type>;
  using src_elem = std::remove_cv_t<std::remove_pointer_t<detail::vis_decay_t<decltype(std::get<0>(*src_runs_begin))>>>;
  static_assert(std::is_same_v<src_elem, T>,
                "upcxx::rput_irregular: the source runs' and the destination runs' element types must be the same T "
                "(spec 15.2); convert the data first");
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rput_irregular: T must be TriviallySerializable (spec 15.2.2 ¶3)");
  constexpr const char* what = "upcxx::rput_irregular";
  // An empty destination: nothing moves, remote completion runs here (spec 15.2.2 ¶16).
  const bool empty = dest_runs_begin == dest_runs_end;
  const global_ptr<const T> first = empty ? global_ptr<const T>() : global_ptr<const T>(std::get<0>(*dest_runs_begin));
  const intrank_t rank = empty ? detail::g_state.rank_me : first.where();
  detail::vis_check_remote(
      dest_runs_begin, dest_runs_end, rank, [](const auto& run) { return global_ptr<const T>(std::get<0>(run)); },
      what, loc);
  detail::vis_check_local(
      src_runs_begin, src_runs_end, [](const auto& run) { return static_cast<const T*>(std::get<0>(run)); }, what,
      loc);
  auto src = detail::vis_iter(src_runs_begin, src_runs_end, [](const auto& run, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(static_cast<const T*>(std::get<0>(run)));
    *n = static_cast<std::size_t>(std::get<1>(run)) * sizeof(T);
  });
  auto dst = detail::vis_iter(dest_runs_begin, dest_runs_end, [](const auto& run, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(global_ptr<const T>(std::get<0>(run)).raw_);
    *n = static_cast<std::size_t>(std::get<1>(run)) * sizeof(T);
  });
  return detail::vis_put(rank, empty || first.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

template <typename SrcIter, typename DestIter, typename Cx = decltype(operation_cx::as_future())>
auto rget_irregular(SrcIter src_runs_begin, SrcIter src_runs_end, DestIter dest_runs_begin, DestIter dest_runs_end,
                    Cx&& completions = operation_cx::as_future(),
                    detail::source_loc loc = detail::source_loc::current()) {
  using dest_ptr = detail::vis_decay_t<decltype(std::get<0>(*dest_runs_begin))>;
  static_assert(std::is_pointer_v<dest_ptr>, "upcxx::rget_irregular: destination runs must start with a T*");
  using T = std::remove_cv_t<std::remove_pointer_t<dest_ptr>>;
  using src_elem = std::remove_cv_t<typename detail::vis_decay_t<decltype(std::get<0>(*src_runs_begin))>::element_type>;
  static_assert(std::is_same_v<src_elem, T>,
                "upcxx::rget_irregular: the source runs' and the destination runs' element types must be the same T "
                "(spec 15.2); convert the data first");
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rget_irregular: T must be TriviallySerializable (spec 15.2.3 ¶3)");
  constexpr const char* what = "upcxx::rget_irregular";
  const bool empty = src_runs_begin == src_runs_end;
  const global_ptr<const T> first = empty ? global_ptr<const T>() : global_ptr<const T>(std::get<0>(*src_runs_begin));
  const intrank_t rank = empty ? detail::g_state.rank_me : first.where();
  detail::vis_check_remote(
      src_runs_begin, src_runs_end, rank, [](const auto& run) { return global_ptr<const T>(std::get<0>(run)); },
      what, loc);
  detail::vis_check_local(
      dest_runs_begin, dest_runs_end, [](const auto& run) { return static_cast<T*>(std::get<0>(run)); }, what, loc);
  auto src = detail::vis_iter(src_runs_begin, src_runs_end, [](const auto& run, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(global_ptr<const T>(std::get<0>(run)).raw_);
    *n = static_cast<std::size_t>(std::get<1>(run)) * sizeof(T);
  });
  auto dst = detail::vis_iter(dest_runs_begin, dest_runs_end, [](const auto& run, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(static_cast<T*>(std::get<0>(run)));
    *n = static_cast<std::size_t>(std::get<1>(run)) * sizeof(T);
  });
  return detail::vis_get(rank, empty || first.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

// ---- regular (spec 15.2.4, 15.2.5) ----

template <typename SrcIter, typename DestIter, typename Cx = decltype(operation_cx::as_future())>
auto rput_regular(SrcIter src_runs_begin, SrcIter src_runs_end, std::size_t src_run_length, DestIter dest_runs_begin,
                  DestIter dest_runs_end, std::size_t dest_run_length, Cx&& completions = operation_cx::as_future(),
                  detail::source_loc loc = detail::source_loc::current()) {
  using dest_gptr = detail::vis_decay_t<decltype(*dest_runs_begin)>;
  using T = std::remove_const_t<typename dest_gptr::element_type>;
  using src_elem = std::remove_cv_t<std::remove_pointer_t<detail::vis_decay_t<decltype(*src_runs_begin)>>>;
  static_assert(std::is_same_v<src_elem, T>,
                "upcxx::rput_regular: the source runs' and the destination runs' element types must be the same T "
                "(spec 15.2); convert the data first");
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rput_regular: T must be TriviallySerializable (spec 15.2.4 ¶3)");
  constexpr const char* what = "upcxx::rput_regular";
  const bool empty = dest_runs_begin == dest_runs_end;
  const global_ptr<const T> first = empty ? global_ptr<const T>() : global_ptr<const T>(*dest_runs_begin);
  const intrank_t rank = empty ? detail::g_state.rank_me : first.where();
  detail::vis_check_remote(
      dest_runs_begin, dest_runs_end, rank, [](const auto& p) { return global_ptr<const T>(p); }, what, loc);
  detail::vis_check_local(
      src_runs_begin, src_runs_end, [](const auto& p) { return static_cast<const T*>(p); }, what, loc);
  const std::size_t src_bytes = src_run_length * sizeof(T), dest_bytes = dest_run_length * sizeof(T);
  auto src = detail::vis_iter(src_runs_begin, src_runs_end, [src_bytes](const auto& p, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(static_cast<const T*>(p));
    *n = src_bytes;
  });
  auto dst = detail::vis_iter(dest_runs_begin, dest_runs_end, [dest_bytes](const auto& p, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(global_ptr<const T>(p).raw_);
    *n = dest_bytes;
  });
  return detail::vis_put(rank, empty || first.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

template <typename SrcIter, typename DestIter, typename Cx = decltype(operation_cx::as_future())>
auto rget_regular(SrcIter src_runs_begin, SrcIter src_runs_end, std::size_t src_run_length, DestIter dest_runs_begin,
                  DestIter dest_runs_end, std::size_t dest_run_length, Cx&& completions = operation_cx::as_future(),
                  detail::source_loc loc = detail::source_loc::current()) {
  using dest_ptr = detail::vis_decay_t<decltype(*dest_runs_begin)>;
  static_assert(std::is_pointer_v<dest_ptr>, "upcxx::rget_regular: destination runs must be T*");
  using T = std::remove_cv_t<std::remove_pointer_t<dest_ptr>>;
  using src_elem = std::remove_cv_t<typename detail::vis_decay_t<decltype(*src_runs_begin)>::element_type>;
  static_assert(std::is_same_v<src_elem, T>,
                "upcxx::rget_regular: the source runs' and the destination runs' element types must be the same T "
                "(spec 15.2); convert the data first");
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::rget_regular: T must be TriviallySerializable (spec 15.2.5 ¶3)");
  constexpr const char* what = "upcxx::rget_regular";
  const bool empty = src_runs_begin == src_runs_end;
  const global_ptr<const T> first = empty ? global_ptr<const T>() : global_ptr<const T>(*src_runs_begin);
  const intrank_t rank = empty ? detail::g_state.rank_me : first.where();
  detail::vis_check_remote(
      src_runs_begin, src_runs_end, rank, [](const auto& p) { return global_ptr<const T>(p); }, what, loc);
  detail::vis_check_local(
      dest_runs_begin, dest_runs_end, [](const auto& p) { return static_cast<T*>(p); }, what, loc);
  const std::size_t src_bytes = src_run_length * sizeof(T), dest_bytes = dest_run_length * sizeof(T);
  auto src = detail::vis_iter(src_runs_begin, src_runs_end, [src_bytes](const auto& p, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(global_ptr<const T>(p).raw_);
    *n = src_bytes;
  });
  auto dst = detail::vis_iter(dest_runs_begin, dest_runs_end, [dest_bytes](const auto& p, std::uintptr_t* a, std::size_t* n) {
    *a = detail::vis_addr(static_cast<T*>(p));
    *n = dest_bytes;
  });
  return detail::vis_get(rank, empty || first.is_local(), src, dst, std::forward<Cx>(completions), what, loc);
}

// ---- strided (spec 15.2.6, 15.2.7): strides in bytes, Dim == 0 moves one element ----

template <std::size_t Dim, typename T, typename Cx = decltype(operation_cx::as_future())>
auto rput_strided(const T* src_base, const std::ptrdiff_t* src_strides, global_ptr<T> dest_base,
                  const std::ptrdiff_t* dest_strides, const std::size_t* extents,
                  Cx&& completions = operation_cx::as_future(), detail::source_loc loc = detail::source_loc::current()) {
  return detail::vis_put_strided<Dim>(src_base, src_strides, dest_base, dest_strides, extents,
                                      std::forward<Cx>(completions), loc);
}

template <std::size_t Dim, typename T, typename Cx = decltype(operation_cx::as_future())>
auto rput_strided(const T* src_base, const std::array<std::ptrdiff_t, Dim>& src_strides, global_ptr<T> dest_base,
                  const std::array<std::ptrdiff_t, Dim>& dest_strides, const std::array<std::size_t, Dim>& extents,
                  Cx&& completions = operation_cx::as_future(), detail::source_loc loc = detail::source_loc::current()) {
  return detail::vis_put_strided<Dim>(src_base, src_strides.data(), dest_base, dest_strides.data(), extents.data(),
                                      std::forward<Cx>(completions), loc);
}

template <std::size_t Dim, typename T, typename Cx = decltype(operation_cx::as_future())>
auto rget_strided(global_ptr<const T> src_base, const std::ptrdiff_t* src_strides, T* dest_base,
                  const std::ptrdiff_t* dest_strides, const std::size_t* extents,
                  Cx&& completions = operation_cx::as_future(), detail::source_loc loc = detail::source_loc::current()) {
  return detail::vis_get_strided<Dim>(src_base, src_strides, dest_base, dest_strides, extents,
                                      std::forward<Cx>(completions), loc);
}

template <std::size_t Dim, typename T, typename Cx = decltype(operation_cx::as_future())>
auto rget_strided(global_ptr<const T> src_base, const std::array<std::ptrdiff_t, Dim>& src_strides, T* dest_base,
                  const std::array<std::ptrdiff_t, Dim>& dest_strides, const std::array<std::size_t, Dim>& extents,
                  Cx&& completions = operation_cx::as_future(), detail::source_loc loc = detail::source_loc::current()) {
  return detail::vis_get_strided<Dim>(src_base, src_strides.data(), dest_base, dest_strides.data(), extents.data(),
                                      std::forward<Cx>(completions), loc);
}

// ---- copy (spec 16.2.3), host memory ----

namespace detail {

// Moves `bytes` from src to dst. A side is described by its rank and address: the owner's
// address when `global`, else a private address here. remote_target runs remote_cx::as_rpc.
template <typename Cx>
auto copy_bytes(intrank_t src_rank, std::uintptr_t src_addr, bool src_global, intrank_t dst_rank,
                std::uintptr_t dst_addr, bool dst_global, std::size_t bytes, intrank_t remote_target,
                Cx&& completions) {
  using cxs_t = vis_decay_t<Cx>;
  static_assert(vis_cx_ok<cxs_t>,
                "upcxx::copy: the last argument must be a completion object (operation_cx::as_future(), ...)");
  cxs_t cxs(std::forward<Cx>(completions));
  const bool src_here = !src_global || g_state.peers[src_rank].local;
  const bool dst_here = !dst_global || g_state.peers[dst_rank].local;
  if (src_here && dst_here) {
    const std::uintptr_t s = src_addr + (src_global ? g_state.peers[src_rank].delta : 0);
    const std::uintptr_t d = dst_addr + (dst_global ? g_state.peers[dst_rank].delta : 0);
    std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<const void*>(s), bytes);
    return complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, remote_target);
  }
  if (src_here) {  // a put; its remote completion (the as_rpc) is sent at operation completion
    const std::uintptr_t s = src_addr + (src_global ? g_state.peers[src_rank].delta : 0);
    auto* op = new async_op<cxs_t, std::tuple<>, std::tuple<>>(std::move(cxs), ev_source | ev_operation, remote_target);
    return start_async(op, [&] {
      rma_put_remote(dst_rank, reinterpret_cast<const void*>(dst_addr), reinterpret_cast<const void*>(s), bytes, op);
    });
  }
  if (dst_here) {  // a get
    const std::uintptr_t d = dst_addr + (dst_global ? g_state.peers[dst_rank].delta : 0);
    auto* op = new async_op<cxs_t, std::tuple<>, std::tuple<>>(std::move(cxs), ev_source | ev_operation, remote_target);
    return start_async(op, [&] {
      rma_get_remote(src_rank, reinterpret_cast<const void*>(src_addr), reinterpret_cast<void*>(d), bytes, op);
    });
  }
  auto* op = new vis_op<cxs_t>(std::move(cxs), ev_source | ev_operation, remote_target, false);
  return start_async(op, [&] { vis_copy_relay(src_rank, src_addr, dst_rank, dst_addr, bytes, op); });
}

template <typename P>
void copy_check_host(const P& p, const source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (p.is_null()) vis_fail_null("upcxx::copy", loc);
  if (p.dynamic_kind() != memory_kind::host) vis_fail_device("upcxx::copy", loc);
#else
  (void)p, (void)loc;
#endif
}

}  // namespace detail

template <typename T, memory_kind Kind1, memory_kind Kind2, typename Cx = decltype(operation_cx::as_future())>
auto copy(global_ptr<const T, Kind1> src, global_ptr<T, Kind2> dest, std::size_t count,
          Cx&& completions = operation_cx::as_future(), detail::source_loc loc = detail::source_loc::current()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::copy: T must be TriviallySerializable (spec 16.2.3 ¶2)");
  detail::copy_check_host(src, loc);
  detail::copy_check_host(dest, loc);
  return detail::copy_bytes(src.where(), detail::vis_addr(src.raw_), true, dest.where(), detail::vis_addr(dest.raw_),
                            true, count * sizeof(T), dest.where(), std::forward<Cx>(completions));
}

template <typename T, memory_kind Kind, typename Cx = decltype(operation_cx::as_future())>
auto copy(const T* src, global_ptr<T, Kind> dest, std::size_t count, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::copy: T must be TriviallySerializable (spec 16.2.3 ¶2)");
  detail::vis_check_nonnull(src == nullptr, "upcxx::copy", loc);
  detail::copy_check_host(dest, loc);
  return detail::copy_bytes(detail::g_state.rank_me, detail::vis_addr(src), false, dest.where(),
                            detail::vis_addr(dest.raw_), true, count * sizeof(T), dest.where(),
                            std::forward<Cx>(completions));
}

// Remote completion of this form runs on the calling process (spec 16.2.3 ¶4).
template <typename T, memory_kind Kind, typename Cx = decltype(operation_cx::as_future())>
auto copy(global_ptr<const T, Kind> src, T* dest, std::size_t count, Cx&& completions = operation_cx::as_future(),
          detail::source_loc loc = detail::source_loc::current()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::copy: T must be TriviallySerializable (spec 16.2.3 ¶2)");
  detail::copy_check_host(src, loc);
  detail::vis_check_nonnull(dest == nullptr, "upcxx::copy", loc);
  return detail::copy_bytes(src.where(), detail::vis_addr(src.raw_), true, detail::g_state.rank_me,
                            detail::vis_addr(dest), false, count * sizeof(T), detail::g_state.rank_me,
                            std::forward<Cx>(completions));
}

}  // namespace upcxx
