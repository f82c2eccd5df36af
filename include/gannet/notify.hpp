// Notified access, after the paper "Notified Access: Extending Remote Memory Access
// Programming Models for Producer-Consumer Synchronization": one-sided transfers that tell
// the target they have landed, matched there on source and tag. Gannet extension, not UPC++.
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
// Matching (the Notified Access paper, §III): a notification goes to the oldest started
// request that accepts its source and tag (any_source, any_tag are wildcards); notifications
// that find none wait, in arrival order, for a request to start. Sources are ranks of the
// request's team; a request takes notifications only from members of its team.
//
// Transport: between ranks of one machine a notification travels in a cache-line slot in
// shared memory (of the target's ring, or of a lane of the producer's own once it notifies
// that target often), with the data of puts up to notify_inline_bytes (such a put's
// operation completes once the target has taken it, since that is when its data lands);
// between machines a put of up to notify_message_bytes travels with its notification in one
// message (the put completes at the target's reply, or at once when no completion asks for
// more than source completion), a larger one is followed by an RPC run at its remote
// completion. A request's state changes in any progress call; futures from
// async() are fulfilled in user-level progress of the master persona.
#pragma once

#include "upcxx/version.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
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
[[noreturn]] void fail_notify_tag(int tag, const char* what);
inline void check_notify_tag(int tag, const char* what) {
  if (tag < 0) fail_notify_tag(tag, what);
}
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

// On this machine (notify.cpp): notify_local publishes a notification from this rank in
// `rank`'s slot ring, with the `bytes` (at most notify_inline_bytes) at `src`, which the
// target copies to `dest` (an address in its segment, as it sees it) before it takes the
// notification. It waits (serving this rank's own ring) while the target's ring is full.
// notify_track then has `op` told of source completion at once and of operation completion
// once the target has taken the slot (so the data is in place). Publishing comes first and
// the bookkeeping after, off the path to the target.
inline constexpr std::size_t notify_inline_bytes = 32;
struct notify_posted {
  const std::atomic<std::uint64_t>* head;  // of the slots it went into: taken once head > pos
  std::uint64_t pos;
};
notify_posted notify_local(upcxx::intrank_t rank, int tag, const void* dest, const void* src, std::size_t bytes);
void notify_track(notify_posted posted, upcxx::detail::rma_op* op);

// Between machines, puts up to this size travel with their notification in one message
// (notify_put_arrived runs at the target: copy, then deliver).
inline constexpr std::size_t notify_message_bytes = 8192;
void notify_put_arrived(upcxx::global_ptr<char> dest, upcxx::view<char> data, upcxx::intrank_t source, int tag);

[[noreturn]] void fail_notify_rank(upcxx::intrank_t rank, const char* what);

// Whether a completion object asks for an event after source completion (operation or
// remote): only then is an inline put worth tracking until the target takes it.
template <typename Cxs>
inline constexpr bool wants_completion_after_source = true;
template <typename... Item>
inline constexpr bool wants_completion_after_source<upcxx::detail::completions<Item...>> =
    ((Item::event != upcxx::detail::cx_event::source) || ...);

template <typename T, typename Cx>
auto put_notify(const T* src, upcxx::global_ptr<T> dest, std::size_t count, int tag, Cx&& completions,
                bool transient_src) {
  check_notify_tag(tag, "gannet::rput_notify");
  // A notification synchronizes: gannet::overlap completes its outstanding puts first.
  if (UPCXX_DETAIL_UNLIKELY(upcxx::detail::g_state.sync_hooks_live.load(std::memory_order_relaxed)))
    upcxx::detail::sync_hooks_slow();
  const upcxx::intrank_t target = dest.where();
  const std::size_t bytes = count * sizeof(T);
  if (dest.detail_addressable() && !dest.is_null()) {
    upcxx::detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
    if (bytes <= notify_inline_bytes) {
      // Data and notification in one slot: one cache line reaches the target.
      const notify_posted posted = notify_local(target, tag, dest.raw_, src, bytes);
      if constexpr (wants_completion_after_source<upcxx::detail::cx_decay<Cx>>) {
        // The put completes when the target takes the slot (and copies the data into place).
        auto* op = new upcxx::detail::async_op<upcxx::detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(
            std::move(cxs), upcxx::detail::ev_source | upcxx::detail::ev_operation, target);
        return upcxx::detail::start_async(op, [&] { notify_track(posted, op); });
      } else {
        (void)posted;  // nobody waits beyond source completion: src is in the slot already
        return upcxx::detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, target);
      }
    }
    // Larger: the data goes straight into place, then the slot is published (a release
    // store, so the target sees the data once it sees the notification), and every event
    // has happened.
    std::memcpy(static_cast<void*>(dest.detail_local_unchecked()), src, bytes);
    notify_local(target, tag, nullptr, nullptr, 0);
    return upcxx::detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, target);
  }
  if (bytes <= notify_message_bytes && !dest.is_null()) {
    // Another machine, a small put: data and notification in one message, which the target
    // writes into place and then delivers; its reply completes the operation. Without
    // completions after source completion no reply is needed: the message joins the
    // target's batch like an rpc_ff.
    const char* first = reinterpret_cast<const char*>(src);
    if constexpr (!wants_completion_after_source<upcxx::detail::cx_decay<Cx>>) {
      upcxx::detail::cx_decay<Cx> cxs(std::forward<Cx>(completions));
      upcxx::rpc_ff(target, &notify_put_arrived, upcxx::reinterpret_pointer_cast<char>(dest),
                    upcxx::make_view(first, first + bytes), upcxx::rank_me(), tag);
      return upcxx::detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, target);
    }
    auto* op = new upcxx::detail::async_op<upcxx::detail::cx_decay<Cx>, std::tuple<>, std::tuple<>>(
        upcxx::detail::cx_decay<Cx>(std::forward<Cx>(completions)), upcxx::detail::ev_source | upcxx::detail::ev_operation,
        target);
    return upcxx::detail::start_async(op, [&] {
      upcxx::rpc(target, &notify_put_arrived, upcxx::reinterpret_pointer_cast<char>(dest),
                 upcxx::make_view(first, first + bytes), upcxx::rank_me(), tag)
          .then([op] { op->on_events(op, upcxx::detail::ev_operation); });
      op->on_events(op, upcxx::detail::ev_source);  // the message holds a copy of src
    });
  }
  // Another machine, a larger put: the notification is an RPC run at the put's remote
  // completion, so it cannot overtake the data.
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
  if (UPCXX_DETAIL_UNLIKELY(upcxx::detail::g_state.sync_hooks_live.load(std::memory_order_relaxed)))
    upcxx::detail::sync_hooks_slow();
  if (upcxx::detail::g_state.peers[rank].local) {
    detail::notify_local(rank, tag, nullptr, nullptr, 0);
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
