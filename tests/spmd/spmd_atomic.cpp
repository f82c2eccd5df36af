// Remote atomics (spec chapter 13) through gannet-run at 1, 2 and 4 ranks, and in one process
// with GANNET_LOOPBACK_ASYNC=1 (the off-node path): every operation on every type with every
// completion, the fetch-into-memory overloads, contention from every rank on one word, a
// compare-exchange lock, domains over a subteam, destroy and moves.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

int me, n;

using upcxx::atomic_op;
constexpr auto relaxed = std::memory_order_relaxed;

const std::vector<atomic_op> all_ops = {
    atomic_op::load,    atomic_op::store,         atomic_op::compare_exchange, atomic_op::add,    atomic_op::fetch_add,
    atomic_op::sub,     atomic_op::fetch_sub,     atomic_op::mul,              atomic_op::fetch_mul, atomic_op::min,
    atomic_op::fetch_min, atomic_op::max,         atomic_op::fetch_max,        atomic_op::inc,    atomic_op::fetch_inc,
    atomic_op::dec,     atomic_op::fetch_dec};
std::vector<atomic_op> with_bitwise() {
  auto ops = all_ops;
  for (auto op : {atomic_op::bit_and, atomic_op::fetch_bit_and, atomic_op::bit_or, atomic_op::fetch_bit_or,
                  atomic_op::bit_xor, atomic_op::fetch_bit_xor})
    ops.push_back(op);
  return ops;
}

// Every operation, applied by this rank alone to a word of the next rank.
template <typename T>
void single_writer(const std::vector<atomic_op>& ops) {
  upcxx::atomic_domain<T> ad(ops);
  auto mine = upcxx::new_<T>(T(0));
  auto all = gannet::all_gather(mine);
  upcxx::barrier();
  upcxx::global_ptr<T> p = all[(me + 1) % n];

  ad.store(p, T(10), std::memory_order_release).wait();
  SPMD_CHECK(ad.load(p, std::memory_order_acquire).wait() == T(10));
  SPMD_CHECK(ad.fetch_add(p, T(5), relaxed).wait() == T(10));
  ad.add(p, T(1), std::memory_order_acq_rel).wait();
  SPMD_CHECK(ad.fetch_sub(p, T(6), std::memory_order_seq_cst).wait() == T(16));
  ad.sub(p, T(2), relaxed).wait();
  SPMD_CHECK(ad.fetch_mul(p, T(3), relaxed).wait() == T(8));
  ad.mul(p, T(2), relaxed).wait();
  SPMD_CHECK(ad.load(p, relaxed).wait() == T(48));
  SPMD_CHECK(ad.fetch_min(p, T(40), relaxed).wait() == T(48));
  ad.min(p, T(50), relaxed).wait();
  SPMD_CHECK(ad.fetch_max(p, T(45), relaxed).wait() == T(40));
  ad.max(p, T(44), relaxed).wait();
  SPMD_CHECK(ad.fetch_inc(p, relaxed).wait() == T(45));
  ad.inc(p, relaxed).wait();
  SPMD_CHECK(ad.fetch_dec(p, relaxed).wait() == T(47));
  ad.dec(p, relaxed).wait();
  SPMD_CHECK(ad.compare_exchange(p, T(1), T(2), relaxed).wait() == T(45));  // no swap
  SPMD_CHECK(ad.compare_exchange(p, T(45), T(7), std::memory_order_acq_rel).wait() == T(45));
  SPMD_CHECK(ad.load(p, relaxed).wait() == T(7));

  // Fetching into memory (seed 000): the future carries no value.
  T out = T(-1);
  upcxx::future<> f = ad.fetch_add(p, T(3), &out, relaxed);
  f.wait();
  SPMD_CHECK(out == T(7));
  ad.fetch_inc(p, &out, relaxed).wait();
  SPMD_CHECK(out == T(10));
  ad.compare_exchange(p, T(11), T(20), &out, relaxed).wait();
  SPMD_CHECK(out == T(11));
  ad.load(upcxx::global_ptr<const T>(p), &out, relaxed).wait();
  SPMD_CHECK(out == T(20));

  // Promise and LPC completions.
  upcxx::promise<> pro;
  T a = 0, b = 0;
  ad.fetch_max(p, T(30), &a, relaxed, upcxx::operation_cx::as_promise(pro));
  ad.fetch_min(p, T(25), &b, relaxed, upcxx::operation_cx::as_promise(pro));
  pro.finalize().wait();
  SPMD_CHECK(a == T(20) || a == T(25));  // unordered with respect to each other
  SPMD_CHECK(ad.load(p, relaxed).wait() == T(25));
  bool ran = false;
  T seen = 0;
  ad.fetch_dec(p, relaxed, upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&](T v) {
                             ran = true;
                             seen = v;
                           }));
  while (!ran) upcxx::progress();
  SPMD_CHECK(seen == T(25));
  upcxx::promise<T> pv;
  ad.fetch_add(p, T(1), relaxed, upcxx::operation_cx::as_promise(pv));
  SPMD_CHECK(pv.finalize().wait() == T(24));

  if constexpr (std::is_integral_v<T>) {
    ad.store(p, T(0x0f), relaxed).wait();
    SPMD_CHECK(ad.fetch_bit_or(p, T(0x30), relaxed).wait() == T(0x0f));
    ad.bit_and(p, T(0x3c), relaxed).wait();
    SPMD_CHECK(ad.fetch_bit_xor(p, T(0xff), relaxed).wait() == T(0x3c));
    ad.bit_or(p, T(0x100), relaxed).wait();
    T got;
    ad.fetch_bit_and(p, T(0x1ff), &got, relaxed).wait();
    SPMD_CHECK(got == T(0x1c3));
    ad.bit_xor(p, T(1), relaxed).wait();
    SPMD_CHECK(ad.load(p, relaxed).wait() == T(0x1c2));
  } else {
    ad.store(p, T(1.5), relaxed).wait();
    SPMD_CHECK(ad.fetch_add(p, T(0.25), relaxed).wait() == T(1.5));
    SPMD_CHECK(ad.fetch_mul(p, T(2), relaxed).wait() == T(1.75));
    SPMD_CHECK(ad.load(p, relaxed).wait() == T(3.5));
  }
  upcxx::barrier();
  ad.destroy();
  upcxx::delete_(mine);
}

// Every rank hammers one word on rank 0: no update lost, every fetched value distinct.
void contention() {
  upcxx::atomic_domain<std::int64_t> ad({atomic_op::fetch_add, atomic_op::load, atomic_op::compare_exchange,
                                         atomic_op::store});
  upcxx::global_ptr<std::int64_t> word = upcxx::broadcast(me == 0 ? upcxx::new_<std::int64_t>(0)
                                                                   : upcxx::global_ptr<std::int64_t>(), 0).wait();
  constexpr int per_rank = 2000;
  std::vector<std::int64_t> got(per_rank);
  upcxx::promise<> pro;
  for (int i = 0; i < per_rank; ++i) ad.fetch_add(word, 1, &got[static_cast<std::size_t>(i)], relaxed, upcxx::operation_cx::as_promise(pro));
  pro.finalize().wait();
  upcxx::barrier();
  SPMD_CHECK(ad.load(word, relaxed).wait() == std::int64_t{per_rank} * n);
  // Distinct across ranks: the sum of all fetched values is 0 + 1 + ... + (total - 1).
  std::int64_t sum = 0;
  for (auto v : got) sum += v;
  std::int64_t total = upcxx::reduce_all(sum, upcxx::op_fast_add).wait();
  const std::int64_t t = std::int64_t{per_rank} * n;
  SPMD_CHECK(total == t * (t - 1) / 2);

  // A spin lock by compare-exchange guarding a plain counter on rank 0.
  upcxx::global_ptr<std::int64_t> lock = upcxx::broadcast(me == 0 ? upcxx::new_<std::int64_t>(0)
                                                                   : upcxx::global_ptr<std::int64_t>(), 0).wait();
  upcxx::global_ptr<std::int64_t> plain = upcxx::broadcast(me == 0 ? upcxx::new_<std::int64_t>(0)
                                                                    : upcxx::global_ptr<std::int64_t>(), 0).wait();
  for (int i = 0; i < 200; ++i) {
    while (ad.compare_exchange(lock, 0, me + 1, std::memory_order_acquire).wait() != 0) upcxx::progress();
    std::int64_t v = upcxx::rget(plain).wait();
    upcxx::rput(v + 1, plain).wait();
    ad.store(lock, 0, std::memory_order_release).wait();
  }
  upcxx::barrier();
  SPMD_CHECK(upcxx::rget(plain).wait() == 200 * n);
  upcxx::barrier();
  ad.destroy(upcxx::entry_barrier::internal);
  if (me == 0) {
    upcxx::delete_(word);
    upcxx::delete_(lock);
    upcxx::delete_(plain);
  }
}

// A domain over a subteam, moved, then destroyed; a default-constructed one assigned later.
void subteam_domain() {
  upcxx::team half = upcxx::world().split(me % 2, me);
  upcxx::atomic_domain<std::uint32_t> first({atomic_op::fetch_inc, atomic_op::load}, half);
  upcxx::atomic_domain<std::uint32_t> ad(std::move(first));
  SPMD_CHECK(!first.is_active() && ad.is_active());
  auto root_word = upcxx::broadcast(half.rank_me() == 0 ? upcxx::new_<std::uint32_t>(0u)
                                                        : upcxx::global_ptr<std::uint32_t>(), 0, half).wait();
  ad.fetch_inc(root_word, relaxed).wait();
  upcxx::barrier(half);
  SPMD_CHECK(ad.load(root_word, relaxed).wait() == static_cast<std::uint32_t>(half.rank_n()));
  upcxx::barrier(half);
  ad.destroy();
  upcxx::atomic_domain<double> later;
  SPMD_CHECK(!later.is_active());
  later = upcxx::atomic_domain<double>({atomic_op::fetch_add}, half);
  SPMD_CHECK(later.is_active());
  later.destroy(upcxx::entry_barrier::none);
  if (half.rank_me() == 0) upcxx::delete_(root_word);
  upcxx::barrier();
  half.destroy();
}

}  // namespace

int main() {
  upcxx::init();
  me = upcxx::rank_me();
  n = upcxx::rank_n();
  single_writer<std::int32_t>(with_bitwise());
  single_writer<std::uint32_t>(with_bitwise());
  single_writer<std::int64_t>(with_bitwise());
  single_writer<std::uint64_t>(with_bitwise());
  single_writer<long>(with_bitwise());
  single_writer<unsigned long long>(with_bitwise());
  single_writer<float>(all_ops);
  single_writer<double>(all_ops);
  contention();
  subteam_domain();
  upcxx::barrier();
  if (me == 0) std::printf("spmd_atomic: OK (%d ranks)\n", n);
  upcxx::finalize();
}
