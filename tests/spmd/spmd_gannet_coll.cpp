// gannet/collectives.hpp against a serial model: gather, gatherv, gather_all, gather_allv,
// alltoall, alltoallv, scan and exscan with random counts and element types, every root, on
// world, local_team, split teams (reversed, by parity, of one rank) and with a future, a
// promise and an LPC for completion; gather_all of strings, vectors and a struct. Every rank
// computes what every other contributed from (seed, rank, index), so each result is checked
// in full. Sizes straddle Bruck's limit and the transport's message sizes. With the argument
// "large": blocks read in place from the shared heap, and staging that finds the heap full.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gannet/collectives.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

struct rec {
  std::int32_t a;
  std::int16_t b;
  char c;
  bool operator==(const rec& o) const { return a == o.a && b == o.b && c == o.c; }
};

// Rank r's element i in trial `seed`, as every rank computes it.
template <typename T>
T elem(std::uint64_t seed, int r, std::size_t i) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(r) * 0xbf58476d1ce4e5b9ull + i * 31 + 7;
  x ^= x >> 29;
  if constexpr (std::is_same_v<T, rec>) return rec{static_cast<std::int32_t>(x), static_cast<std::int16_t>(x >> 32), static_cast<char>(x >> 48)};
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(static_cast<std::int64_t>(x % 2001) - 1000) / 4;
  else return static_cast<T>(x % 1000);
}

// The completion variants: 0 future, 1 promise, 2 LPC.
template <typename Start>
void run_with(int how, Start&& start) {
  if (how == 0) {
    start(upcxx::operation_cx::as_future()).wait();
  } else if (how == 1) {
    upcxx::promise<> p;
    start(upcxx::operation_cx::as_promise(p));
    p.finalize().wait();
  } else {
    bool done = false;
    start(upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&] { done = true; }));
    while (!done) upcxx::progress();
  }
}

template <typename T>
void gathers(const upcxx::team& tm, std::uint64_t seed, std::size_t count, int how) {
  const int n = tm.rank_n(), me = tm.rank_me();
  std::vector<T> src(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = elem<T>(seed, me, i);
  const T poison = elem<T>(seed + 1000, -1, 0);
  for (int root = 0; root < n; root += (n > 4 ? 3 : 1)) {
    std::vector<T> dst(count * n + 1, poison);
    run_with(how, [&](auto cx) { return gannet::gather(src.data(), dst.data(), count, root, tm, cx); });
    for (int r = 0; r < n; ++r)
      for (std::size_t i = 0; i < count; ++i)
        SPMD_CHECK(dst[r * count + i] == (me == root ? elem<T>(seed, r, i) : poison));
    SPMD_CHECK(dst[count * n] == poison);
  }
  std::vector<T> all(count * n + 1, poison);
  run_with(how, [&](auto cx) { return gannet::gather_all(src.data(), all.data(), count, tm, cx); });
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i) SPMD_CHECK(all[r * count + i] == elem<T>(seed, r, i));
  SPMD_CHECK(all[count * n] == poison);

  // v-forms: rank r contributes counts[r] elements, random and the same on every rank.
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> counts(n);
  std::size_t total = 0;
  for (auto& c : counts) total += (c = rng() % (2 * count + 2));
  std::vector<T> vsrc(counts[me]);
  for (std::size_t i = 0; i < vsrc.size(); ++i) vsrc[i] = elem<T>(seed, me, i);
  const int vroot = static_cast<int>(seed % n);
  std::vector<T> vdst(total + 1, poison);
  run_with(how, [&](auto cx) {
    return gannet::gatherv(vsrc.data(), counts[me], vdst.data(), counts.data(), vroot, tm, cx);
  });
  std::vector<T> vall(total + 1, poison);
  run_with(how, [&](auto cx) { return gannet::gather_allv(vsrc.data(), counts[me], vall.data(), counts.data(), tm, cx); });
  std::size_t at = 0;
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < counts[r]; ++i, ++at) {
      SPMD_CHECK(vdst[at] == (me == vroot ? elem<T>(seed, r, i) : poison));
      SPMD_CHECK(vall[at] == elem<T>(seed, r, i));
    }
  SPMD_CHECK(vdst[total] == poison && vall[total] == poison);
}

template <typename T>
void alltoalls(const upcxx::team& tm, std::uint64_t seed, std::size_t count, int how) {
  const int n = tm.rank_n(), me = tm.rank_me();
  // Block j of rank r: elem(seed, r * n + j, i).
  std::vector<T> src(count * n);
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i) src[j * count + i] = elem<T>(seed, me * n + j, i);
  const T poison = elem<T>(seed + 1000, -1, 0);
  std::vector<T> dst(count * n + 1, poison);
  run_with(how, [&](auto cx) { return gannet::alltoall(src.data(), dst.data(), count, tm, cx); });
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < count; ++i) SPMD_CHECK(dst[k * count + i] == elem<T>(seed, k * n + me, i));
  SPMD_CHECK(dst[count * n] == poison);

  // alltoallv: rank r sends c(r, j) elements to rank j, a function every rank can compute.
  auto c = [&](int r, int j) { return static_cast<std::size_t>((seed + r * 7 + j * 13) % (2 * count + 2)); };
  std::vector<std::size_t> sc(n), rc(n);
  std::size_t stotal = 0, rtotal = 0;
  for (int j = 0; j < n; ++j) stotal += (sc[j] = c(me, j)), rtotal += (rc[j] = c(j, me));
  std::vector<T> vsrc(stotal), vdst(rtotal + 1, poison);
  std::size_t at = 0;
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < sc[j]; ++i) vsrc[at++] = elem<T>(seed, me * n + j, i);
  run_with(how, [&](auto cx) { return gannet::alltoallv(vsrc.data(), sc.data(), vdst.data(), rc.data(), tm, cx); });
  at = 0;
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < rc[k]; ++i) SPMD_CHECK(vdst[at++] == elem<T>(seed, k * n + me, i));
  SPMD_CHECK(vdst[rtotal] == poison);
}

template <typename T, typename Op>
void scans(const upcxx::team& tm, std::uint64_t seed, std::size_t count, Op op, int how) {
  const int n = tm.rank_n(), me = tm.rank_me();
  std::vector<T> src(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = elem<T>(seed, me, i);
  const T poison = elem<T>(seed + 1000, -1, 0);
  std::vector<T> inc(count + 1, poison), exc(count + 1, poison);
  run_with(how, [&](auto cx) { return gannet::scan(src.data(), inc.data(), count, op, tm, cx); });
  run_with(how, [&](auto cx) { return gannet::exscan(src.data(), exc.data(), count, op, tm, cx); });
  for (std::size_t i = 0; i < count; ++i) {
    T acc = elem<T>(seed, 0, i);
    if (me == 0) SPMD_CHECK(exc[i] == poison);
    for (int r = 1; r <= me; ++r) {
      if (r == me) SPMD_CHECK(exc[i] == acc);
      acc = op(acc, elem<T>(seed, r, i));
    }
    SPMD_CHECK(inc[i] == acc);
  }
  SPMD_CHECK(inc[count] == poison && exc[count] == poison);
  (void)n;
}

// A non-commutative associative operation: the scan must apply it in rank order.
struct affine {
  std::int64_t m, b;  // x -> m x + b, composed
};
struct compose {
  affine operator()(affine f, affine g) const { return {(f.m * g.m) % 1000003, (f.b * g.m + g.b) % 1000003}; }
};

void values(const upcxx::team& tm) {
  const int n = tm.rank_n(), me = tm.rank_me();
  std::vector<std::string> s = gannet::gather_all(std::string(static_cast<std::size_t>(me * 5 + 1), 'a' + me % 26), tm).wait();
  SPMD_CHECK(static_cast<int>(s.size()) == n);
  for (int r = 0; r < n; ++r) SPMD_CHECK(s[r] == std::string(static_cast<std::size_t>(r * 5 + 1), 'a' + r % 26));
  auto v = gannet::gather_all(std::vector<int>(static_cast<std::size_t>(me), me), tm).wait();
  for (int r = 0; r < n; ++r) SPMD_CHECK(v[r] == std::vector<int>(static_cast<std::size_t>(r), r));
  auto t = gannet::gather_all(rec{me, static_cast<std::int16_t>(-me), 'x'}, tm).wait();
  for (int r = 0; r < n; ++r) SPMD_CHECK((t[r] == rec{r, static_cast<std::int16_t>(-r), 'x'}));
  upcxx::promise<std::vector<double>> p;
  gannet::gather_all(0.5 * me, tm, upcxx::operation_cx::as_promise(p));
  auto d = p.finalize().wait();
  for (int r = 0; r < n; ++r) SPMD_CHECK(d[r] == 0.5 * r);
}

void everything(const upcxx::team& tm, std::uint64_t seed) {
  int how = 0;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{40}, std::size_t{5000}}) {
    ++seed;
    how = (how + 1) % 3;
    gathers<std::int32_t>(tm, seed, count, how);
    gathers<rec>(tm, seed, count, (how + 1) % 3);
    alltoalls<double>(tm, seed, count, how);
    alltoalls<char>(tm, seed, count, (how + 2) % 3);
    alltoalls<rec>(tm, seed, count, how);
    scans<std::int64_t>(tm, seed, count, upcxx::op_fast_add, how);
    scans<double>(tm, seed, count, upcxx::op_fast_max, (how + 1) % 3);
    scans<std::uint32_t>(tm, seed, count, upcxx::op_fast_bit_xor, (how + 2) % 3);
    scans<std::int16_t>(tm, seed, count, [](std::int16_t a, std::int16_t b) { return a < b ? a : b; }, how);
  }
  // Rank order of a non-commutative operation.
  affine f{static_cast<std::int64_t>(tm.rank_me() + 2), static_cast<std::int64_t>(tm.rank_me() * 3 + 1)};
  affine got{0, 0}, ex{-1, -1};
  gannet::scan(&f, &got, 1, compose{}, tm).wait();
  gannet::exscan(&f, &ex, 1, compose{}, tm).wait();
  affine want{2, 1}, want_ex{-1, -1};
  for (int r = 1; r <= tm.rank_me(); ++r) {
    want_ex = want;
    want = compose{}(want, affine{r + 2, r * 3 + 1});
  }
  SPMD_CHECK(got.m == want.m && got.b == want.b);
  SPMD_CHECK(ex.m == want_ex.m && ex.b == want_ex.b);
  values(tm);
}

// Large blocks (over the 32 KiB direct-copy limit) in the shared heap, read in place by the
// peers; and from private memory (read in place from another machine where the transport
// can expose it), whose staging copy falls back to messages when the heap has no room (run
// with a small heap: the "large" argument).
void large_blocks(std::uint64_t seed) {
  const int n = upcxx::rank_n(), me = upcxx::rank_me();
  const std::size_t count = 9000;  // doubles: 72 000 bytes per block
  upcxx::global_ptr<double> hsrc = upcxx::new_array<double>(count * n), hdst = upcxx::new_array<double>(count * n + 1);
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i) hsrc.local()[j * count + i] = elem<double>(seed, me * n + j, i);
  hdst.local()[count * n] = -1;
  gannet::alltoall(hsrc.local(), hdst.local(), count).wait();
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < count; ++i) SPMD_CHECK(hdst.local()[k * count + i] == elem<double>(seed, k * n + me, i));
  SPMD_CHECK(hdst.local()[count * n] == -1);
  gannet::gather_all(hsrc.local(), hdst.local(), count).wait();
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < count; ++i) SPMD_CHECK(hdst.local()[k * count + i] == elem<double>(seed, k * n, i));
  upcxx::delete_array(hsrc);
  upcxx::delete_array(hdst);
  // Private buffers, with most of the heap taken so that staging may not fit.
  std::vector<upcxx::global_ptr<char>> hog;
  while (auto g = upcxx::allocate<char>(64 * 1024)) hog.push_back(g);
  if (!hog.empty()) {
    upcxx::deallocate(hog.back());  // a little room for the runtime's own needs
    hog.pop_back();
  }
  std::vector<double> src(count * n), dst(count * n);
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i) src[j * count + i] = elem<double>(seed + 1, me * n + j, i);
  gannet::alltoall(src.data(), dst.data(), count).wait();
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < count; ++i) SPMD_CHECK(dst[k * count + i] == elem<double>(seed + 1, k * n + me, i));
  // Two gather_alls in flight over the same private block: through MPI the first exposes it
  // once for every peer, the second cannot expose the same memory again and falls back.
  std::vector<double> all1(count * n), all2(count * n);
  upcxx::future<> g1 = gannet::gather_all(src.data(), all1.data(), count);
  upcxx::future<> g2 = gannet::gather_all(src.data(), all2.data(), count);
  upcxx::when_all(g1, g2).wait();
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < count; ++i) {
      SPMD_CHECK(all1[k * count + i] == elem<double>(seed + 1, k * n, i));
      SPMD_CHECK(all2[k * count + i] == elem<double>(seed + 1, k * n, i));
    }
  for (auto& g : hog) upcxx::deallocate(g);
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  if (argc > 1 && std::string(argv[1]) == "large") {
    large_blocks(7);
    upcxx::barrier();
    if (me == 0) upcxx::say() << "spmd_gannet_coll: OK (" << n << " ranks, large blocks)";
    upcxx::finalize();
    return 0;
  }
  everything(upcxx::world(), 1);
  {
    upcxx::team reversed = upcxx::world().split(0, n - me);
    everything(reversed, 100);
    upcxx::team parity = upcxx::world().split(me % 2, me);
    everything(parity, 200);
    upcxx::team alone = upcxx::world().split(me, 0);
    everything(alone, 300);
    everything(upcxx::local_team(), 400);
    // Collectives in flight on two teams at once, completed in the other order.
    std::int64_t a = me, b = me, ra = -1, rb = -1;
    auto fa = gannet::scan(&a, &ra, 1, upcxx::op_fast_add, parity);
    auto fb = gannet::scan(&b, &rb, 1, upcxx::op_fast_add);
    fb.wait();
    fa.wait();
    SPMD_CHECK(rb == std::int64_t{me} * (me + 1) / 2);
    std::int64_t want = 0;
    for (int r = me % 2; r <= me; r += 2) want += r;
    SPMD_CHECK(ra == want);
    alone.destroy();
    parity.destroy();
    reversed.destroy();
  }
  upcxx::barrier();
  if (me == 0) upcxx::say() << "spmd_gannet_coll: OK (" << n << " ranks)";
  upcxx::finalize();
  return 0;
}
