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
// Notifications are delivered during user-level progress of the master persona, like RPCs
// (this version carries them as RPCs that run at the transfer's remote completion).
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>
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

template <typename T, typename Cx = decltype(upcxx::operation_cx::as_future())>
auto rput_notify(T value, upcxx::global_ptr<T> dest, int tag, Cx&& completions = upcxx::operation_cx::as_future()) {
  detail::check_notify_tag(tag, "gannet::rput_notify");
  return upcxx::rput(value, dest,
                     std::forward<Cx>(completions) |
                         upcxx::remote_cx::as_rpc(&detail::notify_arrived, upcxx::rank_me(), tag));
}

template <typename T, typename Cx = decltype(upcxx::operation_cx::as_future())>
auto rput_notify(const T* src, upcxx::global_ptr<T> dest, std::size_t count, int tag,
                 Cx&& completions = upcxx::operation_cx::as_future()) {
  detail::check_notify_tag(tag, "gannet::rput_notify");
  return upcxx::rput(src, dest, count,
                     std::forward<Cx>(completions) |
                         upcxx::remote_cx::as_rpc(&detail::notify_arrived, upcxx::rank_me(), tag));
}

inline void notify(upcxx::intrank_t rank, int tag) {
  detail::check_notify_tag(tag, "gannet::notify");
  upcxx::rpc_ff(rank, &detail::notify_arrived, upcxx::rank_me(), tag);
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
