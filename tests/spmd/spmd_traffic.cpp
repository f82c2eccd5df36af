// Messages and signals per rank (issue 16, GANNET_COUNT_TRAFFIC=1): start-up, barrier,
// broadcast, reduce_one and reduce_all each cost O(log P) per rank, and idle progress passes
// look at a bounded number of peers. Run at P = 2 to 64 (oversubscribed beyond the machine's cores), where
// timing could not tell O(log P) from O(P). Rank 0 prints the largest count of any rank.
#include <cstdint>
#include <cstdio>

#include <gannet/traffic.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

std::uint64_t sent(const gannet::traffic_counts& a, const gannet::traffic_counts& b) {
  return (b.messages - a.messages) + (b.signals - a.signals);
}

// The largest value of any rank (a collective: its own traffic is not measured).
std::uint64_t max_over_ranks(std::uint64_t v) { return upcxx::reduce_all(v, upcxx::op_fast_max).wait(); }

}  // namespace

int main() {
  upcxx::init();
  const gannet::traffic_counts start = gannet::traffic();  // everything init sent
  SPMD_CHECK(gannet::traffic_counting());
  const int n = upcxx::rank_n(), me = upcxx::rank_me();
  std::uint64_t lg = 0;
  while ((1 << lg) < n) ++lg;
  // Generous constants, tight shape: with P = 64 an O(P) algorithm sends 63 or more.
  const std::uint64_t bound = 2 * lg + 3;

  auto t0 = gannet::traffic();
  upcxx::barrier();
  auto t1 = gannet::traffic();
  const std::uint64_t barrier_cost = sent(t0, t1);

  t0 = gannet::traffic();
  long v = upcxx::broadcast(me == 0 ? 42L : 0L, 0).wait();
  t1 = gannet::traffic();
  SPMD_CHECK(v == 42);
  const std::uint64_t bcast_cost = sent(t0, t1);

  t0 = gannet::traffic();
  long one = upcxx::reduce_one(long{me}, upcxx::op_fast_add, 0).wait();
  t1 = gannet::traffic();
  SPMD_CHECK(me != 0 || one == static_cast<long>(n) * (n - 1) / 2);
  const std::uint64_t reduce_one_cost = sent(t0, t1);

  t0 = gannet::traffic();
  long all = upcxx::reduce_all(long{me}, upcxx::op_fast_add).wait();
  t1 = gannet::traffic();
  SPMD_CHECK(all == static_cast<long>(n) * (n - 1) / 2);
  const std::uint64_t reduce_all_cost = sent(t0, t1);

  // An idle progress pass sends nothing and looks at no peer's outbox; in debug codemode the
  // attentiveness watch looks at up to 16 peers every 64 passes, whatever P (an O(P) watch
  // would look at 63 per check at P = 64).
  upcxx::barrier();
  t0 = gannet::traffic();
  for (int i = 0; i < 1000; ++i) upcxx::progress();
  t1 = gannet::traffic();
  const std::uint64_t idle_visits = t1.peer_visits - t0.peer_visits;
  const std::uint64_t idle_sent = sent(t0, t1);

  const std::uint64_t init_cost = start.messages + start.signals;
  const std::uint64_t m_init = max_over_ranks(init_cost), m_barrier = max_over_ranks(barrier_cost),
                      m_bcast = max_over_ranks(bcast_cost), m_one = max_over_ranks(reduce_one_cost),
                      m_all = max_over_ranks(reduce_all_cost), m_visits = max_over_ranks(idle_visits),
                      m_idle = max_over_ranks(idle_sent);
  if (me == 0)
    std::printf("traffic P=%d log2P=%llu per rank (max over ranks, messages + signals): init=%llu barrier=%llu "
                "broadcast=%llu reduce_one=%llu reduce_all=%llu idle_pass_peer_visits=%llu idle_pass_sent=%llu\n",
                n, static_cast<unsigned long long>(lg), static_cast<unsigned long long>(m_init),
                static_cast<unsigned long long>(m_barrier), static_cast<unsigned long long>(m_bcast),
                static_cast<unsigned long long>(m_one), static_cast<unsigned long long>(m_all),
                static_cast<unsigned long long>(m_visits), static_cast<unsigned long long>(m_idle));
  SPMD_CHECK(m_init <= 2 * bound);
  SPMD_CHECK(m_barrier <= bound);
  SPMD_CHECK(m_bcast <= bound);
  SPMD_CHECK(m_one <= bound);
  SPMD_CHECK(m_all <= bound);
  SPMD_CHECK(m_visits <= 16 * (1000 / 64 + 1));
  SPMD_CHECK(m_idle == 0);
  upcxx::finalize();
  if (me == 0) std::printf("spmd_traffic OK\n");
  return 0;
}
