// Remote procedure calls between ranks through gannet-run (2 and 4 ranks): function
// shipping (lambdas, function pointers, functors), serialized arguments, results and
// unwrapped futures, completions, dist_object (including calls that arrive before the
// target constructs it), remote_cx::as_rpc, large (rendezvous) bodies, never-synchronous
// delivery to self, batching (discharge, barrier, order across sizes).
#include <unistd.h>

#include <array>
#include <atomic>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

int g_hits = 0;
long g_sum = 0;

int times_three(int x) { return 3 * x; }
void bump(int by) { g_hits += by; }

struct point {
  int x = 0, y = 0;
  std::string label;
  UPCXX_SERIALIZED_FIELDS(x, y, label)
};

struct adder {
  int base;
  int operator()(int v) const { return base + v; }
};

// Serialized as a string, deserialized as its length plus 100 (spec 6.2.3: deserialize may
// produce another type): results must be read with name's deserialization, as arguments are.
struct name_length {
  std::size_t n;
};
struct name {
  std::string s;
  struct upcxx_serialization {
    template <typename W>
    static void serialize(W& w, const name& o) {
      w.write(o.s);
    }
    template <typename R>
    static name_length* deserialize(R& r, void* storage) {
      return ::new (storage) name_length{r.template read<std::string>().size() + 100};
    }
  };
};

const std::string constant_text() { return "const"; }

}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  // ---- results, unwrapping, function pointers, functors ----
  SPMD_CHECK(upcxx::rpc(right, [](int a, int b) { return a * b; }, 6, 7).wait() == 42);
  SPMD_CHECK(upcxx::rpc(right, times_three, 5).wait() == 15);
  SPMD_CHECK(upcxx::rpc(right, &times_three, 4).wait() == 12);
  SPMD_CHECK(upcxx::rpc(right, adder{100}, 5).wait() == 105);
  SPMD_CHECK(upcxx::rpc(right, [] { return upcxx::rank_me(); }).wait() == right);
  upcxx::future<int, std::string> two =
      upcxx::rpc(right, [](int v) { return upcxx::make_future(v, std::string("two")); }, 9);
  SPMD_CHECK(two.wait<0>() == 9 && two.wait<1>() == "two");
  upcxx::rpc(right, [] {}).wait();
  const int base = 1000 * me;
  SPMD_CHECK(upcxx::rpc(right, [base](int v) { return base + v; }, 1).wait() == 1000 * me + 1)
      ;  // a lambda's captures travel by value

  // ---- serialized arguments and results ----
  std::vector<int> vec(1000);
  std::iota(vec.begin(), vec.end(), me);
  std::map<std::string, std::vector<int>> m{{"a", {1, 2}}, {"b", {3}}};
  auto echoed = upcxx::rpc(
                    right,
                    [](const std::vector<int>& v, const std::map<std::string, std::vector<int>>& mm,
                       const std::optional<std::string>& o, const point& p) {
                      return std::to_string(std::accumulate(v.begin(), v.end(), 0L)) + "|" +
                             std::to_string(mm.at("a")[1]) + "|" + o.value_or("none") + "|" + p.label +
                             std::to_string(p.x + p.y);
                    },
                    vec, m, std::optional<std::string>("opt"), point{2, 3, "pt"})
                    .wait();
  long expect_sum = 0;
  for (int i = 0; i < 1000; ++i) expect_sum += me + i;
  SPMD_CHECK(echoed == std::to_string(expect_sum) + "|2|opt|pt5");

  // results deserialize as their own type says, through every path that returns one
  SPMD_CHECK(upcxx::rpc(right, [](name_length&& l) { return l.n; }, name{"abcdefghijk"}).wait() == 111);
  upcxx::future<name_length> named = upcxx::rpc(right, [] { return name{"abcdefghijk"}; });
  SPMD_CHECK(named.wait().n == 111);
  upcxx::future<name_length> named_later = upcxx::rpc(right, [] { return upcxx::make_future(name{"abc"}); });
  SPMD_CHECK(named_later.wait().n == 103);
  {
    upcxx::dist_object<name> dn(name{std::string(static_cast<std::size_t>(me), 'x')});
    upcxx::future<name_length> fetched = dn.fetch(right);
    SPMD_CHECK(fetched.wait().n == static_cast<std::size_t>(100 + right));
    upcxx::barrier();  // nobody destroys dn while a fetch may still read it
  }
  // a const result stays const (spec 6.4 ¶4)
  upcxx::future<const std::string> constant = upcxx::rpc(right, constant_text);
  SPMD_CHECK(constant.wait() == "const");

  // views: read in place at the target
  std::vector<double> dv(100, 0.5);
  SPMD_CHECK(upcxx::rpc(right,
                        [](upcxx::view<double> v) {
                          double s = 0;
                          for (double d : v) s += d;
                          return s;
                        },
                        upcxx::make_view(dv.begin(), dv.end()))
                 .wait() == 50.0);

  // global pointers travel as they are: the target reads our memory through them.
  auto mine = upcxx::new_<long>(77 + me);
  // (Through rget where the caller's heap is not addressable at the target: MPI, off-node.)
  SPMD_CHECK(upcxx::rpc(right,
                        [](upcxx::global_ptr<long> g) {
                          return g.is_local() ? upcxx::make_future(*g.local()) : upcxx::rget(g);
                        },
                        mine)
                 .wait() == 77 + me);

  // upcxx_memberof_general: here computed locally (every rank is load/store reachable).
  struct with_members {
    long a;
    std::string s;  // not standard layout in general: the general form is needed
    double d;
  };
  auto obj = upcxx::new_<with_members>();
  auto all_objs = gannet::all_gather(obj);
  upcxx::global_ptr<double> gd = upcxx_memberof_general(all_objs[right], d).wait();
  SPMD_CHECK(gd.where() == right);
  if (gd.is_local()) SPMD_CHECK(gd.local() == &all_objs[right].local()->d);
  upcxx::barrier();
  upcxx::delete_(obj);

  // ---- rpc_ff and never-synchronous delivery, also to self ----
  g_hits = 0;
  upcxx::rpc_ff(me, bump, 1);
  SPMD_CHECK(g_hits == 0);  // not run inside rpc_ff
  while (g_hits == 0) upcxx::progress();
  upcxx::barrier();
  g_hits = 0;
  upcxx::barrier();
  for (int r = 0; r < n; ++r) upcxx::rpc_ff(r, [](int by) { g_hits += by; }, 1);
  while (g_hits < n) upcxx::progress();
  upcxx::barrier();
  SPMD_CHECK(g_hits == n);

  // ---- completions ----
  upcxx::promise<int> pr;
  upcxx::rpc(right, upcxx::operation_cx::as_promise(pr), [] { return 5; });
  SPMD_CHECK(pr.finalize().wait() == 5);
  int lpc_value = 0;
  upcxx::rpc(right, upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&](int v) { lpc_value = v; }),
             [] { return 11; });
  upcxx::future<> src = upcxx::rpc_ff(right, upcxx::source_cx::as_future(), [] {});
  src.wait();
  while (lpc_value != 11) upcxx::progress();
  auto [src_done, op_done] = upcxx::rpc(right, upcxx::source_cx::as_future() | upcxx::operation_cx::as_future(),
                                        [](int v) { return v + 1; }, 1);
  SPMD_CHECK(op_done.wait() == 2);
  src_done.wait();
  SPMD_CHECK(upcxx::rpc(upcxx::world(), right, [](upcxx::team& t) { return t.rank_n(); }, upcxx::world()).wait() == n);
  // team_id travels as a plain value and names the same team at the target.
  SPMD_CHECK(upcxx::rpc(right, [](upcxx::team_id id) { return &id.here() == &upcxx::local_team(); },
                        upcxx::local_team().id())
                 .wait());
  SPMD_CHECK(upcxx::world().id() != upcxx::local_team().id() && upcxx::world().id() != upcxx::team_id());
  SPMD_CHECK(&upcxx::world().id().when_here().wait() == &upcxx::world());

  // ---- dist_object ----
  upcxx::dist_object<int> d(10 * me);
  SPMD_CHECK(*d == 10 * me);
  SPMD_CHECK(d.fetch(right).wait() == 10 * right);
  SPMD_CHECK(upcxx::rpc(left, [](upcxx::dist_object<int>& o, int add) { return *o + add; }, d, 3).wait() ==
             10 * left + 3);
  upcxx::barrier();

  // A call that names a dist_object before its target constructed it waits (spec 14.3):
  // rank 0 calls right away; the others construct theirs only after sleeping.
  g_sum = 0;
  if (me != 0) ::usleep(200 * 1000);
  upcxx::dist_object<std::string> late("late-" + std::to_string(me));
  upcxx::future<std::string> got =
      upcxx::rpc(right, [](upcxx::dist_object<std::string>& o) { return *o; }, late);
  SPMD_CHECK(got.wait() == "late-" + std::to_string(right));
  auto here = late.id().when_here();
  SPMD_CHECK(here.ready() && &here.result() == &late);
  upcxx::barrier();

  // ---- remote_cx::as_rpc after an rput: the data is there when the call runs ----
  auto slots = upcxx::new_array<int>(n);
  auto all_slots = gannet::all_gather(slots);
  g_hits = 0;
  upcxx::barrier();
  upcxx::rput(me + 1, all_slots[right] + me,
              upcxx::remote_cx::as_rpc(
                  [](upcxx::global_ptr<int> at, int expect) {
                    if (*at.local() != expect) std::abort();
                    g_hits += 1;
                  },
                  all_slots[right] + me, me + 1) |
                  upcxx::operation_cx::as_future())
      .wait();
  while (g_hits < 1) upcxx::progress();
  upcxx::barrier();

  // as_rpc takes dist_object& and team& arguments as rpc does: they arrive as the target's
  // own instances (spec 7.3 ¶18).
  {
    upcxx::dist_object<int> hits(0);
    upcxx::barrier();
    upcxx::rput(me + 1, all_slots[right] + me,
                upcxx::remote_cx::as_rpc(
                    [](upcxx::dist_object<int>& h, upcxx::team& t, int from) {
                      if (&t != &upcxx::world()) std::abort();
                      *h += 1 + from;
                    },
                    hits, upcxx::world(), me));
    while (*hits != 1 + left) upcxx::progress();
    upcxx::barrier();
  }

  // ---- batching: calls wait in a batch until progress; discharge() and barrier() send ----
  // Rank 0 sends one call to rank 1 and then spins on its own memory without making any
  // progress: only a call that really left can end the spin (rank 1 writes the flag). Only
  // where rank 1 can store into rank 0's heap (every rank on this machine: smp, or MPI with
  // the bypass); the same on every rank.
  if (upcxx::local_team().rank_n() == n) {
    auto flag = upcxx::new_<int>(0);
    auto flags = gannet::all_gather(flag);
    auto spin_until_set = [&](int want) {
      const int* f = flag.local();
      for (long i = 0; spmd_atomic_load(f) != want; ++i) {
        SPMD_CHECK(i < 2000000000L);  // a call that never leaves would spin here for ever
      }
    };
    static bool s_got = false;
    auto set_back = [](upcxx::global_ptr<int> back, int v) {
      spmd_atomic_store(back.local(), v);
      s_got = true;
    };
    if (n > 1) {
      if (me == 0) {
        // The first call after a progress pass leaves at once; the next one waits in the batch.
        upcxx::rpc_ff(1, [] {});
        upcxx::rpc_ff(1, set_back, flags[0], 1);
        SPMD_CHECK(upcxx::progress_required());  // waiting in the batch (spec 10.3)
        upcxx::discharge();
        SPMD_CHECK(!upcxx::progress_required());
        spin_until_set(1);
      } else if (me == 1) {
        while (!s_got) upcxx::progress();
        s_got = false;
      }
      upcxx::barrier();
      if (me == 0) {
        upcxx::rpc_ff(1, set_back, flags[0], 2);
        upcxx::barrier();  // sends the batch before arriving
        spin_until_set(2);
      } else {
        upcxx::barrier();
        if (me == 1) {
          while (!s_got) upcxx::progress();
          s_got = false;
        }
      }
    }
    upcxx::barrier();
    upcxx::delete_(flag);
  }

  // Calls from one rank run in the order they were made, across batch boundaries and
  // whatever path their size takes (batched, alone, rendezvous through the shared heap).
  {
    static long s_next = 0;
    static bool s_disorder = false;
    const long calls = 3000;
    const std::size_t used_at_start = upcxx::shared_segment_used();
    upcxx::barrier();
    for (long i = 0; i < calls; ++i) {
      std::size_t bytes = i % 500 < 2 ? 300 * 1024 : i % 11 == 0 ? 3000 : i % 7 == 0 ? 1500 : 8;
      upcxx::rpc_ff(right,
                    [](long seq, const std::vector<char>& pad) {
                      if (seq != s_next || (!pad.empty() && pad.back() != static_cast<char>(seq))) s_disorder = true;
                      ++s_next;
                    },
                    i, std::vector<char>(bytes, static_cast<char>(i)));
    }
    while (s_next < calls) upcxx::progress();
    SPMD_CHECK(!s_disorder && s_next == calls);
    upcxx::barrier();
    // The rendezvous buffers are freed once the receiver says it is done with them.
    for (long i = 0; i < 100000000L && upcxx::shared_segment_used() != used_at_start; ++i) upcxx::progress();
    SPMD_CHECK(upcxx::shared_segment_used() == used_at_start);
    upcxx::barrier();
  }

  // ---- a large body (rendezvous through the sender's shared heap) ----
  std::vector<std::uint64_t> big(1 << 19);  // 4 MiB
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * 7 + me;
  std::uint64_t expect_big = 0;
  for (auto v : big) expect_big += v;
  std::size_t used_before = upcxx::shared_segment_used();
  auto big_sum = upcxx::rpc(right,
                            [](const std::vector<std::uint64_t>& v) {
                              std::uint64_t s = 0;
                              for (auto x : v) s += x;
                              return std::make_pair(s, v.size());
                            },
                            big)
                     .wait();
  SPMD_CHECK(big_sum.first == expect_big && big_sum.second == big.size());
  upcxx::barrier();
  // The target's acknowledgement may still be on its way (or parked in its outbox) when the
  // barrier ends: wait for it without a bound; a buffer that is never freed hangs the test,
  // which then fails on its timeout rather than on the machine's load.
  while (upcxx::shared_segment_used() != used_before) upcxx::progress();
  SPMD_CHECK(upcxx::shared_segment_used() == used_before);  // the rendezvous buffer was freed

  // More large bodies in flight than the 32 MB heap holds, sent with no progress between
  // them: a send that finds no room waits (internal progress) until its targets release
  // earlier ones, instead of throwing bad_shared_alloc.
  {
    static std::uint64_t g_big_calls = 0, g_big_sum = 0;
    std::vector<std::uint64_t> chunk((12u << 20) / sizeof(std::uint64_t), std::uint64_t(me + 1));
    constexpr int sends = 5;  // 60 MiB from a 32 MB heap
    for (int i = 0; i < sends; ++i)
      upcxx::rpc_ff(right, [](const std::vector<std::uint64_t>& v) {
        ++g_big_calls;
        g_big_sum += v.front() + v.back();
      }, chunk);
    while (g_big_calls < sends) upcxx::progress();
    SPMD_CHECK(g_big_sum == std::uint64_t(sends) * 2 * std::uint64_t(left + 1));
    upcxx::barrier();
    while (upcxx::shared_segment_used() != used_before) upcxx::progress();  // as above
    SPMD_CHECK(upcxx::shared_segment_used() == used_before);
  }

  // A program that has filled its own heap still gets large calls and results through: they
  // travel through the ring in pieces (spec 9 gives rpc no out-of-memory failure).
  {
    std::vector<upcxx::global_ptr<char>> hog;
    for (std::size_t block = 1 << 20; block >= 4096; block /= 2) {
      try {
        for (;;) hog.push_back(upcxx::new_array<char>(block));
      } catch (const upcxx::bad_shared_alloc&) {
      }
    }
    std::vector<int> arg(300000 / sizeof(int));
    std::iota(arg.begin(), arg.end(), me);
    auto echoed = upcxx::rpc(right, [](std::vector<int>&& v) {
                    for (auto& x : v) x += 1;
                    return std::move(v);  // a large result from a heap that may be full too
                  }, arg).wait();
    SPMD_CHECK(echoed.size() == arg.size() && echoed.front() == me + 1 && echoed.back() == arg.back() + 1);
    upcxx::barrier();  // every rank's heap was full at once
    for (auto& g : hog) upcxx::delete_array(g);
  }

  upcxx::barrier();
  upcxx::delete_array(slots);
  upcxx::delete_(mine);
  upcxx::say() << "spmd_rpc OK";
  upcxx::finalize();
  return 0;
}
