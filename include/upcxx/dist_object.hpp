// Distributed objects (spec chapter 14): dist_object<T>, dist_id<T>.
//
// Construction is collective over the team and names the object by its position in the
// sequence of dist_object constructions (every rank constructs them in the same order), so
// ids agree across ranks without communication. An RPC naming an object that the target
// has not constructed yet waits for it (spec §14.3) instead of failing.
// Progress level: none, except fetch (internal).
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>
#include <functional>
#include <utility>

#include "upcxx/future.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/promise.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

template <typename T>
class dist_object;

namespace detail {
// Calls fire(ctx, object) once object `id` is constructed here (at once if it is).
void dist_when_here(std::uint64_t id, void (*fire)(void* ctx, void* object), void* ctx);
}  // namespace detail

template <typename T>
struct dist_id {
  dist_id() = default;

  dist_object<T>& here() const {
    void* p = detail::dist_lookup(id_);
    UPCXX_ASSERT_ALWAYS(p != nullptr, "dist_id::here(): this rank has not constructed the object yet");
    return *static_cast<dist_object<T>*>(p);
  }

  future<dist_object<T>&> when_here() const {
    if (void* p = detail::dist_lookup(id_)) return make_future<dist_object<T>&>(*static_cast<dist_object<T>*>(p));
    auto* pro = new promise<dist_object<T>&>();
    future<dist_object<T>&> f = pro->get_future();
    detail::dist_when_here(
        id_,
        [](void* ctx, void* obj) {
          auto* p = static_cast<promise<dist_object<T>&>*>(ctx);
          p->fulfill_result(*static_cast<dist_object<T>*>(obj));
          delete p;
        },
        pro);
    return f;
  }

  friend bool operator==(dist_id a, dist_id b) { return a.id_ == b.id_; }
  friend bool operator!=(dist_id a, dist_id b) { return a.id_ != b.id_; }
  friend bool operator<(dist_id a, dist_id b) { return a.id_ < b.id_; }
  friend bool operator<=(dist_id a, dist_id b) { return a.id_ <= b.id_; }
  friend bool operator>(dist_id a, dist_id b) { return a.id_ > b.id_; }
  friend bool operator>=(dist_id a, dist_id b) { return a.id_ >= b.id_; }

  // Internal.
  std::uint64_t raw() const { return id_; }
  static dist_id from_raw(std::uint64_t id) {
    dist_id d;
    d.id_ = id;
    return d;
  }

 private:
  std::uint64_t id_ = 0;
};

template <typename T>
class dist_object {
 public:
  // Collective over `tm`; called by the thread with the master persona (spec §14.4 ¶4).
  dist_object(T value, const upcxx::team& tm = world()) : value_(std::move(value)), team_(&const_cast<upcxx::team&>(tm)) {
    enroll();
  }
  template <typename... Arg>
  dist_object(const upcxx::team& tm, Arg&&... arg)
      : value_(std::forward<Arg>(arg)...), team_(&const_cast<upcxx::team&>(tm)) {
    enroll();
  }
  dist_object(dist_object&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : value_(std::move(other.value_)), team_(other.team_), id_(other.id_) {
    other.id_ = 0;
    if (id_) detail::dist_register(id_, this);  // this instance now represents the object
  }
  dist_object(const dist_object&) = delete;
  dist_object& operator=(const dist_object&) = delete;
  dist_object& operator=(dist_object&&) = delete;
  ~dist_object() {
    if (id_ && initialized()) detail::dist_unregister(id_);
  }

  T& operator*() const { return value_; }
  T* operator->() const { return &value_; }
  dist_id<T> id() const { return dist_id<T>::from_raw(id_); }
  upcxx::team& team() { return *team_; }
  const upcxx::team& team() const { return *team_; }

  // A copy of rank's instance (spec §14.4 ¶35-43).
  future<deserialized_type_t<T>> fetch(intrank_t rank) const {
    return rpc(*team_, rank, [](dist_object<T>& obj) -> const T& { return *obj; }, *this);
  }

 private:
  void enroll() {
#if UPCXX_ASSERT_ENABLED
    detail::check_master_persona("the upcxx::dist_object constructor (collective)");
#endif
    id_ = detail::dist_next_id(*team_);
    detail::dist_register(id_, this);
  }

  mutable T value_;
  upcxx::team* team_;
  std::uint64_t id_ = 0;
};

}  // namespace upcxx


template <typename T>
struct std::hash<upcxx::dist_id<T>> {
  std::size_t operator()(const upcxx::dist_id<T>& d) const noexcept { return std::hash<std::uint64_t>{}(d.raw()); }
};

// upcxx_memberof_general(gp, MEMBER) (spec §3.2 ¶109): a future of a global pointer to a
// member of any (even non-standard-layout) object. Computed here when the object is
// load/store addressable (a ready future, no communication); otherwise by an RPC to the
// owner, which takes the member's address in its own process.
#define upcxx_memberof_general(gp, MEMBER)                                                         \
  ([&](auto upcxx_mg_gp_) {                                                                        \
    using upcxx_mg_t_ = ::upcxx::detail::gptr_elem_t<decltype(upcxx_mg_gp_)>;                      \
    using upcxx_mg_m_ = ::std::remove_all_extents_t<::std::remove_pointer_t<decltype(              \
        ::std::addressof(::std::declval<upcxx_mg_t_*>()->MEMBER))>>;                               \
    using upcxx_mg_r_ = ::upcxx::global_ptr<upcxx_mg_m_, decltype(upcxx_mg_gp_)::kind>;            \
    if (upcxx_mg_gp_.is_local()) {                                                                 \
      auto* upcxx_mg_p_ = upcxx_mg_gp_.local();                                                    \
      auto* upcxx_mg_q_ = reinterpret_cast<upcxx_mg_m_*>(::std::addressof(upcxx_mg_p_->MEMBER));  \
      auto upcxx_mg_off_ = reinterpret_cast<const char*>(upcxx_mg_q_) -                            \
                           reinterpret_cast<const char*>(upcxx_mg_p_);                             \
      return ::upcxx::make_future(::upcxx::detail::gptr_member<upcxx_mg_m_>(                       \
          upcxx_mg_gp_, static_cast<::std::size_t>(upcxx_mg_off_)));                               \
    }                                                                                              \
    return ::upcxx::rpc(upcxx_mg_gp_.where(), [](decltype(upcxx_mg_gp_) g) -> upcxx_mg_r_ {       \
      auto* p = g.local();                                                                         \
      auto* q = reinterpret_cast<upcxx_mg_m_*>(::std::addressof(p->MEMBER));                        \
      return ::upcxx::detail::gptr_member<upcxx_mg_m_>(                                            \
          g, static_cast<::std::size_t>(reinterpret_cast<const char*>(q) - reinterpret_cast<const char*>(p))); \
    }, upcxx_mg_gp_);                                                                              \
  }(gp))
