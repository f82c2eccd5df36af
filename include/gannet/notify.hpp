// Notified access (seed 004; issue 12): one-sided transfers that tell the target they have
// landed, matched there on source and tag. Gannet extension, not UPC++.
//
// Origin:
//   gannet::rput_notify(value, gp, tag, cxs)          put, then notify gp's owner
//   gannet::rput_notify(src, gp, count, tag, cxs)
//   gannet::rget_notify(gp, dst, count, tag, cxs)     get, then notify gp's owner that its
//                                                      buffer may be reused
//   gannet::notify(rank, tag)                          a notification without data
// The completions are rput's and rget's (operation_cx::as_future() by default). A put's
// notification is delivered once its data is visible in the target's memory; it never
// overtakes the data.
//
// Target:
//   gannet::notify_request req(source, tag, expected_count = 1, team = world());
//   req.start();              arm it (again and again: it is persistent)
//   req.test(&status)         make progress; true once expected_count matches have arrived
//   req.wait()                the status {source, tag} of the last match
//   req.async()               a future of that status
// Matching (seed 004 §III): a notification goes to the oldest started request that accepts
// its source and tag (any_source, any_tag are wildcards); notifications that find none wait,
// in arrival order, for a request to start. Sources are ranks of the request's team; a
// request takes notifications only from members of its team.
//
// Transport: between ranks of one machine a notification travels in a slot of the target's
// ring in shared memory, with the data of puts up to notify_inline_bytes (such a put's
// operation completes once the target has taken it, since that is when its data lands);
// between machines it is an RPC run at the put's remote completion. A request's state
// changes in any progress call; futures from async() are fulfilled in user-level progress
// of the master persona.
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>
#include <cstring>
#include <tuple>
#include <memory>
#include <type_traits>
#include <utility>

#include "upcxx/upcxx.hpp"

namespace gannet {

inline constexpr upcxx::intrank_t any_source = -1;
inline constexpr int any_tag = -1;

struct notify_status {
  upcxx::intrank_t source = 0;  // in the request's team
  int tag = 0;
};

namespace detail {
// Target side: a notification from world rank `source` has arrived (runs as an RPC).
void notify_arrived(upcxx::intrank_t source, int tag);
// A clear error for a negative tag.
void check_notify_tag(int tag, const char* what);
}  // namespace detail

class notify_request {
 public:
  // `source` is a rank of `team` or any_source; `tag` is non-negative or any_tag. The team
  // must outlive the request.
  notify_request(upcxx::intrank_t source, int tag, std::uint64_t expected_count = 1,
                 const upcxx::team& team = upcxx::world());
  ~notify_request();
  notify_request(const notify_request&) = delete;
  notify_request& operator=(const notify_request&) = delete;

  void start();
  bool test(notify_status* status = nullptr);
  notify_status wait();
  upcxx::future<notify_status> async();

  struct state;

 private:
  std::unique_ptr<state> s_;
};

namespace detail {

// On this machine (notify.cpp): publishes a notification from this rank in `rank`'s slot
// ring. With `op`, the `bytes` (at most notify_inline_bytes) at `src` travel in the slot,
// the target copies them to `dest` (an address in its segment, as it sees it) before it
// takes the notification, and op's operation event follows once it has; source completion
// is immediate. Without, only the notification travels. Waits (serving this rank's own
// ring) while the target's ring is full.
inline constexpr std::size_t notify_inline_bytes = 32;
void notify_local(upcxx::intrank_t rank, int tag, const void* dest, const void* src, std::size_t bytes,
                  upcxx::detail::rma_op* op);

[[noreturn]] void fail_notify_rank(upcxx::intrank_t rank, const char* what);

template <typename T, typename Cx>
auto put_notify(const T* src, upcxx::global_ptr<T> dest, std::size_t count, int tag, Cx&& completions,
                bool transient_src) {
  check_notify_tag(tag, "gannet::rput_notify");
  const upcxx::intrank_t target = dest.where();
  if (dest.detail_addressable() && !dest.is_null()) {
    const std::size_t bytes = count * sizeof(T);
    upcxx::detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
    if (bytes <= notify_inline_bytes) {
      // Data and notification in one slot; the put completes when the target takes it.
      auto* op = new upcxx::detail::async_op<upcxx::detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(
          std::move(cxs), upcxx::detail::ev_source | upcxx::detail::ev_operation, target);
      return upcxx::detail::start_async(op, [&] { notify_local(target, tag, dest.raw_, src, bytes, op); });
    }
    // Larger: the data goes straight into place, then the slot is published (a release
    // store, so the target sees the data once it sees the notification).
    std::memcpy(static_cast<void*>(dest.detail_local_unchecked()), src, bytes);
    notify_local(target, tag, nullptr, nullptr, 0, nullptr);
    return upcxx::detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, target);
  }
  // Another machine: the notification is an RPC run at the put's remote completion, so it
  // cannot overtake the data.
  auto cxs = std::forward<Cx>(completions) | upcxx::remote_cx::as_rpc(&notify_arrived, upcxx::rank_me(), tag);
  if (transient_src) return upcxx::rput(*src, dest, std::move(cxs));
  return upcxx::rput(src, dest, count, std::move(cxs));
}

}  // namespace detail

template <typename T, typename Cx = decltype(upcxx::operation_cx::as_future())>
auto rput_notify(T value, upcxx::global_ptr<T> dest, int tag, Cx&& completions = upcxx::operation_cx::as_future()) {
  return detail::put_notify(&value, dest, 1, tag, std::forward<Cx>(completions), true);
}

template <typename T, typename Cx = decltype(upcxx::operation_cx::as_future())>
auto rput_notify(const T* src, upcxx::global_ptr<T> dest, std::size_t count, int tag,
                 Cx&& completions = upcxx::operation_cx::as_future()) {
  return detail::put_notify(src, dest, count, tag, std::forward<Cx>(completions), false);
}

inline void notify(upcxx::intrank_t rank, int tag) {
  detail::check_notify_tag(tag, "gannet::notify");
  if (rank < 0 || rank >= upcxx::rank_n()) detail::fail_notify_rank(rank, "gannet::notify");
  if (upcxx::detail::g_state.peers[rank].local) {
    detail::notify_local(rank, tag, nullptr, nullptr, 0, nullptr);
  } else {
    upcxx::rpc_ff(rank, &detail::notify_arrived, upcxx::rank_me(), tag);
  }
}

template <typename T, typename Cx = decltype(upcxx::operation_cx::as_future())>
auto rget_notify(upcxx::global_ptr<T> src, std::remove_const_t<T>* dest, std::size_t count, int tag,
                 Cx&& completions = upcxx::operation_cx::as_future()) {
  detail::check_notify_tag(tag, "gannet::rget_notify");
  const upcxx::intrank_t owner = src.where();
  // The owner learns that its buffer may be reused once the get has completed here.
  return upcxx::rget(upcxx::global_ptr<const std::remove_const_t<T>>(src), dest, count,
                     std::forward<Cx>(completions) |
                         upcxx::operation_cx::as_lpc(upcxx::current_persona(), [owner, tag] { notify(owner, tag); }));
}

}  // namespace gannet
