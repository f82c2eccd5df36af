// Global pointers (spec chapter 3).
//
// A global_ptr<T> names memory in some rank's shared segment: the owner's rank and the raw
// address as the owner sees it. It is 16 bytes, trivially copyable, and never dereferenced
// implicitly. On one machine every segment is mapped into every process (at a different
// address), so is_local() is true and local() adds the per-rank delta computed at init.
// All operations here are purely local: progress level none, no communication.
//
// global_ptr<T> derives from global_ptr<const T> (spec §3.2 ¶5), so a pointer to T converts
// to a pointer to const T; the comparison operators are members of the const base.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <type_traits>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/detail/state.hpp"
#include "upcxx/memory_kind.hpp"

namespace upcxx {

template <typename T, memory_kind Kind = memory_kind::host>
struct global_ptr;

namespace detail {
struct gptr_raw_tag {};

// Owner lookup for raw local pointers: the rank whose segment (as mapped here) contains p.
// Returns false when p is in no segment of the local team.
bool find_segment_owner(const void* p, intrank_t* rank, std::intptr_t* delta);

[[noreturn]] void fail_not_local(intrank_t rank, const void* raw, const detail::source_loc& loc);
[[noreturn]] void fail_null_arith(const detail::source_loc& loc);
[[noreturn]] void fail_not_in_segment(const void* p, const detail::source_loc& loc);
}  // namespace detail

template <typename T, memory_kind Kind>
struct global_ptr<const T, Kind> {
  static_assert(!std::is_volatile_v<T>, "global_ptr<T>: T must not be volatile (spec 3.2)");
  static_assert(!std::is_reference_v<T>, "global_ptr<T>: T must not be a reference (spec 3.2)");

  using element_type = const T;
  using pointer_type = const T*;
  static constexpr memory_kind kind = Kind;

  constexpr global_ptr(std::nullptr_t = nullptr) noexcept {}

  // Widening to memory_kind::any (spec §3.2 ¶19).
  template <memory_kind K2, std::enable_if_t<Kind == memory_kind::any && K2 != memory_kind::any, int> = 0>
  constexpr global_ptr(const global_ptr<const T, K2>& other) noexcept
      : rank_(other.rank_), heap_(other.heap_), raw_(other.raw_) {}

  // Internal: from parts. Not part of the API.
  constexpr global_ptr(detail::gptr_raw_tag, intrank_t rank, const T* raw, std::int32_t heap = 0) noexcept
      : rank_(raw ? rank : 0), heap_(heap), raw_(raw) {}

  memory_kind dynamic_kind() const noexcept {
    return heap_ == 0 ? memory_kind::host : memory_kind::cuda_device;
  }

  bool is_null() const noexcept { return raw_ == nullptr; }
  explicit operator bool() const noexcept { return raw_ != nullptr; }

  bool is_local() const noexcept {
    return raw_ == nullptr || (heap_ == 0 && detail::g_state.peers[rank_].local);
  }

  const T* local(detail::source_loc loc = detail::source_loc::current()) const {
    if (raw_ == nullptr) return nullptr;
#if UPCXX_ASSERT_ENABLED
    if (!is_local()) detail::fail_not_local(rank_, raw_, loc);
#else
    (void)loc;
#endif
    return reinterpret_cast<const T*>(reinterpret_cast<std::uintptr_t>(raw_) +
                                      detail::g_state.peers[rank_].delta);
  }

  intrank_t where() const noexcept { return rank_; }

  // Internal, for the library's on-node fast paths (rma, atomics), whose callers have already
  // refused a null pointer: is_local() and local() without their null tests. Not part of the API.
  bool detail_addressable() const noexcept { return heap_ == 0 && detail::g_state.peers[rank_].local; }
  T* detail_local_unchecked() const noexcept {
    return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(raw_) + detail::g_state.peers[rank_].delta);
  }

  // ---- arithmetic (T must be complete) ----
  global_ptr operator+(std::ptrdiff_t d) const { return global_ptr(*this) += d; }
  global_ptr operator-(std::ptrdiff_t d) const { return global_ptr(*this) -= d; }
  global_ptr& operator+=(std::ptrdiff_t d) {
    advance(d);
    return *this;
  }
  global_ptr& operator-=(std::ptrdiff_t d) {
    advance(-d);
    return *this;
  }
  global_ptr& operator++() { return *this += 1; }
  global_ptr operator++(int) {
    global_ptr old = *this;
    *this += 1;
    return old;
  }
  global_ptr& operator--() { return *this -= 1; }
  global_ptr operator--(int) {
    global_ptr old = *this;
    *this -= 1;
    return old;
  }
  std::ptrdiff_t operator-(const global_ptr& rhs) const {
    UPCXX_ASSERT(rank_ == rhs.rank_ || raw_ == rhs.raw_,
                 "subtracting global_ptrs with affinity to different ranks");
    return raw_ - rhs.raw_;
  }

  // ---- comparisons (spec §3.2 ¶78): equal iff both null or same rank and address ----
  bool operator==(const global_ptr& rhs) const noexcept {
    return raw_ == rhs.raw_ && rank_ == rhs.rank_ && heap_ == rhs.heap_;
  }
  bool operator!=(const global_ptr& rhs) const noexcept { return !(*this == rhs); }
  bool operator<(const global_ptr& rhs) const noexcept { return key() < rhs.key(); }
  bool operator<=(const global_ptr& rhs) const noexcept { return key() <= rhs.key(); }
  bool operator>(const global_ptr& rhs) const noexcept { return key() > rhs.key(); }
  bool operator>=(const global_ptr& rhs) const noexcept { return key() >= rhs.key(); }

  // Implementation details, public only so the other specializations and the runtime can
  // reach them; not part of the API.
  struct order_key {
    intrank_t rank;
    std::int32_t heap;
    std::uintptr_t addr;
    // Lexicographic (rank, heap, address); spelled out because defaulted <=> is C++20.
    friend bool operator<(const order_key& a, const order_key& b) noexcept {
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.heap != b.heap) return a.heap < b.heap;
      return a.addr < b.addr;
    }
    friend bool operator>(const order_key& a, const order_key& b) noexcept { return b < a; }
    friend bool operator<=(const order_key& a, const order_key& b) noexcept { return !(b < a); }
    friend bool operator>=(const order_key& a, const order_key& b) noexcept { return !(a < b); }
  };
  order_key key() const noexcept { return {rank_, heap_, reinterpret_cast<std::uintptr_t>(raw_)}; }

  intrank_t rank_ = 0;     // owner (0 for null, so all null pointers compare equal)
  std::int32_t heap_ = 0;  // 0: host shared segment; > 0: a device segment (spec chapter 16)
  const T* raw_ = nullptr;  // address in the owner's address space

 private:
  void advance(std::ptrdiff_t d) {
    static_assert(sizeof(T) > 0, "global_ptr arithmetic needs a complete type");
    if (d == 0) return;
#if UPCXX_ASSERT_ENABLED
    if (raw_ == nullptr) detail::fail_null_arith(detail::source_loc::current());
#endif
    raw_ += d;
  }
};

template <typename T, memory_kind Kind>
struct global_ptr : global_ptr<const std::remove_reference_t<T>, Kind> {
  // (The base names the referenced type so that this, not an incomplete base, is the error.)
  static_assert(!std::is_reference_v<T>, "global_ptr<T>: T must not be a reference type (spec 3.2)");
  using base_type = global_ptr<const T, Kind>;
  using element_type = T;
  using pointer_type = T*;
  static constexpr memory_kind kind = Kind;

  constexpr global_ptr(std::nullptr_t = nullptr) noexcept {}

  template <memory_kind K2, std::enable_if_t<Kind == memory_kind::any && K2 != memory_kind::any, int> = 0>
  constexpr global_ptr(const global_ptr<T, K2>& other) noexcept
      : base_type(detail::gptr_raw_tag{}, other.rank_, other.raw_, other.heap_) {}

  constexpr global_ptr(detail::gptr_raw_tag tag, intrank_t rank, T* raw, std::int32_t heap = 0) noexcept
      : base_type(tag, rank, raw, heap) {}

  T* local(detail::source_loc loc = detail::source_loc::current()) const {
    return const_cast<T*>(base_type::local(loc));
  }

  global_ptr operator+(std::ptrdiff_t d) const { return global_ptr(*this) += d; }
  global_ptr operator-(std::ptrdiff_t d) const { return global_ptr(*this) -= d; }
  using base_type::operator-;  // pointer difference
  global_ptr& operator+=(std::ptrdiff_t d) {
    base_type::operator+=(d);
    return *this;
  }
  global_ptr& operator-=(std::ptrdiff_t d) {
    base_type::operator-=(d);
    return *this;
  }
  global_ptr& operator++() { return *this += 1; }
  global_ptr operator++(int) {
    global_ptr old = *this;
    *this += 1;
    return old;
  }
  global_ptr& operator--() { return *this -= 1; }
  global_ptr operator--(int) {
    global_ptr old = *this;
    *this -= 1;
    return old;
  }
};

template <typename T, memory_kind Kind>
global_ptr<T, Kind> operator+(std::ptrdiff_t d, const global_ptr<T, Kind>& p) {
  return p + d;
}

// nullptr on the left of a comparison (`nullptr == g`, `nullptr < g`), as UPC++ declares
// them; nullptr on the right converts to a null global_ptr. (Spelled without `p == nullptr`,
// which C++20 would answer with this very function, reversed.)
template <typename T, memory_kind Kind>
bool operator==(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return p.is_null();
}
template <typename T, memory_kind Kind>
bool operator!=(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return !p.is_null();
}
template <typename T, memory_kind Kind>
bool operator<(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return global_ptr<T, Kind>(nullptr) < p;
}
template <typename T, memory_kind Kind>
bool operator<=(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return global_ptr<T, Kind>(nullptr) <= p;
}
template <typename T, memory_kind Kind>
bool operator>(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return global_ptr<T, Kind>(nullptr) > p;
}
template <typename T, memory_kind Kind>
bool operator>=(std::nullptr_t, const global_ptr<T, Kind>& p) noexcept {
  return global_ptr<T, Kind>(nullptr) >= p;
}

static_assert(sizeof(global_ptr<int>) == 16);

// ---- construction from raw pointers (spec §3.2 ¶26-33) ----
template <typename T>
global_ptr<T> try_global_ptr(T* ptr) {
  if (ptr == nullptr) return nullptr;
  intrank_t r;
  std::intptr_t delta;
  if (!detail::find_segment_owner(ptr, &r, &delta)) return nullptr;
  auto owner_raw = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(ptr) - delta);
  return global_ptr<T>(detail::gptr_raw_tag{}, r, owner_raw);
}

template <typename T>
global_ptr<T> to_global_ptr(T* ptr, detail::source_loc loc = detail::source_loc::current()) {
  global_ptr<T> g = try_global_ptr(ptr);
#if UPCXX_ASSERT_ENABLED
  if (ptr != nullptr && g.is_null()) detail::fail_not_in_segment(ptr, loc);
#else
  (void)loc;
#endif
  return g;
}

// ---- casts (spec §3.2 ¶93-102) ----
namespace detail {
template <typename T, memory_kind K, typename U>
global_ptr<T, K> gptr_rebind(const global_ptr<U, K>& p, T* raw) {
  return global_ptr<T, K>(gptr_raw_tag{}, p.rank_, raw, p.heap_);
}
}  // namespace detail

template <typename T, typename U, memory_kind Kind>
global_ptr<T, Kind> static_pointer_cast(global_ptr<U, Kind> ptr) {
  return detail::gptr_rebind<T>(ptr, static_cast<T*>(const_cast<U*>(ptr.raw_)));
}
template <typename T, typename U, memory_kind Kind>
global_ptr<T, Kind> reinterpret_pointer_cast(global_ptr<U, Kind> ptr) {
  return detail::gptr_rebind<T>(ptr, reinterpret_cast<T*>(const_cast<U*>(ptr.raw_)));
}
template <typename T, typename U, memory_kind Kind>
global_ptr<T, Kind> const_pointer_cast(global_ptr<U, Kind> ptr) {
  return detail::gptr_rebind<T>(ptr, const_cast<T*>(ptr.raw_));
}

template <memory_kind ToKind, typename T, memory_kind FromKind>
global_ptr<T, ToKind> static_kind_cast(global_ptr<T, FromKind> ptr) {
  static_assert(ToKind == FromKind || ToKind == memory_kind::any || FromKind == memory_kind::any,
                "static_kind_cast: one of the kinds must be memory_kind::any (spec 3.2 ¶100)");
  return global_ptr<T, ToKind>(detail::gptr_raw_tag{}, ptr.rank_, const_cast<T*>(ptr.raw_), ptr.heap_);
}
template <memory_kind ToKind, typename T, memory_kind FromKind>
global_ptr<T, ToKind> dynamic_kind_cast(global_ptr<T, FromKind> ptr) {
  static_assert(ToKind == FromKind || ToKind == memory_kind::any || FromKind == memory_kind::any,
                "dynamic_kind_cast: one of the kinds must be memory_kind::any (spec 3.2 ¶100)");
  if (ToKind != memory_kind::any && !ptr.is_null() && ptr.dynamic_kind() != ToKind) return nullptr;
  return global_ptr<T, ToKind>(detail::gptr_raw_tag{}, ptr.rank_, const_cast<T*>(ptr.raw_), ptr.heap_);
}

// ---- printing (spec §3.2 ¶90): equal pointers print identically and only those ----
template <typename CharT, typename Traits, typename T, memory_kind Kind>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                              const global_ptr<T, Kind>& p) {
  if (p.is_null()) return os << "(gp: null)";
  os << "(gp: rank " << p.rank_ << ", " << static_cast<const void*>(p.raw_);
  if (p.heap_ != 0) os << ", device heap " << p.heap_;
  return os << ')';
}

namespace detail {
template <typename M, typename T, memory_kind K>
global_ptr<M, K> gptr_member(const global_ptr<T, K>& p, std::size_t offset) {
  auto raw = reinterpret_cast<M*>(reinterpret_cast<std::uintptr_t>(p.raw_) + offset);
  return global_ptr<M, K>(gptr_raw_tag{}, p.rank_, raw, p.heap_);
}
template <typename P>
using gptr_elem_t = typename P::element_type;
}  // namespace detail

}  // namespace upcxx

// upcxx_memberof(gp, MEMBER) (spec §3.2 ¶103): a global pointer to a member of a
// standard-layout object, computed locally with offsetof. MType keeps the member access's
// constness; an array member yields a pointer to its first element.
#define upcxx_memberof(gp, MEMBER)                                                              \
  ([&](auto upcxx_memberof_gp_) {                                                               \
    using upcxx_memberof_t_ = ::upcxx::detail::gptr_elem_t<decltype(upcxx_memberof_gp_)>;       \
    static_assert(::std::is_standard_layout_v<::std::remove_cv_t<upcxx_memberof_t_>>,            \
                  "upcxx_memberof needs a standard-layout type; use upcxx_memberof_general");  \
    using upcxx_memberof_m_ = ::std::remove_all_extents_t<::std::remove_pointer_t<decltype(     \
        ::std::addressof(::std::declval<upcxx_memberof_t_*>()->MEMBER))>>;                      \
    static_assert(offsetof(::std::remove_cv_t<upcxx_memberof_t_>, MEMBER) <                      \
                      sizeof(::std::remove_cv_t<upcxx_memberof_t_>),                            \
                  "upcxx_memberof: the member lies outside the object (an array index past the " \
                  "array's end?)");                                                             \
    return ::upcxx::detail::gptr_member<upcxx_memberof_m_>(                                     \
        upcxx_memberof_gp_, offsetof(::std::remove_cv_t<upcxx_memberof_t_>, MEMBER));          \
  }(gp))

namespace std {
template <typename T, upcxx::memory_kind K>
struct hash<upcxx::global_ptr<T, K>> {
  size_t operator()(const upcxx::global_ptr<T, K>& p) const noexcept {
    uint64_t a = reinterpret_cast<uintptr_t>(p.raw_);
    // splitmix-style mix of (address, rank): equal pointers hash equal, nearby ones spread.
    uint64_t x = a ^ (uint64_t{static_cast<uint32_t>(p.rank_)} << 48) ^ uint64_t{static_cast<uint32_t>(p.heap_)} << 40;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    size_t h = x;
    return h;
  }
};
#define GANNET_DETAIL_GPTR_ORDER(name, op)                                                   \
  template <typename T, upcxx::memory_kind K>                                                \
  struct name<upcxx::global_ptr<T, K>> {                                                     \
    bool operator()(const upcxx::global_ptr<T, K>& a, const upcxx::global_ptr<T, K>& b) const \
        noexcept {                                                                           \
      return a.key() op b.key();                                                             \
    }                                                                                        \
  };
GANNET_DETAIL_GPTR_ORDER(less, <)
GANNET_DETAIL_GPTR_ORDER(less_equal, <=)
GANNET_DETAIL_GPTR_ORDER(greater, >)
GANNET_DETAIL_GPTR_ORDER(greater_equal, >=)
#undef GANNET_DETAIL_GPTR_ORDER
}  // namespace std
