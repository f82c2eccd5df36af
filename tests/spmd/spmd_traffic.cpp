// Messages and signals per rank (issue 16, GANNET_COUNT_TRAFFIC=1): start-up, barrier,
// broadcast, reduce_one and reduce_all, and the gannet collectives' small forms each cost
// O(log P) per rank, and idle progress passes
// look at a bounded number of peers. Run at P = 2 to 64 (oversubscribed beyond the machine's cores), where
// timing could not tell O(log P) from O(P). Rank 0 prints the largest count of any rank.
#include <cstdint>
#include <cstdio>

#include <string>
#include <vector>

#include <gannet/collectives.hpp>
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

  // The gannet collectives' small forms (gannet/collectives.hpp), one int64_t per rank. In
  // debug codemode each also runs a small reduce_all that checks the ranks' arguments.
  const std::uint64_t gbound = (UPCXX_ASSERT_ENABLED ? 2 : 1) * bound;
  std::vector<std::int64_t> slots(static_cast<std::size_t>(n)), blocks(static_cast<std::size_t>(n), me);
  const std::int64_t mine = me + 1;
  std::int64_t prefix = 0;
  auto cost_of = [&](auto&& run) {
    upcxx::barrier();
    auto a = gannet::traffic();
    run();
    auto b = gannet::traffic();
    return max_over_ranks(sent(a, b));
  };
  const std::uint64_t m_gather_all = cost_of([&] { gannet::gather_all(&mine, slots.data(), 1).wait(); });
  for (int r = 0; r < n; ++r) SPMD_CHECK(slots[r] == r + 1);
  const std::uint64_t m_gather = cost_of([&] { gannet::gather(&mine, slots.data(), 1, n - 1).wait(); });
  const std::uint64_t m_scan = cost_of([&] { gannet::scan(&mine, &prefix, 1, upcxx::op_fast_add).wait(); });
  SPMD_CHECK(prefix == static_cast<std::int64_t>(me + 1) * (me + 2) / 2);
  const std::uint64_t m_exscan = cost_of([&] { gannet::exscan(&mine, &prefix, 1, upcxx::op_fast_add).wait(); });
  const std::uint64_t m_alltoall = cost_of([&] { gannet::alltoall(blocks.data(), slots.data(), 1).wait(); });
  for (int r = 0; r < n; ++r) SPMD_CHECK(slots[r] == r);
  const std::uint64_t m_value = cost_of([&] { SPMD_CHECK(gannet::gather_all(std::string(3, 'x')).wait().size() == static_cast<std::size_t>(n)); });
  if (me == 0)
    std::printf("traffic P=%d gannet collectives per rank (max over ranks): gather_all=%llu gather=%llu scan=%llu "
                "exscan=%llu alltoall=%llu gather_all_value=%llu (bound %llu)\n",
                n, static_cast<unsigned long long>(m_gather_all), static_cast<unsigned long long>(m_gather),
                static_cast<unsigned long long>(m_scan), static_cast<unsigned long long>(m_exscan),
                static_cast<unsigned long long>(m_alltoall), static_cast<unsigned long long>(m_value),
                static_cast<unsigned long long>(gbound));
  SPMD_CHECK(m_gather_all <= gbound);
  SPMD_CHECK(m_gather <= gbound);
  SPMD_CHECK(m_scan <= gbound);
  SPMD_CHECK(m_exscan <= gbound);
  SPMD_CHECK(m_alltoall <= gbound);
  SPMD_CHECK(m_value <= bound);

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
