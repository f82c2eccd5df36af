// gannet/collectives.hpp: the collectives UPC++ users ask for beside broadcast and the
// reductions: gather, gather_all, alltoall, scan and exscan over any team, their v-forms with
// per-rank counts, and gather_all of one Serializable value. Gannet extension, not UPC++.
//
// In the UPC++ style (spec chapter 12): collective over the team (every member calls the same
// collectives in the same order, from the thread holding the master persona, never inside
// progress callbacks), nonblocking, progress level internal, completing through a trailing
// operation_cx argument (a future by default; as_promise, as_lpc). Array forms take
// TriviallySerializable T; `src` must stay unchanged and `dst` untouched until the operation
// completes at this rank, and the two must not overlap. Element counts are per rank:
//
//   gather(src, dst, count, root)        dst (at the root) gets count elements of each
//                                        team rank, in team rank order
//   gather_all(src, dst, count)          the same at every rank
//   alltoall(src, dst, count)            block j of src (count elements) goes to team rank
//                                        j; block k of dst comes from team rank k
//   scan(src, dst, count, op)            dst = op-fold of team ranks 0..me, element-wise
//   exscan(src, dst, count, op)          the same of ranks 0..me-1 (rank 0's dst untouched)
//   gatherv(src, count, dst, counts, root)   rank k sends counts[k] elements (its `count`);
//   gather_allv(src, count, dst, counts)     dst holds them back to back in rank order
//   alltoallv(src, send_counts, dst, recv_counts)
//                                        send_counts[j] elements to rank j, packed back to
//                                        back in src; recv_counts[k] from rank k, in dst
//   gather_all(value)                    future<std::vector<T>> of every rank's value, for
//                                        any Serializable T (std::string, vectors, ...)
//
// `op` is one of UPC++'s operators (op_fast_add, ..., op_add, ...) or any associative binary
// function object; it is applied in rank order (op(lower ranks, higher ranks)). Count arrays
// are read during the call only.
//
// Cost (src/coll/coll.cpp): gather, gather_all and scan take O(log n) rounds of one message
// per rank; alltoall of small blocks takes Bruck's ceil(log2 n) rounds, of larger blocks n-1
// messages; a block over 32 KiB is copied once by its receiver from the sender's shared heap
// (staged there first when it is private memory), or read by RMA get from another machine.
// Debug codemode checks that every member passed the same count and root (one more small
// collective per call, which the call's completion waits for); every codemode checks that the
// blocks that arrive have the sizes the counts say. Both name the call and the caller's line.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gannet/exchange.hpp"
#include "upcxx/collectives.hpp"
#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/detail/source_loc.hpp"

namespace gannet {
namespace detail {

namespace ud = upcxx::detail;
using upcxx::intrank_t;
using default_cx = decltype(upcxx::operation_cx::as_future());

// Debug codemode: every member must pass the same `a` (a count) and `b` (a root). A small
// reduce_all of both and their negations, started just before the call's own collective,
// finds a member that differs and reports it at the caller's line. The call's completion
// waits for it (arg_gate), so nothing the call started is still in flight once the call is
// complete (the team may then be destroyed).
struct arg_gate {
  ud::coll_client* waiting = nullptr;  // the call's operation, whose finish() waits for the check
  bool checked = false;
};

class arg_check final : public ud::coll_client {
 public:
  arg_check(arg_gate* gate, const char* what, std::int64_t a, std::int64_t b, const ud::source_loc& loc)
      : gate_(gate), what_(what), a_(a), b_(b), loc_(loc) {
    const std::int64_t v[4] = {a, -a, b, -b};
    ud::coll_store_bytes(data, v, 4);
    same_size_everywhere = true;
    internal = true;
  }
  void combine(ud::coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) override {
    ud::coll_combine_trivial<std::int64_t>(upcxx::op_fast_max, acc, in, n, in_from_lower);
  }
  void finish() override {
    std::int64_t r[4];
    std::memcpy(r, data.data(), sizeof r);
    if (r[0] != -r[1])
      ud::fail_at(loc_, std::string(what_) + ": the team's ranks passed different counts (from " + std::to_string(-r[1]) +
                            " to " + std::to_string(r[0]) + "; this rank passed " + std::to_string(a_) +
                            "): every rank must pass the same count");
    if (r[2] != -r[3])
      ud::fail_at(loc_, std::string(what_) + ": the team's ranks passed different roots (from " + std::to_string(-r[3]) +
                            " to " + std::to_string(r[2]) + "; this rank passed " + std::to_string(b_) +
                            "): every rank must pass the same root");
    arg_gate* gate = gate_;
    delete this;
    gate->checked = true;
    if (gate->waiting) gate->waiting->finish();  // the call completed first: it finishes now
  }

 private:
  arg_gate* gate_;
  const char* what_;
  std::int64_t a_, b_;
  ud::source_loc loc_;
};

// Null in opt codemode, where nothing is checked.
inline arg_gate* verify_same_args(const char* what, const upcxx::team& tm, std::int64_t a, std::int64_t b,
                                  const ud::source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  auto* gate = new arg_gate;
  ud::coll_start(tm, ud::coll_kind::reduce_all, 0, new arg_check(gate, what, a, b, loc));
  return gate;
#else
  (void)what, (void)tm, (void)a, (void)b, (void)loc;
  return nullptr;
#endif
}

// The base of the calls' operations: finish() first asks awaiting_check(), and is called
// again when the argument check completes after the call's own collective.
template <typename Cxs>
class checked_op : public ud::coll_op_base<Cxs> {
 public:
  using ud::coll_op_base<Cxs>::coll_op_base;
  arg_gate* gate = nullptr;

 protected:
  bool awaiting_check() {
    if (!gate) return false;
    if (!gate->checked) {
      gate->waiting = this;
      return true;
    }
    delete gate;
    gate = nullptr;
    return false;
  }
};

[[noreturn]] inline void fail_sizes(const ud::source_loc& loc, const char* what, std::size_t got, std::size_t want,
                                    const char* why) {
  ud::fail_at(loc, std::string(what) + ": " + std::to_string(got) + " bytes arrived where the counts say " +
                       std::to_string(want) + ": " + why);
}

// gather, gather_all and their v-forms. The engine concatenates the contributions, at the
// root in root-relative order (team ranks root .. n-1, then 0 .. root-1): `head` is the bytes
// of ranks root .. n-1 and `total` those of all ranks. dst is null where nothing lands.
//
// gather_all of blocks of one size too large for a message runs as an alltoall of one block
// (direct copies between the ranks of a machine): then src is kept, not copied into data.
template <typename Cxs, typename T>
class gather_op final : public checked_op<Cxs> {
 public:
  gather_op(Cxs&& cxs, T* dst, std::size_t head, std::size_t total, const char* what, const ud::source_loc& loc)
      : checked_op<Cxs>(std::move(cxs)), dst_(dst), head_(head), total_(total), what_(what), loc_(loc) {}
  // gather_all: contributes src, directly when its blocks are large.
  void contribute(const T* src, std::size_t count) {
    if (count * sizeof(T) > ud::coll_direct_min_block()) {
      src_ = reinterpret_cast<const std::byte*>(src);
      this->block_bytes = count * sizeof(T);
    } else {
      ud::coll_store_bytes(this->data, src, count);
      this->same_size_everywhere = true;  // one count on every rank (checked in debug codemode)
    }
  }
  ud::coll_block block_to(intrank_t) override { return {src_, this->block_bytes}; }
  ud::coll_dest dest_from(intrank_t from) override {
    const std::size_t b = this->block_bytes;
    return {reinterpret_cast<std::byte*>(dst_) + static_cast<std::size_t>(from) * b, b};
  }
  void place(intrank_t from, const std::byte* in, std::size_t n) override {
    const auto d = dest_from(from);
    if (n != d.size) fail_sizes(loc_, what_, n, d.size, "the ranks' counts differ");
    if (n) std::memcpy(d.data, in, n);
  }
  void finish() override {
    if (this->awaiting_check()) return;
    if (dst_ && !this->block_bytes) {
      const std::size_t got = this->data.size();
      if (got != total_) fail_sizes(loc_, what_, got, total_, "the ranks' counts differ");
      auto* out = reinterpret_cast<std::byte*>(dst_);
      if (head_) std::memcpy(out + (total_ - head_), this->data.data(), head_);
      if (total_ > head_) std::memcpy(out, this->data.data() + head_, total_ - head_);
    }
    this->notify({});
  }

 private:
  T* dst_;
  const std::byte* src_ = nullptr;
  std::size_t head_, total_;
  const char* what_;
  ud::source_loc loc_;
};

// gather_all of one value: trivially serializable values travel as their bytes, others as
// blocks of [u64 length, u64 unused, serialized bytes padded to 16] (the padding keeps every
// block 16-byte aligned, as the serialization reader expects).
template <typename T>
inline constexpr bool raw_value_v = upcxx::is_trivially_serializable<T>::value;

template <typename T>
void put_value_block(ud::coll_bytes& out, const T& value) {
  if constexpr (raw_value_v<T>) {
    ud::coll_store_bytes(out, &value, 1);
  } else {
    ud::coll_bytes body;
    ud::coll_serialize(body, value);
    const std::uint64_t head[2] = {body.size(), 0};
    out.assign(reinterpret_cast<const std::byte*>(head), sizeof head);
    out.append(body.data(), body.size());
    out.resize((out.size() + 15) & ~std::size_t{15});
  }
}

template <typename Cxs, typename T>
class gather_value_op final : public ud::coll_op_base<Cxs, std::vector<T>> {
 public:
  gather_value_op(Cxs&& cxs, intrank_t n) : ud::coll_op_base<Cxs, std::vector<T>>(std::move(cxs)), n_(n) {}
  void finish() override {
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(n_));
    const std::byte* p = this->data.data();
    const std::byte* end = p + this->data.size();
    for (intrank_t r = 0; r < n_; ++r) {
      if constexpr (raw_value_v<T>) {
        if (p + sizeof(T) > end) ud::fail_at(ud::source_loc(), "gannet::gather_all: fewer values arrived than ranks");
        out.push_back(ud::coll_load<T>(p));
        p += sizeof(T);
      } else {
        std::uint64_t len;
        if (p + 16 > end) ud::fail_at(ud::source_loc(), "gannet::gather_all: fewer values arrived than ranks");
        std::memcpy(&len, p, sizeof len);
        out.push_back(ud::coll_deserialize<T>(p + 16));
        p += 16 + ((len + 15) & ~std::uint64_t{15});
      }
    }
    this->notify(std::tuple<std::vector<T>>(std::move(out)));
  }

 private:
  intrank_t n_;
};

template <typename Cxs, typename T, typename Op>
class scan_op final : public checked_op<Cxs> {
 public:
  scan_op(Cxs&& cxs, Op op, T* dst, bool exclusive, const char* what, const ud::source_loc& loc)
      : checked_op<Cxs>(std::move(cxs)), op_(std::move(op)), dst_(dst), what_(what), loc_(loc) {
    this->scan_exclusive = exclusive;
    this->same_size_everywhere = true;
  }
  void combine(ud::coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) override {
    if (n != acc.size()) fail_sizes(loc_, what_, n, acc.size(), "the ranks' counts differ");
    ud::coll_combine_trivial<T>(op_, acc, in, n, in_from_lower);
  }
  void finish() override {
    if (this->awaiting_check()) return;
    if (this->has_result && !this->data.empty())
      std::memcpy(static_cast<void*>(dst_), this->data.data(), this->data.size());
    this->notify({});
  }

 private:
  Op op_;
  T* dst_;
  const char* what_;
  ud::source_loc loc_;
};

// alltoall and alltoallv: blocks are read from src and written to dst by byte offset. The
// uniform form computes offsets; the v-form keeps the prefix sums of its counts (the caller's
// arrays are read during the call only).
template <typename Cxs, typename T>
class alltoall_op final : public checked_op<Cxs> {
 public:
  alltoall_op(Cxs&& cxs, const T* src, T* dst, std::size_t count, const char* what, const ud::source_loc& loc)
      : checked_op<Cxs>(std::move(cxs)), src_(src), dst_(dst), count_(count), what_(what), loc_(loc) {
    this->block_bytes = count * sizeof(T);
    if (!this->block_bytes) this->block_bytes = 1;  // Bruck on empty blocks: cheap, uniform
    empty_ = count == 0;
  }
  alltoall_op(Cxs&& cxs, const T* src, const std::size_t* send_counts, T* dst, const std::size_t* recv_counts, intrank_t n,
              const char* what, const ud::source_loc& loc)
      : checked_op<Cxs>(std::move(cxs)), src_(src), dst_(dst), what_(what), loc_(loc) {
    send_at_.resize(static_cast<std::size_t>(n) + 1);
    recv_at_.resize(static_cast<std::size_t>(n) + 1);
    for (intrank_t k = 0; k < n; ++k) {
      send_at_[k + 1] = send_at_[k] + send_counts[k];
      recv_at_[k + 1] = recv_at_[k] + recv_counts[k];
    }
  }
  ud::coll_block block_to(intrank_t to) override {
    if (empty_) return {zero_, 1};
    const auto* base = reinterpret_cast<const std::byte*>(src_);
    if (send_at_.empty()) return {base + static_cast<std::size_t>(to) * count_ * sizeof(T), count_ * sizeof(T)};
    return {base + send_at_[to] * sizeof(T), (send_at_[to + 1] - send_at_[to]) * sizeof(T)};
  }
  ud::coll_dest dest_from(intrank_t from) override {
    auto* base = reinterpret_cast<std::byte*>(dst_);
    if (empty_) return {base, 0};
    if (send_at_.empty()) return {base + static_cast<std::size_t>(from) * count_ * sizeof(T), count_ * sizeof(T)};
    return {base + recv_at_[from] * sizeof(T), (recv_at_[from + 1] - recv_at_[from]) * sizeof(T)};
  }
  void place(intrank_t from, const std::byte* in, std::size_t n) override {
    if (empty_) return;
    const auto d = dest_from(from);
    const std::size_t want = d.size;
    if (n != want)
      fail_sizes(loc_, what_, n, want,
                 send_at_.empty() ? "the ranks' counts differ"
                                  : ("rank " + std::to_string(from) + "'s send count for this rank differs from this "
                                                                       "rank's receive count for it").c_str());
    if (n) std::memcpy(d.data, in, n);
  }
  void finish() override {
    if (this->awaiting_check()) return;
    this->notify({});
  }

 private:
  const T* src_;
  T* dst_;
  std::size_t count_ = 0;
  bool empty_ = false;
  std::byte zero_[1] = {};
  std::vector<std::size_t> send_at_, recv_at_;  // v-form: element offsets, n+1 each
  const char* what_;
  ud::source_loc loc_;
};

// What every array form asks of its arguments' types.
template <typename T, typename Cx>
void check_array_call() {
  static_assert(upcxx::is_trivially_serializable<T>::value,
                "gannet collectives: the array forms need a TriviallySerializable T (gather_all(value) takes any "
                "Serializable value)");
  static_assert(ud::is_completion_v<Cx>, "gannet collectives: the completions argument must be a completion object");
}

// Team of one: copy, and complete in the next user-level progress, as the UPC++ collectives do.
template <typename T, typename Cx>
auto complete_alone(T* dst, const T* src, std::size_t count, Cx&& completions) {
  if (count && dst != src) std::memmove(static_cast<void*>(dst), src, count * sizeof(T));
  return ud::coll_complete_now(std::forward<Cx>(completions), std::tuple<>{});
}

}  // namespace detail

// ---- gather ----
template <typename T, typename Cx = detail::default_cx>
auto gather(const T* src, T* dst, std::size_t count, upcxx::intrank_t root, const upcxx::team& tm = upcxx::world(),
            Cx&& completions = upcxx::operation_cx::as_future(),
            const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::gather (collective)";
  upcxx::detail::coll_check_caller(what);
  upcxx::detail::check_rank("gannet::gather (root)", root, tm.rank_n(), loc);
  const upcxx::intrank_t n = tm.rank_n();
  if (n == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  auto* gate = detail::verify_same_args(what, tm, static_cast<std::int64_t>(count), root, loc);
  const bool at_root = tm.rank_me() == root;
  const std::size_t b = count * sizeof(T);
  auto* op = new detail::gather_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), at_root ? dst : nullptr,
                                             static_cast<std::size_t>(n - root) * b, static_cast<std::size_t>(n) * b,
                                             what, loc);
  upcxx::detail::coll_store_bytes(op->data, src, count);
  op->same_size_everywhere = true;
  op->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::gather, root, op);
}

// ---- gatherv: rank k contributes counts[k] elements (its own `count`); counts is read at the root ----
template <typename T, typename Cx = detail::default_cx>
auto gatherv(const T* src, std::size_t count, T* dst, const std::size_t* counts, upcxx::intrank_t root,
             const upcxx::team& tm = upcxx::world(), Cx&& completions = upcxx::operation_cx::as_future(),
             const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::gatherv (collective)";
  upcxx::detail::coll_check_caller(what);
  upcxx::detail::check_rank("gannet::gatherv (root)", root, tm.rank_n(), loc);
  const upcxx::intrank_t n = tm.rank_n(), me = tm.rank_me();
  if (n == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  auto* gate = detail::verify_same_args(what, tm, 0, root, loc);
  std::size_t head = 0, total = 0;
  if (me == root) {
    if (counts[me] != count)
      upcxx::detail::fail_at(loc, std::string(what) + ": the root's counts[root] differs from its count");
    for (upcxx::intrank_t r = 0; r < n; ++r) {
      total += counts[r] * sizeof(T);
      if (r >= root) head += counts[r] * sizeof(T);
    }
  }
  auto* op = new detail::gather_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), me == root ? dst : nullptr, head,
                                             total, what, loc);
  upcxx::detail::coll_store_bytes(op->data, src, count);
  op->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::gather, root, op);
}

// ---- gather_all ----
template <typename T, typename Cx = detail::default_cx>
auto gather_all(const T* src, T* dst, std::size_t count, const upcxx::team& tm = upcxx::world(),
                Cx&& completions = upcxx::operation_cx::as_future(),
                const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::gather_all (collective)";
  upcxx::detail::coll_check_caller(what);
  const upcxx::intrank_t n = tm.rank_n();
  if (n == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  auto* gate = detail::verify_same_args(what, tm, static_cast<std::int64_t>(count), 0, loc);
  const std::size_t total = static_cast<std::size_t>(n) * count * sizeof(T);
  auto* op = new detail::gather_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), dst, total, total, what, loc);
  op->contribute(src, count);
  op->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::gather_all, 0, op);
}

template <typename T, typename Cx = detail::default_cx>
auto gather_allv(const T* src, std::size_t count, T* dst, const std::size_t* counts,
                 const upcxx::team& tm = upcxx::world(), Cx&& completions = upcxx::operation_cx::as_future(),
                 const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::gather_allv (collective)";
  upcxx::detail::coll_check_caller(what);
  const upcxx::intrank_t n = tm.rank_n(), me = tm.rank_me();
  if (counts[me] != count) upcxx::detail::fail_at(loc, std::string(what) + ": counts[rank_me()] differs from count");
  if (n == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  std::size_t total = 0;
  for (upcxx::intrank_t r = 0; r < n; ++r) total += counts[r] * sizeof(T);
  auto* op = new detail::gather_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), dst, total, total, what, loc);
  upcxx::detail::coll_store_bytes(op->data, src, count);
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::gather_all, 0, op);
}

// ---- gather_all of one value, any Serializable T ----
template <typename T, typename Cx = detail::default_cx,
          typename = std::enable_if_t<upcxx::detail::is_completion_v<Cx>>>
auto gather_all(T value, const upcxx::team& tm = upcxx::world(), Cx&& completions = upcxx::operation_cx::as_future()) {
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  using value_t = upcxx::detail::coll_decay_t<T>;
  upcxx::detail::coll_check_caller("gannet::gather_all (collective)");
  if (tm.rank_n() == 1) {
    std::vector<value_t> one;
    one.push_back(std::move(value));
    return upcxx::detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<std::vector<value_t>>(std::move(one)));
  }
  auto* op = new detail::gather_value_op<cxs_t, value_t>(cxs_t(std::forward<Cx>(completions)), tm.rank_n());
  detail::put_value_block(op->data, value);
  op->same_size_everywhere = detail::raw_value_v<value_t>;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::gather_all, 0, op);
}

// ---- alltoall ----
template <typename T, typename Cx = detail::default_cx>
auto alltoall(const T* src, T* dst, std::size_t count, const upcxx::team& tm = upcxx::world(),
              Cx&& completions = upcxx::operation_cx::as_future(),
              const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::alltoall (collective)";
  upcxx::detail::coll_check_caller(what);
  if (tm.rank_n() == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  auto* gate = detail::verify_same_args(what, tm, static_cast<std::int64_t>(count), 0, loc);
  auto* op = new detail::alltoall_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), src, dst, count, what, loc);
  op->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::alltoall, 0, op);
}

template <typename T, typename Cx = detail::default_cx>
auto alltoallv(const T* src, const std::size_t* send_counts, T* dst, const std::size_t* recv_counts,
               const upcxx::team& tm = upcxx::world(), Cx&& completions = upcxx::operation_cx::as_future(),
               const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  constexpr const char* what = "gannet::alltoallv (collective)";
  upcxx::detail::coll_check_caller(what);
  const upcxx::intrank_t n = tm.rank_n();
  if (n == 1) {
    if (send_counts[0] != recv_counts[0])
      upcxx::detail::fail_at(loc, std::string(what) + ": send_counts[0] differs from recv_counts[0] on a team of one");
    return detail::complete_alone(dst, src, send_counts[0], std::forward<Cx>(completions));
  }
  auto* op = new detail::alltoall_op<cxs_t, T>(cxs_t(std::forward<Cx>(completions)), src, send_counts, dst, recv_counts,
                                               n, what, loc);
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::alltoall, 0, op);
}

// ---- scan and exscan ----
template <typename T, typename BinaryOp, typename Cx = detail::default_cx>
auto scan(const T* src, T* dst, std::size_t count, BinaryOp&& op, const upcxx::team& tm = upcxx::world(),
          Cx&& completions = upcxx::operation_cx::as_future(),
          const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  using op_t = upcxx::detail::coll_decay_t<BinaryOp>;
  constexpr const char* what = "gannet::scan (collective)";
  upcxx::detail::coll_check_caller(what);
  if (tm.rank_n() == 1) {
    return detail::complete_alone(dst, src, count, std::forward<Cx>(completions));
  }
  auto* gate = detail::verify_same_args(what, tm, static_cast<std::int64_t>(count), 0, loc);
  auto* o = new detail::scan_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)), op_t(std::forward<BinaryOp>(op)),
                                                dst, false, what, loc);
  upcxx::detail::coll_store_bytes(o->data, src, count);
  o->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::scan, 0, o);
}

template <typename T, typename BinaryOp, typename Cx = detail::default_cx>
auto exscan(const T* src, T* dst, std::size_t count, BinaryOp&& op, const upcxx::team& tm = upcxx::world(),
            Cx&& completions = upcxx::operation_cx::as_future(),
            const upcxx::detail::source_loc& loc = upcxx::detail::source_loc::current()) {
  detail::check_array_call<T, Cx>();
  using cxs_t = upcxx::detail::coll_decay_t<Cx>;
  using op_t = upcxx::detail::coll_decay_t<BinaryOp>;
  constexpr const char* what = "gannet::exscan (collective)";
  upcxx::detail::coll_check_caller(what);
  if (tm.rank_n() == 1) return upcxx::detail::coll_complete_now(std::forward<Cx>(completions), std::tuple<>{});
  auto* gate = detail::verify_same_args(what, tm, static_cast<std::int64_t>(count), 0, loc);
  auto* o = new detail::scan_op<cxs_t, T, op_t>(cxs_t(std::forward<Cx>(completions)), op_t(std::forward<BinaryOp>(op)),
                                                dst, true, what, loc);
  upcxx::detail::coll_store_bytes(o->data, src, count);
  o->gate = gate;
  return upcxx::detail::coll_launch(tm, upcxx::detail::coll_kind::scan, 0, o);
}

}  // namespace gannet
