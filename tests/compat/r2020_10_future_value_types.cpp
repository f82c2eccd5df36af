// Futures, promises and completions over every value type UPC++ 2020.10 allows: a table
// whose rows are a value kind (a plain int, a copy-counting type without a default
// constructor, move-only types with and without a default constructor, std::unique_ptr, a
// reference) crossed with an API (make_future, promise fulfilment, then() returning a value,
// a future or nothing, when_all of futures and values, result_reference, result() of an
// rvalue future, multi-value futures, rpc results). Each row checks the values that arrive,
// and for the counting type that nothing was copied where UPC++ moves.
#include <upcxx/upcxx.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "compat_check.hpp"

// The row being run, named in the report of a failed check.
const char* current_kind = "";
const char* current_api = "";
#define ROW_CHECK(cond)                                                                          \
  do {                                                                                           \
    const bool row_ok_ = static_cast<bool>(cond);                                                \
    if (!row_ok_) std::fprintf(stderr, "row [%s] x [%s]: %s\n", current_kind, current_api, #cond); \
    COMPAT_CHECK(row_ok_);                                                                       \
  } while (0)

// ---- the value kinds ----

// Copyable, no default constructor, Serializable; counts its copies and moves.
struct Counted {
  static int copies, moves;
  int v;
  explicit Counted(int x) : v(x) {}
  Counted(const Counted& o) : v(o.v) { ++copies; }
  Counted(Counted&& o) noexcept : v(o.v) { ++moves; }
  Counted& operator=(const Counted&) = delete;
  UPCXX_SERIALIZED_VALUES(v)
};
int Counted::copies = 0;
int Counted::moves = 0;

// Move-only, no default constructor, not trivially copyable, Serializable.
struct Token {
  int v;
  std::string tag;
  Token(int x, std::string t) : v(x), tag(std::move(t)) {}
  Token(Token&&) = default;
  Token(const Token&) = delete;
  Token& operator=(const Token&) = delete;
  UPCXX_SERIALIZED_VALUES(v, tag)
};

// The shape: move-only, no default constructor, trivially copyable (so
// TriviallySerializable).
struct A {
  int v;
  explicit A(int x) : v(x) {}
  A(A&&) = default;
  A(const A&) = delete;
};

// A kind names its value type T, how to make one from an int and read it back, and what
// callbacks receive (spec 5.8.1 p43: U for a reference U, else const U&).
struct k_int {
  using T = int;
  static constexpr const char* name = "int";
  static constexpr bool serializable = true;
  static T make(int x) { return x; }
  static int get(const int& x) { return x; }
};
struct k_counted {
  using T = Counted;
  static constexpr const char* name = "Counted (copy-counting, no default ctor)";
  static constexpr bool serializable = true;
  static T make(int x) { return Counted(x); }
  static int get(const Counted& x) { return x.v; }
};
struct k_token {
  using T = Token;
  static constexpr const char* name = "Token (move-only, no default ctor)";
  static constexpr bool serializable = true;
  static T make(int x) { return Token(x, "t" + std::to_string(x)); }
  static int get(const Token& x) {
    COMPAT_CHECK(x.tag == "t" + std::to_string(x.v));
    return x.v;
  }
};
struct k_a {
  using T = A;
  static constexpr const char* name = "A (move-only, no default ctor, trivial)";
  static constexpr bool serializable = true;
  static T make(int x) { return A(x); }
  static int get(const A& x) { return x.v; }
};
struct k_unique {
  using T = std::unique_ptr<int>;
  static constexpr const char* name = "std::unique_ptr<int>";
  static constexpr bool serializable = false;
  static T make(int x) { return std::make_unique<int>(x); }
  static int get(const std::unique_ptr<int>& p) {
    COMPAT_CHECK(p != nullptr);
    return *p;
  }
};
// A reference: the future refers to one of these slots.
int slots[64];
struct k_ref {
  using T = int&;
  static constexpr const char* name = "int& (reference)";
  static constexpr bool serializable = false;  // an rpc returning int& delivers an int: its own row
  static T make(int x) {
    int& s = slots[x % 64];
    s = x;
    return s;
  }
  static int get(const int& x) { return x; }
};

template <typename K>
using arg_t = std::conditional_t<std::is_reference_v<typename K::T>, typename K::T, const typename K::T&>;
template <typename K>
using decayed_t = std::decay_t<typename K::T>;

// Whether the counting type copied anything since the row began.
void reset_counts() { Counted::copies = Counted::moves = 0; }
bool no_copies() { return Counted::copies == 0; }

void drain(const upcxx::future<>& f) { f.wait(); }

// ---- the APIs (one row each) ----

template <typename K>
void row_make_future() {
  using T = typename K::T;
  upcxx::future<T> f = upcxx::make_future<T>(K::make(11));
  ROW_CHECK(f.ready());
  ROW_CHECK(K::get(f.result_reference()) == 11);
  ROW_CHECK(K::get(f.wait_reference()) == 11);
  // to_future and when_all of a value take the value's decayed type (spec 5.8.1 p73, p76).
  upcxx::future<decayed_t<K>> g = upcxx::to_future(K::make(12));
  ROW_CHECK(K::get(g.template result_reference<0>()) == 12);
  if constexpr (std::is_reference_v<T>) ROW_CHECK(&f.result_reference() == &slots[11]);
  ROW_CHECK(no_copies());
}

template <typename K>
void row_promise() {
  using T = typename K::T;
  // fulfill_result, then the anonymous dependency; a callback attached before either.
  upcxx::promise<T> p(2);
  upcxx::future<T> f = p.get_future();
  int seen = 0;
  upcxx::future<> after = f.then([&seen](arg_t<K> x) { seen = K::get(x); });
  p.fulfill_result(K::make(21));
  ROW_CHECK(!f.ready() && seen == 0);
  p.fulfill_anonymous(1);
  ROW_CHECK(f.ready() && after.ready() && seen == 21);
  ROW_CHECK(K::get(f.result_reference()) == 21);
  // require_anonymous, fulfill_result, finalize.
  upcxx::promise<T> q;
  q.require_anonymous(1);
  q.fulfill_result(K::make(22));
  upcxx::future<T> g = q.finalize();
  ROW_CHECK(g.ready() && K::get(g.result_reference()) == 22);
  ROW_CHECK(no_copies());
}

template <typename K>
void row_then_value() {
  using T = typename K::T;
  auto plus = [](arg_t<K> x) -> T { return K::make(K::get(x) + 1); };
  // On a ready future (runs at once) and on a pending one (runs at fulfilment).
  upcxx::future<T> a = upcxx::make_future<T>(K::make(30)).then(plus);
  ROW_CHECK(a.ready() && K::get(a.result_reference()) == 31);
  upcxx::promise<T> p;
  upcxx::future<T> b = p.get_future().then(plus).then(plus);
  ROW_CHECK(!b.ready());
  p.fulfill_result(K::make(32));
  ROW_CHECK(b.ready() && K::get(b.result_reference()) == 34);
  if constexpr (std::is_reference_v<T>) ROW_CHECK(&b.result_reference() == &slots[34]);
  // A value of another type computed from it.
  upcxx::future<std::string> s = b.then([](arg_t<K> x) { return std::to_string(K::get(x)); });
  ROW_CHECK(s.result() == "34");
  ROW_CHECK(no_copies());
}

template <typename K>
void row_then_future() {
  using T = typename K::T;
  // The callback returns a ready future, then a future that becomes ready later.
  upcxx::promise<T> src;
  upcxx::future<T> a =
      src.get_future().then([](arg_t<K> x) { return upcxx::make_future<T>(K::make(K::get(x) * 2)); });
  upcxx::promise<T> inner;
  upcxx::future<T> inner_f = inner.get_future();
  upcxx::future<T> b = src.get_future().then([inner_f](arg_t<K>) { return inner_f; });
  src.fulfill_result(K::make(20));
  ROW_CHECK(a.ready() && K::get(a.result_reference()) == 40);
  ROW_CHECK(!b.ready());
  inner.fulfill_result(K::make(41));
  ROW_CHECK(b.ready() && K::get(b.result_reference()) == 41);
  // b hands out the inner future's values themselves.
  ROW_CHECK(&b.result_reference() == &inner_f.result_reference());
  // On a ready source.
  upcxx::future<T> c = upcxx::make_future<T>(K::make(42)).then([](arg_t<K> x) {
    return upcxx::make_future<T>(K::make(K::get(x) + 1));
  });
  ROW_CHECK(K::get(c.result_reference()) == 43);
  ROW_CHECK(no_copies());
}

template <typename K>
void row_then_void() {
  using T = typename K::T;
  int seen = 0;
  upcxx::promise<T> p;
  upcxx::future<> done = p.get_future().then([&seen](arg_t<K> x) { seen = K::get(x); });
  ROW_CHECK(!done.ready());
  p.fulfill_result(K::make(50));
  ROW_CHECK(done.ready() && seen == 50);
  upcxx::future<> now = upcxx::make_future<T>(K::make(51)).then([&seen](arg_t<K> x) { seen = K::get(x); });
  ROW_CHECK(now.ready() && seen == 51);
  ROW_CHECK(no_copies());
}

// persona::lpc returning the value: it travels back to the calling persona by move.
template <typename K>
void row_persona_lpc() {
  using T = typename K::T;
  upcxx::future<T> f = upcxx::current_persona().lpc([]() -> T { return K::make(55); });
  ROW_CHECK(K::get(f.wait_reference()) == 55);
  upcxx::future<T> g =
      upcxx::current_persona().lpc([] { return upcxx::make_future<T>(K::make(56)); });  // a future, unwrapped
  ROW_CHECK(K::get(g.wait_reference()) == 56);
  ROW_CHECK(no_copies());
}

template <typename K>
void row_when_all() {
  using T = typename K::T;
  // A value alone (the when_all(A(6))).
  upcxx::future<decayed_t<K>> one = upcxx::when_all(K::make(6));
  ROW_CHECK(one.ready() && K::get(one.result_reference()) == 6);
  // Pending futures, a value, a ready future<int> and a pending future<>.
  upcxx::promise<T> p1;
  upcxx::promise<> gate;
  upcxx::future<T, decayed_t<K>, int> mix = upcxx::when_all(p1.get_future(), K::make(7), upcxx::make_future(3), gate.get_future());
  ROW_CHECK(!mix.ready());
  p1.fulfill_result(K::make(5));
  ROW_CHECK(!mix.ready());
  gate.finalize();
  ROW_CHECK(mix.ready());
  ROW_CHECK(K::get(mix.template result_reference<0>()) == 5);
  ROW_CHECK(K::get(mix.template result_reference<1>()) == 7);
  ROW_CHECK(mix.template result<2>() == 3);
  int sum = 0;
  mix.then([&sum](arg_t<K> a, const decayed_t<K>& b, int c) { sum = K::get(a) + K::get(b) + c; });
  ROW_CHECK(sum == 15);
  // Every input ready (and shared: the inputs live on after the call).
  upcxx::future<T> r1 = upcxx::make_future<T>(K::make(1)), r2 = upcxx::make_future<T>(K::make(2));
  upcxx::future<T, T> both = upcxx::when_all(r1, r2);
  ROW_CHECK(both.ready());
  ROW_CHECK(K::get(both.template result_reference<0>()) == 1 && K::get(both.template result_reference<1>()) == 2);
  ROW_CHECK(K::get(r1.result_reference()) == 1);  // the input is untouched
  // Nested: a when_all of a when_all.
  upcxx::future<T, T, decayed_t<K>> three = upcxx::when_all(both, upcxx::when_all(K::make(9)));
  ROW_CHECK(K::get(three.template result_reference<2>()) == 9);
  if constexpr (std::is_reference_v<T>) ROW_CHECK(&three.template result_reference<0>() == &slots[1]);
  ROW_CHECK(no_copies());
}

template <typename K>
void row_result_rvalue() {
  using T = typename K::T;
  using D = decayed_t<K>;
  // The only handle on its values: they are moved out, not copied.
  upcxx::future<T> f = upcxx::make_future<T>(K::make(60));
  D v = std::move(f).result();
  ROW_CHECK(K::get(v) == 60);
  upcxx::promise<T> p;
  upcxx::future<T> g = p.get_future();
  p.fulfill_result(K::make(61));
  p = upcxx::promise<T>();  // the state's only other holder goes away
  D w = std::move(g).wait();
  ROW_CHECK(K::get(w) == 61);
  std::tuple<D> t = upcxx::make_future<T>(K::make(62)).wait_tuple();
  ROW_CHECK(K::get(std::get<0>(t)) == 62);
  ROW_CHECK(no_copies());
  if constexpr (std::is_copy_constructible_v<D> && !std::is_reference_v<T>) {
    // Shared with another future: a copy, and the other future keeps its value.
    upcxx::future<T> h = upcxx::make_future<T>(K::make(63));
    upcxx::future<T> keep = h;
    D x = std::move(h).result();
    ROW_CHECK(K::get(x) == 63 && K::get(keep.result_reference()) == 63);
    // An lvalue future copies (spec 5.8.1 p19).
    D y = keep.result();
    ROW_CHECK(K::get(y) == 63);
    if constexpr (std::is_same_v<D, Counted>) ROW_CHECK(Counted::copies == 2);
  }
}

template <typename K>
void row_multi_value() {
  using T = typename K::T;
  upcxx::future<T, int> f = upcxx::make_future<T, int>(K::make(70), 71);
  ROW_CHECK(K::get(f.template result_reference<0>()) == 70 && f.template result<1>() == 71);
  upcxx::promise<T, int> p;
  upcxx::future<int> sum = p.get_future().then([](arg_t<K> a, int b) { return K::get(a) + b; });
  p.fulfill_result(K::make(72), 73);
  ROW_CHECK(sum.result() == 145);
  auto refs = p.get_future().result_reference();  // std::tuple<arg_t<K>, const int&>
  static_assert(std::is_same_v<decltype(refs), std::tuple<arg_t<K>, const int&>>);
  ROW_CHECK(K::get(std::get<0>(refs)) == 72 && std::get<1>(refs) == 73);
  // A callback returning a multi-value future.
  upcxx::future<T, int> g = upcxx::make_future(5).then([](int x) { return upcxx::make_future<T, int>(K::make(x), x + 1); });
  ROW_CHECK(K::get(g.template result_reference<0>()) == 5 && g.template result<1>() == 6);
  ROW_CHECK(no_copies());
}

// An rpc whose body returns the kind's (decayed) value: by value, as a future (ready, or
// readied later by an LPC), and as a reference into the target's dist_object.
template <typename K>
void row_rpc() {
  using D = decayed_t<K>;
  const int me = upcxx::rank_me(), peer = (me + 1) % upcxx::rank_n();
  upcxx::future<D> byval = upcxx::rpc(peer, [](int x) { return K::make(x); }, 80 + me);
  ROW_CHECK(K::get(byval.wait_reference()) == 80 + me);
  upcxx::future<D> fut = upcxx::rpc(peer, [](int x) { return upcxx::make_future<D>(K::make(x)); }, 81);
  ROW_CHECK(K::get(fut.wait_reference()) == 81);
  upcxx::future<D> later = upcxx::rpc(
      peer,
      [](int x) {
        upcxx::promise<D> p;
        upcxx::current_persona().lpc_ff([p, x] { p.fulfill_result(K::make(x)); });
        return p.get_future();
      },
      82);
  ROW_CHECK(K::get(later.wait_reference()) == 82);
  // Several values, one of them the kind's.
  upcxx::future<D, int> two = upcxx::rpc(peer, [](int x) { return upcxx::make_future<D, int>(K::make(x), -x); }, 83);
  two.wait_reference();  // (wait() would copy the values out)
  ROW_CHECK(K::get(two.template result_reference<0>()) == 83 && two.template result<1>() == -83);
  // Moved out at the end (a move-only value in hand).
  D out = upcxx::rpc(peer, [](int x) { return K::make(x); }, 84).wait();
  ROW_CHECK(K::get(out) == 84);
  // Into a promise instead of a future.
  upcxx::promise<D> pro;
  upcxx::rpc(peer, upcxx::operation_cx::as_promise(pro), [](int x) { return K::make(x); }, 85);
  ROW_CHECK(K::get(pro.finalize().wait_reference()) == 85);
  // To an LPC, which takes the value by value (moved in).
  int got = 0;
  upcxx::rpc(peer, upcxx::operation_cx::as_lpc(upcxx::current_persona(), [&got](D v) { got = K::get(v); }),
             [](int x) { return K::make(x); }, 86);
  while (got == 0) upcxx::progress();
  ROW_CHECK(got == 86);
  ROW_CHECK(no_copies());
  if constexpr (std::is_copy_constructible_v<D>) {
    // A future and a promise both receive the value: one of them gets a copy.
    upcxx::promise<D> both;
    upcxx::future<D> f2 = upcxx::rpc(peer, upcxx::operation_cx::as_future() | upcxx::operation_cx::as_promise(both),
                                     [](int x) { return K::make(x); }, 87);
    ROW_CHECK(K::get(f2.wait_reference()) == 87 && K::get(both.finalize().wait_reference()) == 87);
    if constexpr (std::is_same_v<D, Counted>) ROW_CHECK(Counted::copies == 1);
  }
}

// rpc returning a reference to a value its target keeps: delivered as a value, never copied
// at either end (UPC++ 2020.10: "non-copyable types can be returned from RPC by reference").
template <typename K>
void row_rpc_reference(upcxx::dist_object<decayed_t<K>>& keep) {
  using D = decayed_t<K>;
  const int peer = (upcxx::rank_me() + 1) % upcxx::rank_n();
  upcxx::future<D> f = upcxx::rpc(peer, [](upcxx::dist_object<D>& d) -> const D& { return *d; }, keep);
  ROW_CHECK(K::get(f.wait_reference()) == 1000 + peer);
  ROW_CHECK(no_copies());
}

// Collectives' value forms: broadcast and reductions of a TriviallySerializable value (here
// possibly move-only), broadcast_nontrivial of any Serializable one. Collective: every rank
// runs the table's rows in the same order.
template <typename K>
void row_collectives() {
  using D = decayed_t<K>;
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  if constexpr (upcxx::is_trivially_serializable<D>::value) {
    upcxx::future<D> b = upcxx::broadcast(K::make(90 + me), n - 1);
    ROW_CHECK(K::get(b.wait_reference()) == 90 + n - 1);
    upcxx::future<D> r = upcxx::reduce_all(K::make(me), [](const D& x, const D& y) { return K::make(K::get(x) + K::get(y)); });
    ROW_CHECK(K::get(r.wait_reference()) == n * (n - 1) / 2);
  }
  upcxx::future<D> bn = upcxx::experimental::broadcast_nontrivial(K::make(95 + me), 0);
  ROW_CHECK(K::get(bn.wait_reference()) == 95);
  ROW_CHECK(no_copies());
}

// ---- the table ----

struct row {
  const char* kind;
  const char* api;
  void (*run)();
};

template <typename K>
void add_rows(std::vector<row>& table) {
  table.push_back({K::name, "make_future / to_future", &row_make_future<K>});
  table.push_back({K::name, "promise fulfill_result / fulfill_anonymous / finalize", &row_promise<K>});
  table.push_back({K::name, "then returning a value", &row_then_value<K>});
  table.push_back({K::name, "then returning a future", &row_then_future<K>});
  table.push_back({K::name, "then returning nothing", &row_then_void<K>});
  table.push_back({K::name, "persona::lpc returning it", &row_persona_lpc<K>});
  table.push_back({K::name, "when_all of futures and values", &row_when_all<K>});
  table.push_back({K::name, "result()/wait() of an rvalue future", &row_result_rvalue<K>});
  table.push_back({K::name, "multi-value futures", &row_multi_value<K>});
  if constexpr (K::serializable) table.push_back({K::name, "rpc returning it", &row_rpc<K>});
  if constexpr (K::serializable) table.push_back({K::name, "broadcast / reduce_all", &row_collectives<K>});
}

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();

  std::vector<row> table;
  add_rows<k_int>(table);
  add_rows<k_counted>(table);
  add_rows<k_token>(table);
  add_rows<k_a>(table);
  add_rows<k_unique>(table);
  add_rows<k_ref>(table);

  for (const row& r : table) {
    current_kind = r.kind;
    current_api = r.api;
    reset_counts();
    r.run();
  }
  current_kind = "Counted, Token, A";
  current_api = "rpc returning a reference into a dist_object";

  // Rows that need collective set-up: values kept in dist_objects, returned by reference.
  upcxx::dist_object<Counted> kc(upcxx::world(), 1000 + me);
  upcxx::dist_object<Token> kt(upcxx::world(), 1000 + me, "t" + std::to_string(1000 + me));
  upcxx::dist_object<A> ka(upcxx::world(), 1000 + me);
  reset_counts();
  row_rpc_reference<k_counted>(kc);
  row_rpc_reference<k_token>(kt);
  row_rpc_reference<k_a>(ka);
  // A reference-returning rpc of an int: the future carries an int.
  slots[3] = 300 + me;
  upcxx::barrier();
  upcxx::future<int> ri = upcxx::rpc((me + 1) % upcxx::rank_n(), []() -> int& { return slots[3]; });
  COMPAT_CHECK(ri.wait() == 300 + (me + 1) % upcxx::rank_n());

  upcxx::barrier();
  if (me == 0) std::printf("%zu rows\nr2020_10_future_value_types: OK\n", table.size() + 4);
  upcxx::finalize();
  return 0;
}
