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
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "upcxx/detail/diagnostics.hpp"
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

// fetch's future: of T's deserialized type; for a T that is not Serializable, a stand-in
// so that fetch's static_assert, not a missing member, is the error a call reports.
template <typename T, typename = void>
struct fetch_future {
  using type = future<T>;
};
template <typename T>
struct fetch_future<T, std::void_t<deserialized_type_t<T>>> {
  using type = future<deserialized_type_t<T>>;
};
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

// Prints a dist_id for logs, as the reference implementation lets programs do: equal ids
// print alike on every rank, different ids differently. Local.
template <typename CharT, typename Traits, typename T>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, dist_id<T> id) {
  return os << "dist_id(" << id.raw() << ')';
}

// The tag of dist_object's inactive constructor (UPC++ 2023.3): `dist_object<T> d(upcxx::inactive,
// args...)`. Its explicit default constructor keeps `{}` from converting to it.
struct inactive_t {
  explicit inactive_t() = default;
};
inline constexpr inactive_t inactive{};

// Since UPC++ 2023.3 a dist_object may be inactive: built without a team (before init, as a
// class member), with or without a value. activate() later makes it the calling process's
// member of a distributed object, collectively over a team, like the active constructors.
// Destruction is never collective.
template <typename T>
class dist_object {
  // The element type of dist_object's `{}` argument below: nothing converts to it by accident.
  struct init_list_param {};

 public:
  // Inactive and without a value (UPC++ 2023.3). Non-collective; valid before init().
  dist_object() noexcept {}
  // Inactive, holding T(args...) (UPC++ 2023.3). Non-collective; valid before init().
  template <typename... Arg>
  dist_object(inactive_t, Arg&&... arg) : value_(std::in_place, std::forward<Arg>(arg)...) {}

  // Collective over `tm`; called by the thread with the master persona (spec §14.4 ¶4).
  dist_object(T value, const upcxx::team& tm = world()) : value_(std::move(value)), team_(&const_cast<upcxx::team&>(tm)) {
    enroll();
  }
  template <typename... Arg>
  dist_object(const upcxx::team& tm, Arg&&... arg)
      : value_(std::in_place, std::forward<Arg>(arg)...), team_(&const_cast<upcxx::team&>(tm)) {
    enroll();
  }
  // `dist_object<T>({})` and `dist_object<T>{{}}`: an active object over world() holding T{},
  // as before 2023.3. Without this overload the default constructor (through the move
  // constructor) and the team constructor would compete for the braces.
  dist_object(std::initializer_list<init_list_param>) : dist_object(T{}) {}

  // The moved-to object takes over `other`'s value and, if `other` is active, its place as
  // the calling process's member (the thread must then have the master persona); `other`
  // becomes inactive (still holding its moved-from value, if it had one).
  dist_object(dist_object&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : value_(std::move(other.value_)), team_(other.team_), id_(other.id_) {
    other.id_ = 0;
    other.team_ = nullptr;
    if (id_) detail::dist_register(id_, this);  // this instance now represents the object
  }
  dist_object(const dist_object&) = delete;
  dist_object& operator=(const dist_object&) = delete;
  // UPC++ 2023.3 (usable when T is MoveConstructible and MoveAssignable): as the move
  // constructor, into an object that must be inactive; debug codemode reports assigning over
  // an active one. A self-move does nothing (UPC++ issue 547).
  dist_object& operator=(dist_object&& other) noexcept(std::is_nothrow_move_assignable_v<T> &&
                                                       std::is_nothrow_move_constructible_v<T>) {
    if (&other == this) return *this;
#if UPCXX_ASSERT_ENABLED
    if (id_)
      detail::fail_at(upcxx::detail::source_loc::current(),
                      "upcxx::dist_object move assignment: the target is active; UPC++ (2023.3) allows moving a "
                      "dist_object only into an inactive one");
#endif
    if (id_) detail::dist_unregister(id_);  // the old member goes away rather than dangle
    value_ = std::move(other.value_);
    team_ = other.team_;
    id_ = other.id_;
    other.id_ = 0;
    other.team_ = nullptr;
    if (id_) detail::dist_register(id_, this);
    return *this;
  }
  ~dist_object() {
    if (id_ && initialized()) detail::dist_unregister(id_);
  }

  // UPC++ 2023.3 queries, valid before init().
  bool is_active() const { return id_ != 0; }
  bool has_value() const { return value_.has_value(); }

  // UPC++ 2023.3: replaces the value (destroying the old one, if any) by T(args...), active or
  // not; non-collective. Returns the new value.
  template <typename... Args>
  T& emplace(Args&&... args) {
    return value_.emplace(std::forward<Args>(args)...);
  }

  // UPC++ 2023.3: makes an inactive object that holds a value the calling process's member of
  // a new distributed object over `tm`: collective over `tm`, by the thread with the master
  // persona, in the same order as the other dist_object constructions over `tm` (it takes
  // the place of a constructor in that sequence).
  void activate(const upcxx::team& tm,
                [[maybe_unused]] upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) {
#if UPCXX_ASSERT_ENABLED
    if (id_) detail::fail_at(loc, "upcxx::dist_object::activate on a dist_object that is already active");
    if (!value_)
      detail::fail_at(loc,
                      "upcxx::dist_object::activate on a dist_object without a value (emplace() one first)");
#endif
    team_ = &const_cast<upcxx::team&>(tm);
    enroll();
  }

  // The value; the object must hold one (debug codemode checks).
  T& operator*() const {
    check_value("upcxx::dist_object::operator*", upcxx::detail::source_loc::current());
    return *value_;
  }
  T* operator->() const {
    check_value("upcxx::dist_object::operator->", upcxx::detail::source_loc::current());
    return &*value_;
  }
  // The active object's name, team and remote copies; debug codemode reports an inactive one.
  dist_id<T> id() const {
    check_active("upcxx::dist_object::id()", upcxx::detail::source_loc::current());
    return dist_id<T>::from_raw(id_);
  }
  upcxx::team& team() { return *team_; }
  const upcxx::team& team() const { return *team_; }

  // A copy of rank's instance (spec §14.4 ¶35-43); T must be Serializable. A template, so
  // that its return type is formed only when fetch is called: a dist_object of a type that
  // is not Serializable, reached only through rpc and *obj, is fine (as in UPC++).
  template <typename T1 = T>
  typename detail::fetch_future<T1>::type fetch(intrank_t rank,
                                                upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    static_assert(is_serializable<T1>::value,
                  "upcxx::dist_object<T>::fetch: T must be Serializable (spec 14.4); reach a dist_object of "
                  "another type through rpc(rank, fn, dobj) instead");
    check_active("upcxx::dist_object::fetch", loc);
    if constexpr (is_serializable<T1>::value)
      return rpc(*team_, rank, [](dist_object<T>& obj) -> const T& { return *obj; }, *this);
    else
      return {};
  }

 private:
  void check_active([[maybe_unused]] const char* what, [[maybe_unused]] const upcxx::detail::source_loc& loc) const {
#if UPCXX_ASSERT_ENABLED
    if (!id_)
      detail::fail_at(loc,
                      std::string(what) + " on an inactive dist_object (default-constructed, built with "
                                          "upcxx::inactive and not activated, or moved from)");
#endif
  }
  void check_value([[maybe_unused]] const char* what, [[maybe_unused]] const upcxx::detail::source_loc& loc) const {
#if UPCXX_ASSERT_ENABLED
    if (!value_) detail::fail_at(loc, std::string(what) + " on a dist_object without a value");
#endif
  }
  void enroll() {
#if UPCXX_ASSERT_ENABLED
    detail::check_init("the upcxx::dist_object constructor or activate() (collective)", upcxx::detail::source_loc::current());
    detail::check_master_persona("the upcxx::dist_object constructor (collective)");
    detail::check_collective_context("the upcxx::dist_object constructor or activate() (collective)");
#endif
    id_ = detail::dist_next_id(*team_);
    detail::dist_register(id_, this);
  }

  mutable std::optional<T> value_;
  upcxx::team* team_ = nullptr;
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
    static_assert(!::std::is_reference_v<decltype(::std::declval<upcxx_mg_t_*>()->MEMBER)>,          \
                  "upcxx_memberof_general: MEMBER must name a field that is not a reference, and not "  \
                  "an array element (spec 3.2 ¶109): use the array field itself, then index the "     \
                  "global_ptr");                                                                     \
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
