// Collectives (spec chapter 12): barrier_async, broadcast, reduce_one, reduce_all (value and
// bulk forms) over any team, with the op_fast_* operations; the reference implementation's
// op_add-style operations and the *_nontrivial forms (Serializable values) that 2020.10
// programs use.
//
// Every collective is collective over its team (spec §12.1: all members issue the team's
// collectives in one order) and must be called by the thread holding the master persona. All
// are non-blocking, progress level internal, and complete through operation_cx (future,
// promise, LPC). Cost: O(log n) rounds of one message per rank. On a team of one rank the
// result is known at once but notified in the next user-level progress, as UPC++ does
// (coll_complete_now, below).
//
// Memory ordering (spec §12.2): what a member did before calling happens-before what the
// receivers of the result do after its operation-completion notification.
#pragma once

#include "upcxx/version.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "upcxx/completion.hpp"
#include "upcxx/detail/coll_fwd.hpp"
#include "upcxx/serialization.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

// ---- reduction operations (spec §12.2 ¶17-22) ----
namespace detail {
// Arithmetic on bool follows the spec: add and max are |, mul and min are &. Small integer
// types promote in + and *, so the result is converted back.
struct op_fast_add_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_arithmetic_v<T>,
                  "upcxx::op_fast_add: T must be an arithmetic type (spec 12.2 ¶21); for other types use upcxx::op_add");
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else return static_cast<T>(a + b);
  }
};
struct op_fast_mul_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_arithmetic_v<T>,
                  "upcxx::op_fast_mul: T must be an arithmetic type (spec 12.2 ¶21); for other types use upcxx::op_mul");
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return static_cast<T>(a * b);
  }
};
struct op_fast_min_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_arithmetic_v<T>,
                  "upcxx::op_fast_min: T must be an arithmetic type (spec 12.2 ¶21); for other types use upcxx::op_min");
    return b < a ? b : a;
  }
};
struct op_fast_max_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_arithmetic_v<T>,
                  "upcxx::op_fast_max: T must be an arithmetic type (spec 12.2 ¶21); for other types use upcxx::op_max");
    return a < b ? b : a;
  }
};
struct op_fast_bit_and_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_integral_v<T>,
                  "upcxx::op_fast_bit_and: T must be an integral type (spec 12.2 ¶21); for other types use upcxx::op_bit_and");
    return static_cast<T>(a & b);
  }
};
struct op_fast_bit_or_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_integral_v<T>,
                  "upcxx::op_fast_bit_or: T must be an integral type (spec 12.2 ¶21); for other types use upcxx::op_bit_or");
    return static_cast<T>(a | b);
  }
};
struct op_fast_bit_xor_t {
  template <typename T>
  T operator()(T a, T b) const {
    static_assert(std::is_integral_v<T>,
                  "upcxx::op_fast_bit_xor: T must be an integral type (spec 12.2 ¶21); for other types use upcxx::op_bit_xor");
    return static_cast<T>(a ^ b);
  }
};
// The reference implementation's general forms: any type with the operator, including the
// non-trivial ones the *_nontrivial collectives reduce (std::string with op_add, say).
struct op_add_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct op_mul_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a * b;
  }
};
struct op_min_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};
struct op_max_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
struct op_bit_and_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a & b;
  }
};
struct op_bit_or_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a | b;
  }
};
struct op_bit_xor_t {
  template <typename T>
  T operator()(const T& a, const T& b) const {
    return a ^ b;
  }
};
}  // namespace detail

constexpr detail::op_fast_add_t op_fast_add{};
constexpr detail::op_fast_mul_t op_fast_mul{};
constexpr detail::op_fast_min_t op_fast_min{};
constexpr detail::op_fast_max_t op_fast_max{};
constexpr detail::op_fast_bit_and_t op_fast_bit_and{};
constexpr detail::op_fast_bit_or_t op_fast_bit_or{};
constexpr detail::op_fast_bit_xor_t op_fast_bit_xor{};

// Unspecified in 2020.10, used by its programs; later releases keep them in experimental.
constexpr detail::op_add_t op_add{};
constexpr detail::op_mul_t op_mul{};
constexpr detail::op_min_t op_min{};
constexpr detail::op_max_t op_max{};
constexpr detail::op_bit_and_t op_bit_and{};
constexpr detail::op_bit_or_t op_bit_or{};
constexpr detail::op_bit_xor_t op_bit_xor{};
namespace experimental {
using upcxx::op_add;
using upcxx::op_bit_and;
using upcxx::op_bit_or;
using upcxx::op_bit_xor;
using upcxx::op_max;
using upcxx::op_min;
using upcxx::op_mul;
}  // namespace experimental

namespace detail {

template <typename T>
using coll_decay_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <typename Cx>
inline constexpr bool is_completion_v = is_completions<coll_decay_t<Cx>>::value;

template <typename T>
T coll_load(const std::byte* p) {
  alignas(T) unsigned char buf[sizeof(T)];
  std::memcpy(buf, p, sizeof(T));
  return std::move(*std::launder(reinterpret_cast<T*>(buf)));  // T may be move-only
}

template <typename T>
void coll_store_bytes(coll_bytes& out, const T* src, std::size_t count) {
  out.assign(reinterpret_cast<const std::byte*>(src), sizeof(T) * count);
}

// One collective in flight at this rank: its notifications (operation completion, with the
// values Vals) and how the template side combines and finishes.
template <typename Cxs, typename... Vals>
class coll_op_base : public coll_client {
 public:
  explicit coll_op_base(Cxs&& cxs) : cx_(std::move(cxs), -1) {}
  auto prepare() { return cx_.prepare(); }

 protected:
  void notify(std::tuple<Vals...> vals) {
    cx_.template notify<cx_event::operation>(std::move(vals));  // moved into the future
    delete this;
  }
  cx_async_state<Cxs, std::tuple<>, std::tuple<Vals...>> cx_;
};

// Elementwise op over `count` trivially serializable T in both buffers.
template <typename T, typename Op>
void coll_combine_trivial(const Op& op, coll_bytes& acc, const std::byte* in, std::size_t n,
                          bool in_from_lower) {
  const std::size_t count = n / sizeof(T);
  for (std::size_t i = 0; i < count; ++i) {
    T a = coll_load<T>(acc.data() + i * sizeof(T));
    T b = coll_load<T>(in + i * sizeof(T));
    T r = in_from_lower ? static_cast<T>(op(b, a)) : static_cast<T>(op(a, b));
    std::memcpy(static_cast<void*>(acc.data() + i * sizeof(T)), &r, sizeof(T));
  }
}

// Starts the operation and returns its futures (or nothing).
template <typename Op>
auto coll_launch(const team& t, coll_kind kind, intrank_t root, Op* op) {
  if constexpr (std::is_void_v<decltype(op->prepare())>) {
    op->prepare();
    coll_start(t, kind, root, op);
  } else {
    auto result = op->prepare();
    coll_start(t, kind, root, op);
    return result;
  }
}

template <typename Cxs>
class barrier_op final : public coll_op_base<Cxs> {
 public:
  using coll_op_base<Cxs>::coll_op_base;
  void finish() override { this->notify({}); }
};

// broadcast and reduce of one value, and the bulk forms.
template <typename Cxs, typename T>
class value_op final : public coll_op_base<Cxs, T> {
 public:
  using coll_op_base<Cxs, T>::coll_op_base;
  void finish() override { this->notify(std::tuple<T>(coll_load<T>(this->data.data()))); }
};

template <typename Cxs, typename T, typename Op>
class reduce_value_op final : public coll_op_base<Cxs, T> {
 public:
  reduce_value_op(Cxs&& cxs, Op op) : coll_op_base<Cxs, T>(std::move(cxs)), op_(std::move(op)) {
    this->same_size_everywhere = true;
  }
  void combine(coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) override {
    coll_combine_trivial<T>(op_, acc, in, n, in_from_lower);
  }
  void finish() override { this->notify(std::tuple<T>(coll_load<T>(this->data.data()))); }

 private:
  Op op_;
};

// Bulk forms: the result lands in dst (when dst is non-null on this rank).
template <typename Cxs, typename T, typename Op>
class reduce_bulk_op final : public coll_op_base<Cxs> {
 public:
  reduce_bulk_op(Cxs&& cxs, Op op, T* dst) : coll_op_base<Cxs>(std::move(cxs)), op_(std::move(op)), dst_(dst) {
    this->same_size_everywhere = true;
  }
  void combine(coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) override {
    coll_combine_trivial<T>(op_, acc, in, n, in_from_lower);
  }
  void finish() override {
    if (dst_ && !this->data.empty()) std::memcpy(static_cast<void*>(dst_), this->data.data(), this->data.size());
    this->notify({});
  }

 private:
  Op op_;
  T* dst_;
};

template <typename Cxs, typename T>
class broadcast_bulk_op final : public coll_op_base<Cxs> {
 public:
  broadcast_bulk_op(Cxs&& cxs, T* buffer, bool root) : coll_op_base<Cxs>(std::move(cxs)), buffer_(buffer), root_(root) {}
  void finish() override {
    if (!root_ && !this->data.empty())
      std::memcpy(static_cast<void*>(buffer_), this->data.data(), this->data.size());
    this->notify({});
  }

 private:
  T* buffer_;
  bool root_;
};

// ---- Serializable (non-trivial) values ----
template <typename T>
void coll_serialize(coll_bytes& out, const T& value) {
  serial_writer w(nullptr, 0);
  serialize_into(w, value);
  out.assign(w.data(), w.size());
}
template <typename T>
T coll_deserialize(const std::byte* bytes) {
  // Vectors of std::byte come from operator new, 16-byte aligned, as the reader expects.
  serial_reader r(bytes);
  return deserialize_from<T>(r);
}

template <typename Cxs, typename T>
class broadcast_nontrivial_op final : public coll_op_base<Cxs, T> {
 public:
  using coll_op_base<Cxs, T>::coll_op_base;
  void finish() override { this->notify(std::tuple<T>(coll_deserialize<T>(this->data.data()))); }
};

template <typename Cxs, typename T, typename Op>
class reduce_nontrivial_op final : public coll_op_base<Cxs, T> {
 public:
  reduce_nontrivial_op(Cxs&& cxs, Op op) : coll_op_base<Cxs, T>(std::move(cxs)), op_(std::move(op)) {}
  void combine(coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) override;
  void finish() override { this->notify(std::tuple<T>(coll_deserialize<T>(this->data.data()))); }

 private:
  Op op_;
};

template <typename Cxs, typename T, typename Op>
void reduce_nontrivial_op<Cxs, T, Op>::combine(coll_bytes& acc, const std::byte* in, std::size_t n,
                                               bool in_from_lower) {
  // The incoming bytes may sit anywhere in a message: copy them to an aligned buffer.
  coll_bytes aligned;
  aligned.assign(in, n);
  T a = coll_deserialize<T>(acc.data());
  T b = coll_deserialize<T>(aligned.data());
  T r = in_from_lower ? T(op_(b, a)) : T(op_(a, b));
  coll_serialize(acc, r);
}

// Reports a collective initiated inside the restricted context and aborts (src/coll/coll.cpp).
[[noreturn]] void fail_collective_restricted(const char* what);

// Debug codemode: collectives are issued by the thread holding the master persona (spec 12.1 ¶6),
// and not from the restricted context: these (progress level internal or none) were
// deprecated there in 2020.10 and are an error since UPC++ 2022.9 (UPC++ specification
// issues 169 and 185).
inline void coll_check_caller([[maybe_unused]] const char* what) {
#if UPCXX_ASSERT_ENABLED
  if (UPCXX_DETAIL_UNLIKELY(in_progress())) fail_collective_restricted(what);
  check_master_persona(what);
#endif
}

// Team of one: the result is known at once, but it is notified in the next user-level
// progress, as UPC++ does (its one-rank collectives complete from progress): a program may
// rely on a collective's wait() making progress, e.g. `while (!got) reduce_all(..).wait();`
// waiting for an rpc_ff it sent itself.
template <typename Cx, typename... V>
auto coll_complete_now(Cx&& completions, std::tuple<V...> vals) {
  using cxs_t = coll_decay_t<Cx>;
  cx_async_state<cxs_t, std::tuple<>, std::tuple<V...>> state(cxs_t(std::forward<Cx>(completions)), rank_me());
  if constexpr (std::is_void_v<decltype(state.prepare())>) {
    state.prepare();
    state.template notify<cx_event::operation>(std::move(vals));
  } else {
    auto result = state.prepare();
    state.template notify<cx_event::operation>(std::move(vals));
    return result;
  }
}

}  // namespace detail

// ---- barrier_async (spec §12.2 ¶11) ----
template <typename Cx = decltype(operation_cx::as_future())>
auto barrier_async(const team& tm = world(), Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::is_completion_v<Cx>, "barrier_async: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::barrier_async (collective)");
  // A team of one too completes in progress: calls to ourselves run first (barriers deliver,
  // docs/compatibility.md).
  auto* op = new detail::barrier_op<cxs_t>(cxs_t(std::forward<Cx>(completions)));
  return detail::coll_launch(tm, detail::coll_kind::barrier, 0, op);
}

// ---- broadcast (spec §12.2 ¶37) ----
template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto broadcast(T value, intrank_t root, const team& tm = world(), Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::value_size_ok<T>, UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::broadcast(value, ...)", "broadcast(T* buffer, count, root)"));
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::broadcast: T must be TriviallySerializable (use broadcast_nontrivial for other types)");
  static_assert(detail::is_completion_v<Cx>, "broadcast: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::broadcast (collective)");
  detail::check_rank("upcxx::broadcast (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* op = new detail::value_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)));
  if (tm.rank_me() == root) detail::coll_store_bytes(op->data, &value, 1);
  return detail::coll_launch(tm, detail::coll_kind::broadcast, root, op);
}

template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto broadcast(T* buffer, std::size_t count, intrank_t root, const team& tm = world(),
               Cx&& completions = operation_cx::as_future()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::broadcast: T must be TriviallySerializable");
  static_assert(detail::is_completion_v<Cx>, "broadcast: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::broadcast (collective)");
  detail::check_rank("upcxx::broadcast (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<>{});
  const bool is_root = tm.rank_me() == root;
  auto* op = new detail::broadcast_bulk_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), buffer, is_root);
  if (is_root) detail::coll_store_bytes(op->data, buffer, count);
  return detail::coll_launch(tm, detail::coll_kind::broadcast, root, op);
}

// Unspecified in 2020.10 (experimental later): broadcast of a Serializable value.
template <typename T, typename Cx = decltype(operation_cx::as_future())>
auto broadcast_nontrivial(T value, intrank_t root, const team& tm = world(),
                          Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::is_completion_v<Cx>, "broadcast: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::broadcast_nontrivial (collective)");
  detail::check_rank("upcxx::broadcast_nontrivial (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* op = new detail::broadcast_nontrivial_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)));
  if (tm.rank_me() == root) detail::coll_serialize(op->data, value);
  return detail::coll_launch(tm, detail::coll_kind::broadcast, root, op);
}

// ---- reductions (spec §12.2 ¶23) ----
template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_one(T value, BinaryOp&& op, intrank_t root, const team& tm = world(),
                Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::value_size_ok<T>, UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::reduce_one(value, ...)", "reduce_one(const T* src, T* dst, count, op, root)"));
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::reduce_one: T must be TriviallySerializable (use reduce_one_nontrivial for other types)");
  static_assert(detail::is_completion_v<Cx>, "reduce_one: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_one (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  detail::check_rank("upcxx::reduce_one (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* o = new detail::reduce_value_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)), op_t(std::forward<BinaryOp>(op)));
  detail::coll_store_bytes(o->data, &value, 1);
  return detail::coll_launch(tm, detail::coll_kind::reduce_one, root, o);
}

template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_all(T value, BinaryOp&& op, const team& tm = world(), Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::value_size_ok<T>, UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::reduce_all(value, ...)", "reduce_all(const T* src, T* dst, count, op)"));
  static_assert(is_trivially_serializable<T>::value,
                "upcxx::reduce_all: T must be TriviallySerializable (use reduce_all_nontrivial for other types)");
  static_assert(detail::is_completion_v<Cx>, "reduce_all: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_all (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* o = new detail::reduce_value_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)), op_t(std::forward<BinaryOp>(op)));
  detail::coll_store_bytes(o->data, &value, 1);
  return detail::coll_launch(tm, detail::coll_kind::reduce_all, 0, o);
}

template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_one(const T* src, T* dst, std::size_t count, BinaryOp&& op, intrank_t root, const team& tm = world(),
                Cx&& completions = operation_cx::as_future()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::reduce_one: T must be TriviallySerializable");
  static_assert(detail::is_completion_v<Cx>, "reduce_one: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_one (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  detail::check_rank("upcxx::reduce_one (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) {
    if (src != dst && count) std::memmove(static_cast<void*>(dst), src, count * sizeof(T));
    return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<>{});
  }
  // Only the root's dst receives the result (spec ¶31).
  T* out = tm.rank_me() == root ? dst : nullptr;
  auto* o = new detail::reduce_bulk_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)),
                                                       op_t(std::forward<BinaryOp>(op)), out);
  detail::coll_store_bytes(o->data, src, count);
  return detail::coll_launch(tm, detail::coll_kind::reduce_one, root, o);
}

template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_all(const T* src, T* dst, std::size_t count, BinaryOp&& op, const team& tm = world(),
                Cx&& completions = operation_cx::as_future()) {
  static_assert(is_trivially_serializable<T>::value, "upcxx::reduce_all: T must be TriviallySerializable");
  static_assert(detail::is_completion_v<Cx>, "reduce_all: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_all (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  if (tm.rank_n() == 1) {
    if (src != dst && count) std::memmove(static_cast<void*>(dst), src, count * sizeof(T));
    return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<>{});
  }
  auto* o = new detail::reduce_bulk_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)),
                                                       op_t(std::forward<BinaryOp>(op)), dst);
  detail::coll_store_bytes(o->data, src, count);
  return detail::coll_launch(tm, detail::coll_kind::reduce_all, 0, o);
}

// Unspecified in 2020.10 (experimental later): reductions of Serializable values.
template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_one_nontrivial(T value, BinaryOp&& op, intrank_t root, const team& tm = world(),
                           Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::is_completion_v<Cx>, "reduce_one: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_one_nontrivial (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  detail::check_rank("upcxx::reduce_one_nontrivial (root)", root, tm.rank_n(), upcxx::detail::source_loc::current());
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* o = new detail::reduce_nontrivial_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)),
                                                            op_t(std::forward<BinaryOp>(op)));
  detail::coll_serialize(o->data, value);
  return detail::coll_launch(tm, detail::coll_kind::reduce_one, root, o);
}

template <typename T, typename BinaryOp, typename Cx = decltype(operation_cx::as_future())>
auto reduce_all_nontrivial(T value, BinaryOp&& op, const team& tm = world(),
                           Cx&& completions = operation_cx::as_future()) {
  static_assert(detail::is_completion_v<Cx>, "reduce_all: the completions argument must be a completion object");
  using cxs_t = detail::coll_decay_t<Cx>;
  detail::coll_check_caller("upcxx::reduce_all_nontrivial (collective)");
  using op_t = detail::coll_decay_t<BinaryOp>;
  if (tm.rank_n() == 1) return detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<T>(std::move(value)));
  auto* o = new detail::reduce_nontrivial_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)),
                                                            op_t(std::forward<BinaryOp>(op)));
  detail::coll_serialize(o->data, value);
  return detail::coll_launch(tm, detail::coll_kind::reduce_all, 0, o);
}

namespace experimental {
using upcxx::broadcast_nontrivial;
using upcxx::reduce_all_nontrivial;
using upcxx::reduce_one_nontrivial;
}  // namespace experimental

}  // namespace upcxx
