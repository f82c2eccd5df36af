// Remote atomics (spec chapter 13) with the fetching operations that write the fetched value
// into memory, from "Optimization of Asynchronous Communication Operations through Eager
// Notifications".
//
// An atomic_domain<T> is created collectively over a team for a set of operations; T is
// float, double, or a 32- or 64-bit integer. Every operation is non-blocking and completes
// through operation_cx (future, promise, LPC); progress level internal. Paths:
//   - the target's memory is load/store addressable here (every rank on this machine): the
//     operation is a CPU atomic on the mapped heap before the call returns, so eager
//     notification delivers at once: a ready future with the value inline, no allocation;
//     the overloads that fetch into memory return a ready future<> and touch nothing else;
//   - otherwise a runtime message to the target, which performs the same CPU atomic on its
//     own memory during its progress (internal level is enough) and replies.
// Both paths end in a CPU atomic instruction on the one copy of the datum, so operations of
// one domain are atomic with respect to each other whichever path each takes.
//
// Memory ordering (spec §13.3): `order` applies to the atomic action; acquire orders it
// before the completion notification, release orders what preceded the call before it.
#pragma once

#include "upcxx/version.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "upcxx/completion.hpp"
#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/rma.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

enum class atomic_op : int {
  load,
  store,
  compare_exchange,
  add,
  fetch_add,
  sub,
  fetch_sub,
  mul,
  fetch_mul,
  min,
  fetch_min,
  max,
  fetch_max,
  bit_and,
  fetch_bit_and,
  bit_or,
  fetch_bit_or,
  bit_xor,
  fetch_bit_xor,
  inc,
  fetch_inc,
  dec,
  fetch_dec,
};

namespace detail {

// What the CPU does: inc and dec are add and sub of one.
enum class amo_code : std::uint8_t { load, store, cas, add, sub, mul, min, max, bit_and, bit_or, bit_xor };
// The six representations an atomic domain can hold.
enum class amo_type : std::uint8_t { i32, u32, i64, u64, f32, f64 };

template <typename T>
constexpr bool amo_type_ok = (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8)) ||
                             std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T>
constexpr amo_type amo_type_of() {
  if constexpr (std::is_same_v<T, float>) return amo_type::f32;
  else if constexpr (std::is_same_v<T, double>) return amo_type::f64;
  else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? amo_type::i32 : amo_type::u32;
  else return std::is_signed_v<T> ? amo_type::i64 : amo_type::u64;
}

// The failure order of a compare-exchange may not release.
constexpr int amo_fail_order(int mo) {
  return mo == __ATOMIC_RELEASE ? __ATOMIC_RELAXED : mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : mo;
}

template <typename T>
T amo_combine(amo_code code, T old, T v) {
  switch (code) {
    case amo_code::add: return static_cast<T>(old + v);
    case amo_code::sub: return static_cast<T>(old - v);
    case amo_code::mul:
      if constexpr (std::is_integral_v<T>) {
        // In the unsigned type: a signed product that overflows wraps instead of being undefined.
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(old) * static_cast<U>(v)));
      } else {
        return static_cast<T>(old * v);
      }
    case amo_code::min: return v < old ? v : old;
    case amo_code::max: return old < v ? v : old;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (code) {
      case amo_code::bit_and: return static_cast<T>(old & v);
      case amo_code::bit_or: return static_cast<T>(old | v);
      case amo_code::bit_xor: return static_cast<T>(old ^ v);
      default: break;
    }
  }
  return v;
}

// One atomic with the memory order Mo (an __ATOMIC_* constant, which the builtins want as a
// constant for the best code); returns the value read.
template <typename T, int Mo>
T amo_apply_ordered(T* p, amo_code code, T v1, T v2) {
  constexpr int load_mo = Mo == __ATOMIC_RELEASE || Mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : Mo;
  constexpr int store_mo = Mo == __ATOMIC_ACQUIRE || Mo == __ATOMIC_ACQ_REL ? __ATOMIC_RELEASE : Mo;
  constexpr int fail_mo = amo_fail_order(Mo);
  if (code == amo_code::load) {
    T out;
    __atomic_load(p, &out, load_mo);
    return out;
  }
  if (code == amo_code::store) {
    __atomic_store(p, &v1, store_mo);
    return v1;
  }
  if (code == amo_code::cas) {
    T expected = v1;
    __atomic_compare_exchange(p, &expected, &v2, false, Mo, fail_mo);
    return expected;
  }
  if constexpr (std::is_integral_v<T>) {
    if (code == amo_code::add) return __atomic_fetch_add(p, v1, Mo);
    if (code == amo_code::sub) return __atomic_fetch_sub(p, v1, Mo);
    if (code == amo_code::bit_and) return __atomic_fetch_and(p, v1, Mo);
    if (code == amo_code::bit_or) return __atomic_fetch_or(p, v1, Mo);
    if (code == amo_code::bit_xor) return __atomic_fetch_xor(p, v1, Mo);
  }
  // mul, min, max, and floating-point arithmetic: a compare-exchange loop.
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  for (;;) {
    T desired = amo_combine<T>(code, old, v1);
    if (__atomic_compare_exchange(p, &old, &desired, true, Mo, fail_mo)) return old;
  }
}

// Performs one atomic on memory this process addresses; returns the value read.
template <typename T>
T amo_apply(T* p, amo_code code, T v1, T v2, std::memory_order order) {
  switch (order) {
    case std::memory_order_relaxed: return amo_apply_ordered<T, __ATOMIC_RELAXED>(p, code, v1, v2);
    case std::memory_order_consume:
    case std::memory_order_acquire: return amo_apply_ordered<T, __ATOMIC_ACQUIRE>(p, code, v1, v2);
    case std::memory_order_release: return amo_apply_ordered<T, __ATOMIC_RELEASE>(p, code, v1, v2);
    case std::memory_order_acq_rel: return amo_apply_ordered<T, __ATOMIC_ACQ_REL>(p, code, v1, v2);
    default: return amo_apply_ordered<T, __ATOMIC_SEQ_CST>(p, code, v1, v2);
  }
}

// Off-node: a runtime message to the owner, which applies the atomic and replies with the
// value read; `result` (8 bytes of room, or null) receives it before op's operation event.
void amo_remote(intrank_t rank, const void* owner_addr, amo_code code, amo_type type, const void* v1, const void* v2,
                std::size_t size, std::memory_order order, void* result, rma_op* op);


constexpr std::uint32_t amo_bit(atomic_op op) { return std::uint32_t{1} << static_cast<int>(op); }

}  // namespace detail

// `final` since UPC++ 2022.3.
template <typename T>
class atomic_domain final {
  static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                "atomic_domain<T>: T must not be const or volatile (spec 13.3 ¶6): use atomic_domain<int>, and "
                "global_ptr<const T> for the load-only pointers");
  static_assert(detail::amo_type_ok<std::remove_cv_t<T>>,
                "atomic_domain<T>: T must be float, double, or a 32- or 64-bit integer type (spec 13.3 ¶6)");

 public:
  // Collective over `tm` (spec §13.3 ¶4). Refuses, in every codemode, an empty operation set
  // (prohibited since UPC++ 2022.3) and bitwise operations on a floating-point type.
  atomic_domain(const std::vector<atomic_op>& ops, const team& tm = world()) : team_(&tm), active_(true) {
#if UPCXX_ASSERT_ENABLED
    detail::check_master_persona("the upcxx::atomic_domain constructor (collective)");
    detail::check_collective_context("the upcxx::atomic_domain constructor (collective)");
#endif
    if (ops.empty())
      detail::fail_at(upcxx::detail::source_loc::current(),
                      "upcxx::atomic_domain constructed with an empty operation set: name the atomic_op values the "
                      "domain will perform (an empty set is prohibited since UPC++ 2022.3)");
    for (atomic_op op : ops) {
      if (std::is_floating_point_v<T> && (op == atomic_op::bit_and || op == atomic_op::fetch_bit_and ||
                                          op == atomic_op::bit_or || op == atomic_op::fetch_bit_or ||
                                          op == atomic_op::bit_xor || op == atomic_op::fetch_bit_xor))
        detail::fail_at(upcxx::detail::source_loc::current(),
                        "upcxx::atomic_domain: bitwise operations are not defined for floating-point types "
                        "(spec 13.3 Table 13.1)");
      ops_ |= detail::amo_bit(op);
    }
  }
  // Inactive (UPC++ 2022.3): no domain until one is moved in. Touches no runtime state, so it
  // may be built before init() (a global, a class member).
  atomic_domain() = default;
  atomic_domain(atomic_domain&& other) noexcept : ops_(other.ops_), team_(other.team_), active_(other.active_) {
    other.active_ = false;
  }
  // UPC++ 2022.3: the target must be inactive (default-constructed, moved from or destroyed);
  // debug codemode reports assigning over an active domain. A self-move does nothing (UPC++
  // issue 547).
  atomic_domain& operator=(atomic_domain&& other) noexcept {
    if (&other == this) return *this;
#if UPCXX_ASSERT_ENABLED
    if (active_)
      detail::fail_at(upcxx::detail::source_loc::current(),
                      "upcxx::atomic_domain move assignment: the target domain is active; UPC++ (2022.3) allows "
                      "moving a domain only into an inactive one (default-constructed, moved from or destroyed)");
#endif
    ops_ = other.ops_;
    team_ = other.team_;
    active_ = std::exchange(other.active_, false);
    return *this;
  }
  atomic_domain(const atomic_domain&) = delete;
  atomic_domain& operator=(const atomic_domain&) = delete;
  ~atomic_domain() = default;

  // Collective (spec §13.3 ¶13): after the entry barrier, every operation of the domain must
  // have completed; the object is then inactive (it may be destroyed or assigned to). Unlike
  // team::destroy(), calling it on an inactive domain is an error (as in UPC++).
  void destroy(entry_barrier lev = entry_barrier::user) {
    if (!active_)
      detail::fail_at(upcxx::detail::source_loc::current(),
                      "upcxx::atomic_domain::destroy on an inactive domain (default-constructed, moved from or "
                      "already destroyed)");
    detail::check_collective_context("upcxx::atomic_domain::destroy (collective)");
    detail::entry_barrier_wait(*team_, lev);
    active_ = false;
  }
  bool is_active() const { return active_; }

  // ---- load and store ----
  template <typename Cx = decltype(operation_cx::as_future())>
  auto load(global_ptr<const T> p, std::memory_order order, Cx&& cx = operation_cx::as_future(),
            upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    return op_fetch(atomic_op::load, detail::amo_code::load, const_cast_(p), T{}, T{}, order, std::forward<Cx>(cx), loc);
  }
  template <typename Cx = decltype(operation_cx::as_future())>
  auto load(global_ptr<const T> p, T* result, std::memory_order order, Cx&& cx = operation_cx::as_future(),
            upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    return op_into(atomic_op::load, detail::amo_code::load, const_cast_(p), T{}, T{}, result, order,
                   std::forward<Cx>(cx), loc);
  }
  template <typename Cx = decltype(operation_cx::as_future())>
  auto store(global_ptr<T> p, T val, std::memory_order order, Cx&& cx = operation_cx::as_future(),
             upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    return op_void(atomic_op::store, detail::amo_code::store, p, val, T{}, order, std::forward<Cx>(cx), loc);
  }

  // ---- compare-exchange: writes val2 if the value is val1; produces the value read ----
  template <typename Cx = decltype(operation_cx::as_future())>
  auto compare_exchange(global_ptr<T> p, T val1, T val2, std::memory_order order, Cx&& cx = operation_cx::as_future(),
                        upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    return op_fetch(atomic_op::compare_exchange, detail::amo_code::cas, p, val1, val2, order, std::forward<Cx>(cx), loc);
  }
  template <typename Cx = decltype(operation_cx::as_future())>
  auto compare_exchange(global_ptr<T> p, T val1, T val2, T* result, std::memory_order order,
                        Cx&& cx = operation_cx::as_future(),
                        upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {
    return op_into(atomic_op::compare_exchange, detail::amo_code::cas, p, val1, val2, result, order,
                   std::forward<Cx>(cx), loc);
  }

#define GANNET_AMO_BINARY(name, code)                                                                              \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto name(global_ptr<T> p, T val, std::memory_order order, Cx&& cx = operation_cx::as_future(),                   \
            upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                                     \
    return op_void(atomic_op::name, detail::amo_code::code, p, val, T{}, order, std::forward<Cx>(cx), loc);         \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto fetch_##name(global_ptr<T> p, T val, std::memory_order order, Cx&& cx = operation_cx::as_future(),           \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    return op_fetch(atomic_op::fetch_##name, detail::amo_code::code, p, val, T{}, order, std::forward<Cx>(cx), loc); \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto fetch_##name(global_ptr<T> p, T val, T* result, std::memory_order order, Cx&& cx = operation_cx::as_future(), \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    return op_into(atomic_op::fetch_##name, detail::amo_code::code, p, val, T{}, result, order,                     \
                   std::forward<Cx>(cx), loc);                                                                      \
  }

  GANNET_AMO_BINARY(add, add)
  GANNET_AMO_BINARY(sub, sub)
  GANNET_AMO_BINARY(mul, mul)
  GANNET_AMO_BINARY(min, min)
  GANNET_AMO_BINARY(max, max)
#undef GANNET_AMO_BINARY

#define GANNET_AMO_BITWISE(name, code)                                                                              \
  template <typename Cx = decltype(operation_cx::as_future()), typename U = T>                                     \
  auto name(global_ptr<T> p, T val, std::memory_order order, Cx&& cx = operation_cx::as_future(),                   \
            upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                                     \
    static_assert(std::is_integral_v<U>, "atomic_domain::" #name ": bitwise operations need an integer type");       \
    return op_void(atomic_op::name, detail::amo_code::code, p, val, T{}, order, std::forward<Cx>(cx), loc);         \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future()), typename U = T>                                     \
  auto fetch_##name(global_ptr<T> p, T val, std::memory_order order, Cx&& cx = operation_cx::as_future(),           \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    static_assert(std::is_integral_v<U>, "atomic_domain::fetch_" #name ": bitwise operations need an integer type"); \
    return op_fetch(atomic_op::fetch_##name, detail::amo_code::code, p, val, T{}, order, std::forward<Cx>(cx), loc); \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future()), typename U = T>                                     \
  auto fetch_##name(global_ptr<T> p, T val, T* result, std::memory_order order, Cx&& cx = operation_cx::as_future(), \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    static_assert(std::is_integral_v<U>, "atomic_domain::fetch_" #name ": bitwise operations need an integer type"); \
    return op_into(atomic_op::fetch_##name, detail::amo_code::code, p, val, T{}, result, order,                     \
                   std::forward<Cx>(cx), loc);                                                                      \
  }

  GANNET_AMO_BITWISE(bit_and, bit_and)
  GANNET_AMO_BITWISE(bit_or, bit_or)
  GANNET_AMO_BITWISE(bit_xor, bit_xor)
#undef GANNET_AMO_BITWISE

#define GANNET_AMO_UNARY(name, code)                                                                               \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto name(global_ptr<T> p, std::memory_order order, Cx&& cx = operation_cx::as_future(),                          \
            upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                                     \
    return op_void(atomic_op::name, detail::amo_code::code, p, T(1), T{}, order, std::forward<Cx>(cx), loc);        \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto fetch_##name(global_ptr<T> p, std::memory_order order, Cx&& cx = operation_cx::as_future(),                  \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    return op_fetch(atomic_op::fetch_##name, detail::amo_code::code, p, T(1), T{}, order, std::forward<Cx>(cx), loc); \
  }                                                                                                                 \
  template <typename Cx = decltype(operation_cx::as_future())>                                                     \
  auto fetch_##name(global_ptr<T> p, T* result, std::memory_order order, Cx&& cx = operation_cx::as_future(),       \
                    upcxx::detail::source_loc loc = upcxx::detail::source_loc::current()) const {                             \
    return op_into(atomic_op::fetch_##name, detail::amo_code::code, p, T(1), T{}, result, order,                    \
                   std::forward<Cx>(cx), loc);                                                                      \
  }

  GANNET_AMO_UNARY(inc, add)
  GANNET_AMO_UNARY(dec, sub)
#undef GANNET_AMO_UNARY

 private:
  static global_ptr<T> const_cast_(global_ptr<const T> p) { return upcxx::const_pointer_cast<T>(p); }

  // Debug codemode: the operation is in the domain's set, the domain is live, the target
  // belongs to the domain's team (spec §13.3 ¶25).
  void check(atomic_op op, const global_ptr<T>& p, [[maybe_unused]] const upcxx::detail::source_loc& loc) const {
#if UPCXX_ASSERT_ENABLED
    detail::check_init("an atomic_domain operation", loc);
    if (!active_) detail::fail_at(loc, "atomic operation on an atomic_domain that is inactive (destroyed, moved from or "
                                      "default-constructed)");
    if (!(ops_ & detail::amo_bit(op)))
      detail::fail_at(loc, "atomic operation " + std::to_string(static_cast<int>(op)) +
                              " (upcxx::atomic_op) is not in the atomic_domain's operation set");
    if (p.is_null()) detail::fail_at(loc, "atomic operation on a null global_ptr");
    if (team_->from_world(p.where(), -1) < 0)
      detail::fail_at(loc, "atomic operation on memory of rank " + std::to_string(p.where()) +
                              ", which is not a member of the atomic_domain's team");
#else
    (void)op, (void)p;
#endif
  }

  template <typename Vals, typename Cx>
  static auto start_remote(const global_ptr<T>& p, detail::amo_code code, const T& v1, const T& v2,
                           std::memory_order order, Cx&& cx, T* into) {
    using cxs_t = std::remove_cv_t<std::remove_reference_t<Cx>>;
    auto* op = new detail::async_op<cxs_t, std::tuple<>, Vals>(cxs_t(std::forward<Cx>(cx)), detail::ev_operation,
                                                                p.where());
    void* result = into;
    if constexpr (std::tuple_size_v<Vals> == 1) result = &std::get<0>(op->op_values);
    return detail::start_async(op, [&] {
      detail::amo_remote(p.where(), p.raw_, code, detail::amo_type_of<T>(), &v1, &v2, sizeof(T), order, result, op);
    });
  }

  // One operation. Fetch: the value read is the operation's value; otherwise it is written to
  // *into when `into` is not null (the fetch-into-memory overloads) and dropped when it is.
  template <bool Fetch, typename Cx>
  auto run(atomic_op which, detail::amo_code code, global_ptr<T> p, T v1, T v2, T* into, std::memory_order order,
           Cx&& cx, const upcxx::detail::source_loc& loc) const {
    using cxs_t = std::remove_cv_t<std::remove_reference_t<Cx>>;
    static_assert(detail::is_completions<cxs_t>::value, "atomic_domain: the completions argument must be a completion object");
    static_assert(!detail::cx_asks_for<cxs_t, detail::cx_event::source> &&
                      !detail::cx_asks_for<cxs_t, detail::cx_event::remote>,
                  "atomic_domain operations have only operation completion (spec 13.3): use "
                  "operation_cx::as_future(), as_promise(p) or as_lpc(persona, fn)");
    check(which, p, loc);
    if (UPCXX_DETAIL_LIKELY(p.detail_addressable())) {
      // An atomic synchronizes: gannet::overlap completes its outstanding puts first.
      if (UPCXX_DETAIL_UNLIKELY(detail::g_state.sync_hooks_live.load(std::memory_order_relaxed)))
        detail::sync_hooks_slow();
      cxs_t cxs(std::forward<Cx>(cx));
      const std::uint64_t t0 = detail::observe_begin();
      T old = detail::amo_apply<T>(p.detail_local_unchecked(), code, v1, v2, order);
      if (UPCXX_DETAIL_UNLIKELY(t0 != 0)) detail::observed_span(detail::observe_atomic, p.where(), sizeof(T), t0);
      if constexpr (Fetch) {
        return detail::complete_sync(cxs, std::tuple<>{}, std::tuple<T>(old), p.where());
      } else {
        if (into) *into = old;
        return detail::complete_sync(cxs, std::tuple<>{}, std::tuple<>{}, p.where());
      }
    }
    using vals = std::conditional_t<Fetch, std::tuple<T>, std::tuple<>>;
    return start_remote<vals>(p, code, v1, v2, order, std::forward<Cx>(cx), into);
  }
  template <typename Cx>
  auto op_fetch(atomic_op which, detail::amo_code code, global_ptr<T> p, T v1, T v2, std::memory_order order, Cx&& cx,
                const upcxx::detail::source_loc& loc) const {
    return run<true>(which, code, p, v1, v2, nullptr, order, std::forward<Cx>(cx), loc);
  }
  template <typename Cx>
  auto op_into(atomic_op which, detail::amo_code code, global_ptr<T> p, T v1, T v2, T* result, std::memory_order order,
               Cx&& cx, const upcxx::detail::source_loc& loc) const {
    return run<false>(which, code, p, v1, v2, result, order, std::forward<Cx>(cx), loc);
  }
  template <typename Cx>
  auto op_void(atomic_op which, detail::amo_code code, global_ptr<T> p, T v1, T v2, std::memory_order order, Cx&& cx,
               const upcxx::detail::source_loc& loc) const {
    return run<false>(which, code, p, v1, v2, nullptr, order, std::forward<Cx>(cx), loc);
  }

  std::uint32_t ops_ = 0;
  const team* team_ = nullptr;
  bool active_ = false;
};

}  // namespace upcxx
