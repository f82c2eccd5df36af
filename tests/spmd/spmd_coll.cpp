// Teams and collectives (spec chapters 11 and 12) through gannet-run at 1 to 4 ranks: every
// collective on world, on split and created teams, with every root, value and bulk forms,
// every op_fast_* operation and user function objects, non-trivial values, collectives in
// flight on several teams at once and issued from inside callbacks, and team ids travelling
// in RPCs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

int me, n;

void world_collectives() {
  // barrier_async with a future and with a promise.
  upcxx::barrier_async().wait();
  upcxx::promise<> p;
  upcxx::barrier_async(upcxx::world(), upcxx::operation_cx::as_promise(p));
  p.finalize().wait();

  for (int root = 0; root < n; ++root) {
    // broadcast of one value, then of a buffer.
    std::int64_t v = upcxx::broadcast(me == root ? 1000 + root : -1, root).wait();
    SPMD_CHECK(v == 1000 + root);
    std::vector<double> buf(333, me == root ? 0.5 + root : -1.0);
    upcxx::broadcast(buf.data(), buf.size(), root).wait();
    for (double x : buf) SPMD_CHECK(x == 0.5 + root);

    // reduce_one: the root gets the sum.
    std::int64_t s = upcxx::reduce_one(std::int64_t{me + 1}, upcxx::op_fast_add, root).wait();
    if (me == root) SPMD_CHECK(s == std::int64_t{n} * (n + 1) / 2);
    std::vector<int> src(100), dst(100, -7);
    for (int i = 0; i < 100; ++i) src[i] = me * i;
    upcxx::reduce_one(src.data(), dst.data(), src.size(), upcxx::op_fast_max, root).wait();
    for (int i = 0; i < 100; ++i) SPMD_CHECK(dst[i] == (me == root ? (n - 1) * i : -7));
  }

  // reduce_all with every fast operation.
  SPMD_CHECK(upcxx::reduce_all(me + 1, upcxx::op_fast_add).wait() == n * (n + 1) / 2);
  std::int64_t fact = 1;
  for (int i = 1; i <= n; ++i) fact *= i;
  SPMD_CHECK(upcxx::reduce_all(std::int64_t{me + 1}, upcxx::op_fast_mul).wait() == fact);
  SPMD_CHECK(upcxx::reduce_all(10 - me, upcxx::op_fast_min).wait() == 10 - (n - 1));
  SPMD_CHECK(upcxx::reduce_all(static_cast<float>(me) * 1.5f, upcxx::op_fast_max).wait() == (n - 1) * 1.5f);
  SPMD_CHECK(upcxx::reduce_all(0xffu & ~(1u << me), upcxx::op_fast_bit_and).wait() == (0xffu & ~((1u << n) - 1)));
  SPMD_CHECK(upcxx::reduce_all(std::uint64_t{1} << me, upcxx::op_fast_bit_or).wait() == (std::uint64_t{1} << n) - 1);
  SPMD_CHECK(upcxx::reduce_all(1 << me, upcxx::op_fast_bit_xor).wait() == (1 << n) - 1);
  SPMD_CHECK(upcxx::reduce_all(me == 0, upcxx::op_fast_add).wait() == true);
  SPMD_CHECK(upcxx::reduce_all(me == 0, upcxx::op_fast_mul).wait() == (n == 1));
  // The reference implementation's general operations and a user lambda.
  SPMD_CHECK(upcxx::reduce_all(2.0, upcxx::op_add).wait() == 2.0 * n);
  SPMD_CHECK(upcxx::reduce_all(me, [](int a, int b) { return std::max(a, b); }).wait() == n - 1);
  struct pair_t {
    int lo, hi;
  };
  pair_t pr = upcxx::reduce_all(pair_t{me, me},
                                [](pair_t a, pair_t b) { return pair_t{std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; })
                  .wait();
  SPMD_CHECK(pr.lo == 0 && pr.hi == n - 1);

  // Bulk reduce_all, out of place and in place.
  std::vector<double> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) a[i] = me + i;
  upcxx::reduce_all(a.data(), b.data(), a.size(), upcxx::op_fast_add).wait();
  for (int i = 0; i < 1000; ++i) SPMD_CHECK(b[i] == n * (n - 1) / 2.0 + double(n) * i);
  upcxx::reduce_all(a.data(), a.data(), a.size(), upcxx::op_fast_min).wait();
  for (int i = 0; i < 1000; ++i) SPMD_CHECK(a[i] == i);

  // Non-trivial values (the *_nontrivial forms).
  for (int root = 0; root < n; ++root) {
    std::string s = upcxx::broadcast_nontrivial(me == root ? std::string(100 + root, 'x') : std::string(), root).wait();
    SPMD_CHECK(s == std::string(100 + root, 'x'));
  }
  auto longest = [](const std::string& x, const std::string& y) { return x.size() != y.size() ? (x.size() > y.size() ? x : y) : std::max(x, y); };
  std::string l = upcxx::reduce_all_nontrivial(std::string(static_cast<std::size_t>(me) + 1, char('a' + me)), longest).wait();
  SPMD_CHECK(l == std::string(static_cast<std::size_t>(n), char('a' + n - 1)));
  std::vector<int> vec = upcxx::reduce_one_nontrivial(std::vector<int>{me}, [](std::vector<int> x, const std::vector<int>& y) {
                           x.insert(x.end(), y.begin(), y.end());
                           std::sort(x.begin(), x.end());
                           return x;
                         }, 0).wait();
  if (me == 0) {
    SPMD_CHECK(static_cast<int>(vec.size()) == n);
    for (int i = 0; i < n; ++i) SPMD_CHECK(vec[static_cast<std::size_t>(i)] == i);
  }

  // Many collectives in flight at once, completed in any order.
  std::vector<upcxx::future<int>> fs;
  for (int i = 0; i < 50; ++i) fs.push_back(upcxx::reduce_all(me * i, upcxx::op_fast_add));
  upcxx::future<> bf = upcxx::barrier_async();
  for (int i = 49; i >= 0; --i) SPMD_CHECK(fs[static_cast<std::size_t>(i)].wait() == i * n * (n - 1) / 2);
  bf.wait();
  // Thousands in flight, roots running ahead of the others: the receivers hold many early
  // collectives at once.
  std::vector<upcxx::future<int>> bs;
  for (int i = 0; i < 3000; ++i) bs.push_back(upcxx::broadcast(me == i % n ? i : -1, i % n));
  for (int i = 0; i < 3000; ++i) SPMD_CHECK(bs[static_cast<std::size_t>(i)].wait() == i);

  // Completions: LPC and promise with a value.
  int got = -1;
  bool lpc_ran = false;
  auto fut = upcxx::reduce_all(3, upcxx::op_fast_add, upcxx::world(),
                               upcxx::operation_cx::as_future() |
                                   upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&](int x) {
                                     got = x;
                                     lpc_ran = true;
                                   }));
  SPMD_CHECK(fut.wait() == 3 * n);
  while (!lpc_ran) upcxx::progress();
  SPMD_CHECK(got == 3 * n);
  upcxx::promise<int> pv;
  upcxx::broadcast(42, n - 1, upcxx::world(), upcxx::operation_cx::as_promise(pv));
  SPMD_CHECK(pv.finalize().wait() == 42);

  // A collective issued from inside a then() callback. Not one that progress runs: that is
  // the restricted context, where initiating a collective is an error since UPC++ 2022.9
  // (launcher.debug-collective-in-then); this callback runs when the program itself
  // fulfills the promise.
  upcxx::future<int> inner;
  upcxx::promise<> go;
  upcxx::future<> issued = go.get_future().then([&] { inner = upcxx::reduce_all(1, upcxx::op_fast_add); });
  go.fulfill_anonymous(1);
  SPMD_CHECK(issued.is_ready());
  SPMD_CHECK(inner.wait() == n);
}

int g_team_rpcs = 0;

void teams() {
  // Split into evens and odds, each ordered by descending world rank.
  upcxx::team parity = upcxx::world().split(me % 2, -me);
  const int pn = (n + 1 - me % 2) / 2;
  SPMD_CHECK(parity.rank_n() == pn);
  SPMD_CHECK(parity.is_active());
  for (int i = 0; i < pn; ++i) {
    int w = parity[i];
    SPMD_CHECK(w % 2 == me % 2);
    SPMD_CHECK(parity.from_world(w) == i);
    if (i > 0) SPMD_CHECK(parity[i - 1] > w);
  }
  SPMD_CHECK(parity[parity.rank_me()] == me);
  const int next = (me + 1) % n;
  SPMD_CHECK((parity.from_world(next, -5) >= 0) == (next % 2 == me % 2));
  SPMD_CHECK(parity.id() != upcxx::world().id());
  SPMD_CHECK(&parity.id().here() == &parity);
  SPMD_CHECK(&parity.id().when_here().wait() == &parity);

  // Collectives on the subteam, concurrent with one on world.
  auto wsum = upcxx::reduce_all(1, upcxx::op_fast_add);
  int psum = upcxx::reduce_all(me, upcxx::op_fast_add, parity).wait();
  int expect = 0;
  for (int w = me % 2; w < n; w += 2) expect += w;
  SPMD_CHECK(psum == expect);
  SPMD_CHECK(upcxx::broadcast(me, 0, parity).wait() == parity[0]);
  int pmax = upcxx::reduce_one(me, upcxx::op_fast_max, pn - 1, parity).wait();
  if (parity.rank_me() == pn - 1) SPMD_CHECK(pmax == parity[0]);  // ordered by descending world rank
  upcxx::barrier(parity);
  upcxx::barrier_async(parity).wait();
  SPMD_CHECK(wsum.wait() == n);

  // A dist_object over the subteam, reached by RPCs that name the team.
  g_team_rpcs = 0;
  upcxx::barrier();
  upcxx::dist_object<int> d(100 + me, parity);
  upcxx::barrier(parity);
  int peer = parity[(parity.rank_me() + 1) % pn];
  SPMD_CHECK(d.fetch((parity.rank_me() + 1) % pn).wait() == 100 + peer);
  int r = upcxx::rpc(peer, [](upcxx::team& t, upcxx::dist_object<int>& obj) {
            ++g_team_rpcs;
            return *obj + t.rank_n();
          }, parity, d).wait();
  SPMD_CHECK(r == 100 + peer + pn);
  upcxx::team_id pid = parity.id();
  SPMD_CHECK(upcxx::rpc(peer, [](upcxx::team_id id) { return id.here().rank_n(); }, pid).wait() == pn);
  upcxx::barrier();
  SPMD_CHECK(g_team_rpcs == 1);

  // Split again with color_none for some, and nested.
  upcxx::team firsts = parity.split(parity.rank_me() == 0 ? 0 : upcxx::team::color_none, 0);
  SPMD_CHECK(firsts.is_active() == (parity.rank_me() == 0));
  if (firsts.is_active()) {
    SPMD_CHECK(firsts.rank_n() == 1);
    SPMD_CHECK(upcxx::reduce_all(7, upcxx::op_fast_add, firsts).wait() == 7);
    upcxx::barrier(firsts);
    firsts.destroy();
  }

  // create(): every rank joins the team of the ranks in its half, listed in reverse.
  std::vector<int> half;
  for (int w = n - 1; w >= 0; --w)
    if ((w < (n + 1) / 2) == (me < (n + 1) / 2)) half.push_back(w);
  upcxx::team created = upcxx::world().create(half);
  SPMD_CHECK(created.rank_n() == static_cast<int>(half.size()));
  for (std::size_t i = 0; i < half.size(); ++i) SPMD_CHECK(created[static_cast<int>(i)] == half[i]);
  SPMD_CHECK(upcxx::reduce_all(1, upcxx::op_fast_add, created).wait() == created.rank_n());
  std::vector<int> nobody;
  upcxx::team none = upcxx::world().create(nobody);
  SPMD_CHECK(!none.is_active());

  // Moving a team keeps its id working.
  upcxx::team moved(std::move(created));
  SPMD_CHECK(!created.is_active());
  SPMD_CHECK(&moved.id().here() == &moved);
  SPMD_CHECK(upcxx::reduce_all(2, upcxx::op_fast_add, moved).wait() == 2 * moved.rank_n());

  // A team with world's members in reverse order: its collectives take the message paths
  // (world's small ones ride the transport barrier), including the fold of reduce_all when n
  // is not a power of two.
  upcxx::team reversed = upcxx::world().split(0, n - me);
  SPMD_CHECK(reversed[0] == n - 1);
  SPMD_CHECK(upcxx::reduce_all(me + 1, upcxx::op_fast_add, reversed).wait() == n * (n + 1) / 2);
  SPMD_CHECK(upcxx::reduce_all(std::uint64_t{1} << me, upcxx::op_fast_bit_or, reversed).wait() ==
             (std::uint64_t{1} << n) - 1);
  SPMD_CHECK(upcxx::broadcast(me, n - 1, reversed).wait() == 0);
  upcxx::barrier_async(reversed).wait();
  upcxx::barrier(reversed);
  reversed.destroy();

  // local_team collectives.
  SPMD_CHECK(upcxx::reduce_all(1, upcxx::op_fast_add, upcxx::local_team()).wait() == upcxx::local_team().rank_n());

  moved.destroy(upcxx::entry_barrier::internal);
  SPMD_CHECK(!moved.is_active());
  parity.destroy();
  upcxx::barrier();
}

}  // namespace

int main() {
  upcxx::init();
  me = upcxx::rank_me();
  n = upcxx::rank_n();
  for (int rep = 0; rep < 3; ++rep) {
    world_collectives();
    teams();
  }
  upcxx::barrier();
  if (me == 0) std::printf("spmd_coll: OK (%d ranks)\n", n);
  upcxx::finalize();
}
