// Futures, promises, when_all, then, personas and LPCs (spec chapters 5 and 10), one rank.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <upcxx/upcxx.hpp>

namespace {

using upcxx::future;
using upcxx::make_future;
using upcxx::promise;
using upcxx::when_all;

std::optional<upcxx::persona_scope> g_master_back;

// UPC++ 2021.9: futures built, conjoined and copied during dynamic initialization, before
// init() (the environment below calls it).
future<> g_seed = make_future();
future<std::string> g_word = upcxx::to_future(std::string("before init"));
future<int, std::string> g_pair = when_all(make_future(5), g_word, g_seed);
future<std::string> g_copy = g_word;

class upcxx_env : public ::testing::Environment {
 public:
  void SetUp() override { upcxx::init(); }
  void TearDown() override {
    upcxx::finalize();
    g_master_back.reset();
  }
};

}  // namespace

int opt_codemode_assert_evaluations();            // assert_opt_codemode.cpp
void opt_codemode_assert_always_fails(int x);     // assert_opt_codemode.cpp

namespace {

TEST(Future, BuiltBeforeInit) {
  ASSERT_TRUE(g_pair.is_ready() && g_copy.is_ready() && g_seed.is_ready());
  EXPECT_EQ(g_pair.result<0>(), 5);
  EXPECT_EQ(g_pair.result<1>(), "before init");
  EXPECT_EQ(g_copy.wait(), "before init");
  EXPECT_EQ(g_word.then([](const std::string& s) { return s.size(); }).wait(), 11u);
  future<> conj = g_seed;
  promise<> p;
  conj = when_all(conj, p.get_future());
  EXPECT_FALSE(conj.is_ready());
  p.fulfill_anonymous(1);
  EXPECT_TRUE(conj.is_ready());
}

TEST(Future, IsReadyAndReadyAgree) {
  future<int> r = make_future(1);
  future<> never;
  promise<int> p;
  future<int> pending = p.get_future();
  static_assert(std::is_same_v<decltype(r.is_ready()), bool>);
  static_assert(noexcept(r.is_ready()));
  EXPECT_TRUE(r.is_ready());
  EXPECT_EQ(r.is_ready(), r.ready());
  EXPECT_FALSE(never.is_ready());
  EXPECT_FALSE(never.ready());
  EXPECT_FALSE(pending.is_ready());
  p.fulfill_result(2);
  EXPECT_TRUE(pending.is_ready() && pending.ready());
  const future<int>& cref = pending;
  EXPECT_TRUE(cref.is_ready());
}

// The streamed form in a namespace-scope initializer (where a lambda may not capture), with
// a manipulator in the message.
const bool g_assert_at_namespace_scope = (UPCXX_ASSERT_ALWAYS(sizeof(int) >= 2, "int of " << sizeof(int) << std::endl), true);

TEST(Assert, StreamedMessagesInDebugCodemode) {
  EXPECT_TRUE(g_assert_at_namespace_scope);
  int x = -3;
  UPCXX_ASSERT(x < 0, "never built " << x);
  UPCXX_ASSERT_ALWAYS(x < 0);
  EXPECT_DEATH(UPCXX_ASSERT(x > 0, "x was " << x), "future_test.cpp:[0-9]+: assertion failed: x > 0: x was -3");
  EXPECT_DEATH(UPCXX_ASSERT(x > 0), "assertion failed: x > 0");
  EXPECT_DEATH(UPCXX_ASSERT_ALWAYS(x == 1, "x was " << x << ", not " << 1), "assertion failed: x == 1: x was -3, not 1");
  EXPECT_DEATH(UPCXX_ASSERT_ALWAYS(x == 1, std::hex << "x+1 in hex: " << x + 20), "x\\+1 in hex: 11");
}

TEST(Assert, OptCodemodeCompilesAssertAway) {
  EXPECT_EQ(opt_codemode_assert_evaluations(), 2)
      << "UPCXX_ASSERT evaluates nothing; UPCXX_ASSERT_ALWAYS its conditions (its messages only on failure)";
  EXPECT_DEATH(opt_codemode_assert_always_fails(-1), "assertion failed: x > 0: x was -1 in opt codemode");
}

TEST(Callbacks, ExceptionEscapingIsReportedInDebugCodemode) {
  EXPECT_DEATH(
      {
        promise<int> p;
        future<int> f = p.get_future().then([](int) -> int { throw std::runtime_error("from then"); });
        p.fulfill_result(1);
      },
      "an exception escaped a future::then\\(\\) callback into the UPC\\+\\+ library \\(what\\(\\): from then\\)");
  EXPECT_DEATH(
      {
        upcxx::current_persona().lpc_ff([] { throw 7; });
        upcxx::progress();
      },
      "not derived from std::exception\\) escaped an LPC callback \\(persona::lpc_ff\\)");
  EXPECT_DEATH((void)upcxx::current_persona().lpc([]() -> int { throw std::logic_error("lpc"); }).wait(),
               "escaped an LPC callback \\(persona::lpc\\) into the UPC\\+\\+ library \\(what\\(\\): lpc\\)");
}

TEST(Progress, DischargeInTheRestrictedContextIsReported) {
  EXPECT_DEATH(
      {
        upcxx::current_persona().lpc_ff([] { upcxx::discharge(); });
        upcxx::progress();
      },
      "upcxx::discharge\\(\\) called inside the restricted context");
  EXPECT_DEATH(
      {
        upcxx::current_persona().lpc_ff([] { upcxx::discharge(upcxx::top_persona_scope()); });
        upcxx::progress();
      },
      "upcxx::discharge\\(persona_scope&\\) called inside the restricted context");
}

// What progress_required() reports in Gannet is the process's batched records, which no
// persona owns: this checks that the no-argument forms see work initiated under a persona
// below the top scope, agree with the scope forms, and that discharge() clears it.
TEST(Progress, NoArgumentFormsCoverEveryPersonaOfTheThread) {
  static int ran = 0;
  ran = 0;
  upcxx::rpc_ff(upcxx::rank_me(), [] { ++ran; });  // under the master persona
  upcxx::persona extra;
  {
    upcxx::persona_scope scope(extra);
    EXPECT_TRUE(upcxx::progress_required()) << "the master persona's call, below the top scope, counts";
    upcxx::discharge();
    EXPECT_FALSE(upcxx::progress_required());
    EXPECT_FALSE(upcxx::progress_required(upcxx::top_persona_scope()));
    EXPECT_FALSE(upcxx::progress_required(upcxx::default_persona_scope()));
  }
  while (ran == 0) upcxx::progress();
  // The scope forms check their argument in debug codemode: a scope of another thread.
  upcxx::persona_scope* other = nullptr;
  std::thread t([&] { other = &upcxx::default_persona_scope(); });
  t.join();
  EXPECT_DEATH((void)upcxx::progress_required(*other),
               "upcxx::progress_required\\(persona_scope&\\): the persona_scope argument is not a live persona_scope");
}

TEST(Future, ReadyValuesAndResultForms) {
  future<int, double> f = make_future(3, 2.5);
  ASSERT_TRUE(f.ready());
  EXPECT_EQ(f.result<0>(), 3);
  EXPECT_EQ(f.result<1>(), 2.5);
  static_assert(std::is_same_v<decltype(f.result()), std::tuple<int, double>>);
  static_assert(std::is_same_v<decltype(f.result<0>()), int>);
  static_assert(std::is_same_v<decltype(f.result_reference<1>()), const double&>);
  static_assert(std::is_same_v<decltype(f.result_reference()), std::tuple<const int&, const double&>>);
  static_assert(std::is_void_v<decltype(f.result<5>())>);
  EXPECT_EQ(f.result_tuple(), std::make_tuple(3, 2.5));
  EXPECT_EQ(std::get<1>(f.wait_tuple()), 2.5);
  EXPECT_EQ(f.wait<0>(), 3);

  future<std::string> s = make_future(std::string(100, 'x'));  // not inline: lives in a cell
  EXPECT_TRUE(s.ready());
  EXPECT_EQ(s.result().size(), 100u);
  const std::string& ref = s.result_reference();
  future<std::string> copy = s;
  EXPECT_EQ(&copy.result_reference(), &ref) << "copies share the cell";

  future<> v = make_future();
  EXPECT_TRUE(v.ready());
  static_assert(std::is_void_v<decltype(v.wait())>);
  v.wait();

  int x = 5;
  future<int&> r = make_future<int&>(x);
  r.result() = 6;
  EXPECT_EQ(x, 6);
}

TEST(Future, DefaultConstructedNeverReady) {
  future<int> f;
  EXPECT_FALSE(f.ready());
  future<int> g = f.then([](int v) { return v + 1; });
  EXPECT_FALSE(g.ready());
  future<int, int> h = when_all(f, make_future(1));
  EXPECT_FALSE(h.ready());
  upcxx::progress();
  EXPECT_FALSE(f.ready());
}

TEST(Future, ToFuture) {
  future<int> a = upcxx::to_future(4);
  EXPECT_EQ(a.result(), 4);
  future<int> b = upcxx::to_future(a);
  EXPECT_EQ(b.result(), 4);
}

TEST(Promise, DependencyCounting) {
  promise<> p(3);
  future<> f = p.get_future();
  EXPECT_FALSE(f.ready());
  p.fulfill_anonymous(1);
  p.require_anonymous(2);
  p.fulfill_anonymous(3);
  EXPECT_FALSE(f.ready());
  p.fulfill_anonymous(1);
  EXPECT_TRUE(f.ready());

  promise<int, std::string> q;
  future<int, std::string> g = q.get_future();
  q.require_anonymous(1);
  q.fulfill_result(7, "seven");
  EXPECT_FALSE(g.ready());
  future<int, std::string> fin = q.finalize();
  EXPECT_TRUE(g.ready());
  EXPECT_TRUE(fin.ready());
  EXPECT_EQ(fin.result<1>(), "seven");

  promise<int> copy_src;
  promise<int> copy = copy_src;  // copies share state
  copy.fulfill_result(1);
  EXPECT_TRUE(copy_src.get_future().ready());
}

TEST(Then, RunsAtOnceWhenReadyAndAtFulfillmentOtherwise) {
  int calls = 0;
  future<int> ready = make_future(20);
  future<int> doubled = ready.then([&](int v) {
    ++calls;
    return v * 2;
  });
  EXPECT_EQ(calls, 1) << "spec 5.8.1 ¶53: immediately when ready";
  EXPECT_EQ(doubled.result(), 40);

  promise<int> p;
  future<std::string> text = p.get_future().then([&](int v) {
    ++calls;
    return std::to_string(v);
  });
  future<> done = text.then([&](const std::string& s) {
    ++calls;
    EXPECT_EQ(s, "9");
  });
  upcxx::progress();
  EXPECT_EQ(calls, 1) << "a pending future's callbacks wait for fulfillment";
  p.fulfill_result(9);
  EXPECT_EQ(calls, 3) << "fulfillment runs the cascade on the calling thread";
  EXPECT_TRUE(done.ready());
  EXPECT_EQ(text.result(), "9");
}

TEST(Then, UnwrapsReturnedFutures) {
  promise<> outer;
  promise<int, char> inner;
  future<int, char> chained = outer.get_future().then([&] { return inner.get_future(); });
  static_assert(std::is_same_v<decltype(chained), future<int, char>>);
  outer.fulfill_anonymous(1);
  EXPECT_FALSE(chained.ready()) << "waits for the inner future";
  inner.fulfill_result(4, 'z');
  ASSERT_TRUE(chained.ready());
  EXPECT_EQ(chained.result<0>(), 4);
  EXPECT_EQ(chained.result<1>(), 'z');

  future<int> ready_inner = make_future(1).then([](int v) { return make_future(v + 1); });
  EXPECT_EQ(ready_inner.result(), 2);
}

TEST(Then, CallbackOutlivesDroppedFutures) {
  auto counter = std::make_shared<int>(0);
  promise<> p;
  {
    future<> f = p.get_future();
    (void)f.then([counter] { ++*counter; });  // result dropped at once
  }
  p.fulfill_anonymous(1);
  EXPECT_EQ(*counter, 1);
  EXPECT_EQ(counter.use_count(), 1) << "the callback was destroyed after running";
}

TEST(WhenAll, ConcatenatesFuturesAndValues) {
  promise<int> a;
  promise<> b;
  future<int, double, char, std::string> all =
      when_all(a.get_future(), make_future(1.5), b.get_future(), 'c', std::string("s"));
  EXPECT_FALSE(all.ready());
  a.fulfill_result(8);
  EXPECT_FALSE(all.ready());
  b.fulfill_anonymous(1);
  ASSERT_TRUE(all.ready());
  EXPECT_EQ(all.result<0>(), 8);
  EXPECT_EQ(all.result<1>(), 1.5);
  EXPECT_EQ(all.result<2>(), 'c');
  EXPECT_EQ(all.result<3>(), "s");

  future<> none = when_all();
  EXPECT_TRUE(none.ready());
  future<int> one = when_all(3);
  EXPECT_EQ(one.result(), 3);
}

TEST(WhenAll, ReturnsTheOnlyContributingInput) {
  // Seed 000 III-C: with every other input a ready future<>, when_all is the input itself.
  promise<int> p;
  future<int> f = p.get_future();
  future<int> r = when_all(make_future(), f, make_future());
  EXPECT_EQ(r.cell(), f.cell()) << "no new cell";
  promise<> q;
  future<> g = q.get_future();
  future<> s = when_all(g, make_future());
  EXPECT_EQ(s.cell(), g.cell());
  p.fulfill_result(1);
  q.fulfill_anonymous(1);
  EXPECT_TRUE(r.ready() && s.ready());
}

// A copyable value that counts its copies: futures move values, never copy them, on the way
// in and through when_all and then.
struct counted {
  static inline int copies = 0;
  int v;
  explicit counted(int x) : v(x) {}
  counted(const counted& o) : v(o.v) { ++copies; }
  counted(counted&& o) noexcept : v(o.v) {}
};

TEST(WhenAll, MovesUnsharedInputsAndLetsThemGo) {
  counted::copies = 0;
  promise<counted> a, b;
  future<counted> fa = a.get_future();
  future<counted, counted> both = when_all(fa, b.get_future());
  a.fulfill_result(counted(1));
  b.fulfill_result(counted(2));
  ASSERT_TRUE(both.ready());
  // fa is still held here (and by the promise): its values are handed out, not copied.
  EXPECT_EQ(&both.result_reference<0>(), &fa.result_reference());
  EXPECT_EQ(both.result_reference<1>().v, 2);
  // Ready temporaries only the when_all holds: their values move into it, their states go.
  future<counted, counted> moved = when_all(make_future(counted(3)), make_future(counted(4)));
  ASSERT_TRUE(moved.ready());
  auto* mc = static_cast<upcxx::detail::value_cell<counted, counted>*>(moved.cell());
  EXPECT_EQ(mc->borrowed, nullptr) << "the values live in the when_all's own state";
  EXPECT_EQ(moved.result_reference<0>().v + moved.result_reference<1>().v, 7);
  EXPECT_EQ(counted::copies, 0);
  // when_all(A(6)): a move-only value without a default constructor.
  future<std::unique_ptr<int>> up = when_all(std::make_unique<int>(6));
  EXPECT_EQ(*up.result_reference(), 6);
  future<std::unique_ptr<int>, std::unique_ptr<int>> ups =
      when_all(make_future(std::make_unique<int>(1)), std::make_unique<int>(2));
  EXPECT_EQ(*ups.result_reference<0>() + *ups.result_reference<1>(), 3);
  std::unique_ptr<int> out = std::move(up).result();
  EXPECT_EQ(*out, 6);
}

TEST(Then, ChainOfReturnedFuturesCollapses) {
  // An asynchronous recursion: each level's then() returns the next level's future. Once
  // ready, the top refers to the state holding the values, and the levels between are gone
  // (each level's callback holds a copy of `alive` for as long as the level lives).
  std::vector<promise<>> gates(20);
  promise<counted> leaf;
  future<counted> leaf_f = leaf.get_future();
  auto alive = std::make_shared<int>(0);
  std::function<future<counted>(std::size_t)> level = [&](std::size_t i) -> future<counted> {
    if (i == gates.size()) return leaf_f;
    return gates[i].get_future().then([&level, i, alive] { return level(i + 1); });
  };
  counted::copies = 0;
  future<counted> top = level(0);
  leaf.fulfill_result(counted(20));
  for (auto& g : gates) g.fulfill_anonymous(1);
  ASSERT_TRUE(top.ready());
  EXPECT_EQ(top.result_reference().v, 20);
  EXPECT_EQ(&top.result_reference(), &leaf_f.result_reference()) << "values handed out, not copied";
  EXPECT_EQ(alive.use_count(), 2) << "only the top level is left (and this test's copy)";
  EXPECT_EQ(counted::copies, 0);
  // A callback returning a fresh future: its values move into the then()'s own state.
  future<counted> fresh = make_future().then([] { return make_future(counted(5)); });
  EXPECT_EQ(static_cast<upcxx::detail::value_cell<counted>*>(fresh.cell())->borrowed, nullptr);
  counted v = std::move(fresh).result();
  EXPECT_EQ(v.v, 5);
  EXPECT_EQ(counted::copies, 0) << "the only handle's values are moved out";
}

TEST(Future, ReferencesAndMultipleValues) {
  int x = 1;
  future<int&, int> f = make_future<int&, int>(x, 2);
  EXPECT_EQ(&f.result_reference<0>(), &x);
  f.result<0>() = 5;  // result() of a reference is the reference
  EXPECT_EQ(x, 5);
  future<int&> g = f.then([](int& r, int) -> int& { return r; });
  EXPECT_EQ(&g.result(), &x);
  future<int&, int, int, int&> h = when_all(f, make_future(3), g);
  EXPECT_EQ(&h.result_reference<0>(), &x);
  EXPECT_EQ(&h.result_reference<3>(), &x);
  std::tuple<int&, int> t = f.result_tuple();
  EXPECT_EQ(&std::get<0>(t), &x);
  promise<int&> p;
  future<int> plus = p.get_future().then([](int& r) { return r + 1; });
  p.fulfill_result(x);
  EXPECT_EQ(plus.result(), 6);
}

TEST(Promise, ValuesThatCannotBeMovedAreConstructedInPlace) {
  promise<std::atomic<int>, int> p;
  future<std::atomic<int>, int> f = p.get_future();
  p.fulfill_result(5, 6);  // std::atomic<int>(5), built where it stays
  EXPECT_EQ(f.result_reference<0>().load(), 5);
  // when_all and then() hand it out where it is.
  future<std::atomic<int>, int, int> w = when_all(f, 7);
  EXPECT_EQ(&w.result_reference<0>(), &f.result_reference<0>());
  promise<> gate;
  future<std::atomic<int>, int> t = gate.get_future().then([f] { return f; });
  gate.finalize();
  ASSERT_TRUE(t.ready());
  EXPECT_NE(t.cell(), f.cell()) << "a then() state of its own";
  EXPECT_EQ(&t.result_reference<0>(), &f.result_reference<0>());
  int seen = 0;
  t.then([&seen](const std::atomic<int>& a, int b) { seen = a.load() + b; });
  EXPECT_EQ(seen, 11);
}

TEST(WhenAll, ManyPendingInputs) {
  std::vector<promise<>> ps(50);
  future<> acc = make_future();
  for (auto& p : ps) acc = when_all(acc, p.get_future());
  for (std::size_t i = 0; i < ps.size(); ++i) {
    EXPECT_FALSE(acc.ready());
    ps[i].fulfill_anonymous(1);
  }
  EXPECT_TRUE(acc.ready());
}

TEST(Persona, LpcRunsOnlyInProgressAndReturnsValues) {
  bool ran = false;
  upcxx::current_persona().lpc_ff([&] { ran = true; });
  EXPECT_FALSE(ran) << "never synchronous (spec 10.5.1 ¶17)";
  upcxx::progress(upcxx::progress_level::internal);
  EXPECT_FALSE(ran) << "internal progress runs no user callbacks";
  upcxx::progress();
  EXPECT_TRUE(ran);

  future<int> v = upcxx::current_persona().lpc([] { return 41 + 1; });
  EXPECT_EQ(v.wait(), 42);
  future<std::string> unwrapped = upcxx::master_persona().lpc([] { return make_future(std::string("u")); });
  EXPECT_EQ(unwrapped.wait(), "u");
  future<> nothing = upcxx::current_persona().lpc([] {});
  nothing.wait();
}

namespace {
int g_lpc_target = 3;
}

TEST(Persona, LpcFutureTypeDecaysAllButLvalueReferences) {
  // spec 10.5.1 ¶27: future<U> for an lvalue reference U, else future<std::decay_t<U>>.
  auto by_rvalue = upcxx::current_persona().lpc([]() -> int&& { return std::move(g_lpc_target); });
  static_assert(std::is_same_v<decltype(by_rvalue), future<int>>);
  EXPECT_EQ(by_rvalue.wait(), 3);
  auto by_const = upcxx::current_persona().lpc([]() -> const std::string { return "c"; });
  static_assert(std::is_same_v<decltype(by_const), future<std::string>>);
  EXPECT_EQ(by_const.wait(), "c");
  auto by_lvalue = upcxx::current_persona().lpc([]() -> int& { return g_lpc_target; });
  static_assert(std::is_same_v<decltype(by_lvalue), future<int&>>);
  EXPECT_EQ(&by_lvalue.wait(), &g_lpc_target);
}

TEST(Persona, StackAndMaster) {
  EXPECT_EQ(&upcxx::current_persona(), &upcxx::master_persona()) << "init's thread holds the master";
  EXPECT_TRUE(upcxx::master_persona().active_with_caller());
  EXPECT_TRUE(upcxx::default_persona().active_with_caller());
  upcxx::persona mine;
  EXPECT_FALSE(mine.active_with_caller());
  {
    std::mutex m;
    upcxx::persona_scope scope(m, mine);
    EXPECT_EQ(&upcxx::current_persona(), &mine);
    EXPECT_TRUE(mine.active_with_caller());
    EXPECT_FALSE(m.try_lock()) << "the scope holds the mutex";
  }
  EXPECT_EQ(&upcxx::current_persona(), &upcxx::master_persona());

  // Another thread sends work to this thread's persona; it runs here, in progress.
  int ran_on_main = 0;
  std::thread t([&] {
    EXPECT_FALSE(upcxx::master_persona().active_with_caller());
    EXPECT_EQ(&upcxx::current_persona(), &upcxx::default_persona());
    upcxx::master_persona().lpc_ff([&] { ++ran_on_main; });
  });
  t.join();
  EXPECT_EQ(ran_on_main, 0);
  upcxx::progress();
  EXPECT_EQ(ran_on_main, 1);
}

TEST(Persona, TopAndDefaultScopes) {
  upcxx::persona_scope& bottom = upcxx::default_persona_scope();
  EXPECT_EQ(&upcxx::top_persona_scope(), &bottom) << "no scope of ours yet: the implicit one is on top";
  upcxx::persona mine;
  {
    upcxx::persona_scope outer(mine);
    EXPECT_EQ(&upcxx::top_persona_scope(), &outer);
    auto make = [] { return upcxx::persona_scope(upcxx::default_persona()); };
    upcxx::persona_scope inner = make();  // returned by value: still the top scope
    EXPECT_EQ(&upcxx::top_persona_scope(), &inner);
    EXPECT_EQ(&upcxx::default_persona_scope(), &bottom);
    upcxx::persona_scope moved(std::move(inner));  // the moved-to object takes its place
    EXPECT_EQ(&upcxx::top_persona_scope(), &moved);
    EXPECT_EQ(&upcxx::current_persona(), &upcxx::default_persona());
  }
  EXPECT_EQ(&upcxx::top_persona_scope(), &bottom);
  std::thread t([&] {
    EXPECT_NE(&upcxx::default_persona_scope(), &bottom) << "every thread has its own";
    EXPECT_EQ(&upcxx::top_persona_scope(), &upcxx::default_persona_scope());
  });
  t.join();
}

TEST(Progress, CallsWaitInTheBatchUntilDischarged) {
  static int ran = 0;
  ran = 0;
  upcxx::rpc_ff(upcxx::rank_me(), [] { ++ran; });
  EXPECT_TRUE(upcxx::progress_required());
  EXPECT_TRUE(upcxx::progress_required(upcxx::top_persona_scope()));
  upcxx::discharge(upcxx::default_persona_scope());
  EXPECT_FALSE(upcxx::progress_required());
  EXPECT_EQ(ran, 0) << "a call runs only in user-level progress";
  while (ran == 0) upcxx::progress();
  EXPECT_EQ(ran, 1);
}

TEST(Progress, InProgressInsideCallbacks) {
  EXPECT_FALSE(upcxx::in_progress());
  bool inside = false;
  upcxx::current_persona().lpc_ff([&] { inside = upcxx::in_progress(); });
  upcxx::progress();
  EXPECT_TRUE(inside);
  EXPECT_FALSE(upcxx::in_progress());
  EXPECT_FALSE(upcxx::progress_required());
  upcxx::discharge();
}

TEST(Persona, LiberateAndReacquireTheMaster) {
  ASSERT_EQ(&upcxx::current_persona(), &upcxx::master_persona());
  upcxx::liberate_master_persona();
  EXPECT_EQ(&upcxx::current_persona(), &upcxx::default_persona());
  EXPECT_FALSE(upcxx::master_persona().active_with_caller());
  // Another thread takes the master persona, runs its LPCs, and gives it back.
  int ran = 0;
  upcxx::master_persona().lpc_ff([&] { ++ran; });
  std::mutex m;
  std::thread t([&] {
    upcxx::persona_scope scope(m, upcxx::master_persona());
    EXPECT_EQ(&upcxx::current_persona(), &upcxx::master_persona());
    while (ran == 0) upcxx::progress();
  });
  t.join();
  EXPECT_EQ(ran, 1);
  // Take it back for the rest of the program (finalize); the scope ends after finalize.
  g_master_back.emplace(upcxx::master_persona());
  EXPECT_EQ(&upcxx::current_persona(), &upcxx::master_persona());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new upcxx_env);
  return RUN_ALL_TESTS();
}
