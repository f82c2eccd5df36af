// Futures (spec chapter 5): make_future, to_future, when_all, and future<T...> with ready,
// result*, wait*, then.
//
// A future is a handle; copies share one state. Representations, cheapest first:
//   ready, values inline   cell_ == nullptr; small trivially copyable values live in the
//                          future itself (future<> has none). No allocation, so eager
//                          completions and make_future() cost nothing.
//   never ready            cell_ == never_cell(): a default-constructed future.
//   shared cell            anything else: a reference-counted value_cell (detail/future_cell.hpp).
//
// Values (spec §5.8): any complete type that is not void, references included. Nothing is
// default-constructed, so a type without a default constructor, a move-only type and
// future<T&> all work. Values are moved into a future (make_future, when_all of values,
// fulfill_result, a callback's result, an RPC's reply), never copied; a future hands them
// out by reference (result_reference, then-callbacks: U for a reference U, else const U&);
// result(), wait() and result_tuple() copy them, except on an rvalue future that is the only
// handle on its values, which moves them out (a type that cannot be copied is always moved).
//
// Callbacks given to then() run immediately if the future is ready, otherwise on the thread
// that makes the future ready — for futures returned by communication, inside user-level
// progress of the initiating persona (spec §5.5, §10.5). wait*() makes user-level progress
// until the future is ready. Futures and promises are not thread-safe: one persona's
// futures are used by one thread at a time (spec §5.7).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/detail/compat.hpp"
#include "upcxx/detail/future_cell.hpp"
#include "upcxx/init.hpp"

namespace upcxx {

template <typename... T>
class future;

// True inside the restricted context (spec §10.2); declared with the personas in
// persona.hpp, which includes this header.
bool in_progress();

namespace detail {

struct adopt_cell_t {};
inline constexpr adopt_cell_t adopt_cell{};

template <typename X>
struct is_future : std::false_type {};
template <typename... T>
struct is_future<future<T...>> : std::true_type {};
template <typename X>
inline constexpr bool is_future_v = is_future<detail::remove_cvref_t<X>>::value;

// The future of a decayed callback result R: future<R>, future<> for void, and a returned
// future unwrapped (spec §5.8.1 ¶49-51).
template <typename R>
struct future_of {
  using type = future<R>;
};
template <>
struct future_of<void> {
  using type = future<>;
};
template <typename... U>
struct future_of<future<U...>> {
  using type = future<U...>;
};

// The future then() returns for a callback returning R: an lvalue reference stays one
// (future<U&>, a reference to the callback's referent), anything else decays (a returned
// `const A` or `A&&` gives future<A>), a future (or a reference to one) is unwrapped.
template <typename R, bool = std::is_lvalue_reference_v<R> && !is_future_v<R>>
struct then_future {
  using type = typename future_of<remove_cvref_t<R>>::type;
};
template <typename R>
struct then_future<R, true> {
  using type = future<R>;
};
template <typename R>
using then_future_t = typename then_future<R>::type;

// Concatenates the value types of when_all's arguments.
template <typename... Fs>
struct concat_future;
template <>
struct concat_future<> {
  using type = future<>;
};
template <typename... A>
struct concat_future<future<A...>> {
  using type = future<A...>;
};
template <typename... A, typename... B, typename... Rest>
struct concat_future<future<A...>, future<B...>, Rest...> {
  using type = typename concat_future<future<A..., B...>, Rest...>::type;
};

template <typename X>
struct as_future_type {
  using type = future<detail::remove_cvref_t<X>>;
};
template <typename... T>
struct as_future_type<future<T...>> {
  using type = future<T...>;
};
template <typename X>
using as_future_t = typename as_future_type<detail::remove_cvref_t<X>>::type;

// Whether result(), wait() and result_tuple() may copy a value of type U out of a future.
template <typename U>
inline constexpr bool copyable_result_v = std::is_reference_v<U> || std::is_copy_constructible_v<U>;

void wait_for_cell(const cell_base* c);  // user-level progress until c is ready (progress.cpp)
// Debug codemode: reports that `what` was called in the restricted context (spec §10.2),
// where it may not be, and aborts.
[[noreturn]] void fail_restricted(const char* what);

}  // namespace detail

#define UPCXX_DETAIL_COPYABLE_RESULT_MSG                                                                    \
  "upcxx::future: result(), wait() and result_tuple() return a copy, and this value type is not "         \
  "CopyConstructible (spec 5.8.1 p19): use result_reference() or wait_reference(), a then() callback that " \
  "takes const&, or std::move(fut).result() to move the value out"

template <typename... T>
class future {
 public:
  using results_type = std::tuple<T...>;

  future() noexcept : cell_(detail::never_cell()) {}
  future(const future& o) noexcept : cell_(o.cell_) {
    if (detail::is_real_cell(cell_)) cell_->add_ref();
    copy_inline(o);
  }
  future(future&& o) noexcept : cell_(o.cell_) {
    copy_inline(o);
    o.cell_ = detail::never_cell();
  }
  future& operator=(const future& o) noexcept {
    if (detail::is_real_cell(o.cell_)) o.cell_->add_ref();
    release();
    cell_ = o.cell_;
    copy_inline(o);
    return *this;
  }
  future& operator=(future&& o) noexcept {
    if (this != &o) {
      release();
      cell_ = o.cell_;
      copy_inline(o);
      o.cell_ = detail::never_cell();
    }
    return *this;
  }
  ~future() { release(); }

  // Whether the results are available. is_ready() is the name UPC++ 2023.9 gave it (UPC++
  // specification issue 206); ready() is the original spelling, kept for the programs that
  // use it.
  bool is_ready() const noexcept {
    return cell_ == nullptr || (detail::is_real_cell(cell_) && cell_->ready());
  }
  bool ready() const noexcept { return is_ready(); }

  // ---- results (precondition: ready()) ----
  // On an lvalue future they are copies; on an rvalue future they are moved out when no
  // other future, promise or dependent state shares them (spec §5.8.1 ¶15-25).
  results_type result_tuple() const& {
    static_assert(detail::value_size_ok<results_type>,
                  UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::future::result()/wait() of an lvalue future",
                                              "result_reference() or wait_reference()"));
    static_assert((detail::copyable_result_v<T> && ...), UPCXX_DETAIL_COPYABLE_RESULT_MSG);
    return copy_tuple(std::index_sequence_for<T...>{});
  }
  results_type result_tuple() && { return take_tuple(std::index_sequence_for<T...>{}); }

  template <int I = -1>
  decltype(auto) result() const& {
    if constexpr (I == -1 && sizeof...(T) == 0) {
      return;
    } else if constexpr (I == -1 && sizeof...(T) > 1) {
      return result_tuple();
    } else if constexpr (I >= -1 && I < static_cast<int>(sizeof...(T))) {
      constexpr std::size_t i = I == -1 ? 0 : static_cast<std::size_t>(I);
      using U = std::tuple_element_t<i, results_type>;
      static_assert(detail::value_size_ok<U>,
                    UPCXX_DETAIL_VALUE_SIZE_MSG("upcxx::future::result()/wait() of an lvalue future",
                                                "result_reference() or wait_reference()"));
      static_assert(detail::copyable_result_v<U>, UPCXX_DETAIL_COPYABLE_RESULT_MSG);
      return U(std::get<i>(result_reference_tuple()));
    } else {
      return;
    }
  }
  template <int I = -1>
  decltype(auto) result() && {
    if constexpr (I == -1 && sizeof...(T) == 0) {
      return;
    } else if constexpr (I == -1 && sizeof...(T) > 1) {
      return take_tuple(std::index_sequence_for<T...>{});
    } else if constexpr (I >= -1 && I < static_cast<int>(sizeof...(T))) {
      constexpr std::size_t i = I == -1 ? 0 : static_cast<std::size_t>(I);
      return take<i>();
    } else {
      return;
    }
  }

  // References to the values, valid while this future (or a copy of it) lives: U for a
  // reference type U, const U& otherwise (spec §5.8.1 ¶26-39).
  template <int I = -1>
  decltype(auto) result_reference() const {
    if constexpr (I == -1 && sizeof...(T) == 0) {
      return;
    } else if constexpr (I == -1 && sizeof...(T) > 1) {
      return result_reference_tuple();
    } else if constexpr (I >= -1 && I < static_cast<int>(sizeof...(T))) {
      constexpr std::size_t i = I == -1 ? 0 : static_cast<std::size_t>(I);
      return static_cast<detail::cref_t<std::tuple_element_t<i, results_type>>>(
          std::get<i>(result_reference_tuple()));
    } else {
      return;
    }
  }
  // All of them as a tuple of references (the reference implementation's name).
  std::tuple<detail::cref_t<T>...> result_reference_tuple() const noexcept {
    if constexpr (sizeof...(T) == 0) {
      return {};
    } else {
      check_ready();
      if constexpr (inline_ok)
        if (cell_ == nullptr) return detail::refs_of(vals_.get());
      return static_cast<const detail::value_cell<T...>*>(cell_)->value_refs();
    }
  }

  // ---- waiting (user-level progress; not from the restricted context) ----
  results_type wait_tuple() const& {
    wait_ready();
    return result_tuple();
  }
  results_type wait_tuple() && {
    wait_ready();
    return std::move(*this).result_tuple();
  }
  template <int I = -1>
  decltype(auto) wait() const& {
    wait_ready();
    return result<I>();
  }
  template <int I = -1>
  decltype(auto) wait() && {
    wait_ready();
    return std::move(*this).template result<I>();
  }
  template <int I = -1>
  decltype(auto) wait_reference() const {
    wait_ready();
    return result_reference<I>();
  }

  // ---- chaining ----
  // func is called with the values as U for a reference U, else const U& (spec §5.8.1 ¶43).
  template <typename Func>
  detail::then_future_t<std::invoke_result_t<std::decay_t<Func>&, detail::cref_t<T>...>> then(Func&& func) const;

  // Internal: adopt one reference to a cell (not API).
  future(detail::adopt_cell_t, detail::cell_base* c) noexcept : cell_(c) {}
  // Internal: a ready future holding T(values)... (inline when they fit, else in a new cell).
  template <typename... U>
  static future make_ready(U&&... values);
  detail::cell_base* cell() const noexcept { return cell_; }
  static constexpr bool inline_ok = detail::inline_values_ok<T...>;
  // Internal: whether nothing but this (ready) future can see its values — they are inline,
  // or in a state that holds them itself and that only this future holds — so that they may
  // be moved out.
  bool values_unshared() const noexcept {
    if constexpr (inline_ok)
      if (cell_ == nullptr) return true;
    if constexpr (sizeof...(T) == 0) {
      return true;
    } else {
      auto* c = static_cast<const detail::value_cell<T...>*>(cell_);
      return c->refs == 1 && c->borrowed == nullptr;
    }
  }
  // Internal: the values as rvalues (references stay references). Precondition:
  // values_unshared().
  std::tuple<T&&...> value_rvalues() noexcept {
    if constexpr (sizeof...(T) == 0) {
      return {};
    } else {
      if constexpr (inline_ok)
        if (cell_ == nullptr) return rvalues_of(vals_.get(), std::index_sequence_for<T...>{});
      return rvalues_of(static_cast<detail::value_cell<T...>*>(cell_)->owned(), std::index_sequence_for<T...>{});
    }
  }

 private:
  using inline_type = std::conditional_t<inline_ok, detail::inline_values<T...>, detail::no_inline_values>;

  // Inline values are meaningful only while cell_ is null; copying them otherwise would
  // read uninitialized bytes.
  void copy_inline(const future& o) noexcept {
    // memcpy, not struct assignment: the bytes hold a tuple<T...>, and only a byte copy
    // may read an object through another type (GCC's aliasing analysis otherwise drops it).
    if constexpr (inline_ok)
      if (o.cell_ == nullptr) std::memcpy(vals_.bytes, o.vals_.bytes, sizeof vals_.bytes);
  }
  void release() noexcept {
    if (detail::is_real_cell(cell_)) cell_->drop_ref();
  }
  void wait_ready() const {
    if (ready()) return;
#if UPCXX_ASSERT_ENABLED
    // spec §5.8.1 ¶58, ¶63, ¶67: the progress it would need cannot happen there, so the
    // wait would never end. (A ready future returns at once and is let through.)
    if (UPCXX_DETAIL_UNLIKELY(in_progress()))
      detail::fail_restricted("future::wait()");
#endif
    detail::wait_for_cell(cell_);
  }

  // Precondition of every result accessor (spec §5.8.1 ¶16, ¶19, ¶27); checked in debug codemode.
  void check_ready() const noexcept {
#if UPCXX_ASSERT_ENABLED
    if (UPCXX_DETAIL_UNLIKELY(!is_ready()))
      detail::fail_at(__FILE__, __LINE__,
                      "upcxx::future: result(), result_reference() or result_tuple() called on a future that is "
                      "not ready (spec 5.8.1): call wait() instead, or use then() to run code once it is ready");
#endif
  }

  template <std::size_t... I>
  static std::tuple<T&&...> rvalues_of(results_type& t, std::index_sequence<I...>) noexcept {
    return std::tuple<T&&...>(std::get<I>(std::move(t))...);
  }
  template <std::size_t... I>
  results_type copy_tuple(std::index_sequence<I...>) const {
    [[maybe_unused]] auto refs = result_reference_tuple();
    return results_type(std::get<I>(refs)...);
  }
  template <std::size_t... I>
  results_type take_tuple(std::index_sequence<I...>) {
    return results_type(take<I>()...);
  }
  // Value I, moved out when this future is the only handle on values its state holds itself
  // (nothing else can observe them), else copied. A type that cannot be copied is moved
  // out in any case: UPC++ would not compile the call, and moving is what `std::move(fut)`
  // asks for (docs/compatibility.md).
  template <std::size_t I>
  std::tuple_element_t<I, results_type> take() {
    using U = std::tuple_element_t<I, results_type>;
    if constexpr (std::is_reference_v<U>) {
      return std::get<I>(result_reference_tuple());
    } else if constexpr (!std::is_copy_constructible_v<U>) {
      // The values are objects of type U constructed in raw storage (a const U does not
      // get here: it cannot be moved from), so moving from them through the const view is
      // valid.
      return U(std::move(const_cast<U&>(std::get<I>(result_reference_tuple()))));
    } else {
      if (values_unshared()) return U(std::get<I>(value_rvalues()));
      return U(std::get<I>(result_reference_tuple()));
    }
  }

  detail::cell_base* cell_;
  [[no_unique_address]] inline_type vals_;
};
#undef UPCXX_DETAIL_COPYABLE_RESULT_MSG

static_assert(sizeof(future<>) == sizeof(void*));
static_assert(sizeof(future<double>) == 2 * sizeof(void*));

template <typename... T>
template <typename... U>
future<T...> future<T...>::make_ready(U&&... values) {
  if constexpr (sizeof...(T) == 0) {
    return future(detail::adopt_cell, nullptr);
  } else if constexpr (inline_ok) {
    future f(detail::adopt_cell, nullptr);
    ::new (static_cast<void*>(f.vals_.bytes)) results_type(std::forward<U>(values)...);
    return f;
  } else {
    auto* c = new detail::value_cell<T...>();
    c->emplace(std::forward<U>(values)...);
    c->deps = 0;
    return future(detail::adopt_cell, c);
  }
}

// The results are moved into the future (spec §5.8.1 ¶10-12); make_future<T&>(x) refers to x.
template <typename... T>
future<T...> make_future(T... results) {
  return future<T...>::make_ready(static_cast<T&&>(results)...);
}

template <typename T>
detail::as_future_t<T> to_future(T&& future_or_value) {
  if constexpr (detail::is_future_v<T>) return std::forward<T>(future_or_value);
  else return detail::as_future_t<T>::make_ready(std::forward<T>(future_or_value));
}

namespace detail {

// Ready future from the elements of a tuple (moved from an rvalue tuple).
template <typename Fut, typename Tuple>
Fut ready_from_tuple(Tuple&& t) {
  return std::apply([](auto&&... v) { return Fut::make_ready(std::forward<decltype(v)>(v)...); },
                    std::forward<Tuple>(t));
}

// Runs `fn` on `args` (a tuple of the references a callback receives) and turns its result
// into the future then() returns. `kind` names the callback for the debug-codemode report
// of an exception escaping it (see guard_callback).
template <typename Fut, typename Fn, typename Tuple>
Fut invoke_to_future(Fn& fn, const Tuple& args, const char* kind = "a future::then() callback") {
  using R = decltype(std::apply(fn, args));
  auto call = [&]() -> decltype(auto) { return std::apply(fn, args); };
  if constexpr (std::is_void_v<R>) {
    guard_callback(kind, call);
    return Fut::make_ready();
  } else if constexpr (is_future_v<R>) {
    return guard_callback(kind, call);
  } else {
    return Fut::make_ready(guard_callback(kind, call));  // a returned value moves in
  }
}

// A cell whose values are those of another future, `inner` (a then() whose callback
// returned a future): it hands out references into inner's state rather than copies.
template <typename... R>
struct proxy_cell : value_cell<R...> {
  future<R...> inner;

  static typename value_cell<R...>::refs_type inner_refs(const value_cell<R...>* c) noexcept {
    return static_cast<const proxy_cell*>(c)->inner.result_reference_tuple();
  }
  void borrow_inner() noexcept {
    if constexpr (sizeof...(R) > 0) this->borrowed = &proxy_cell::inner_refs;
  }
  // Once inner is ready. Values nothing else can see are moved here and inner let go;
  // otherwise this proxy refers past any chain of proxies to the state that holds the
  // values, so an asynchronous recursion (each level's then() returning the next level's
  // future) keeps two states allocated, not one per level.
  void settle() {
    if constexpr (sizeof...(R) == 0) {
      inner = future<>();
    } else {
      if constexpr ((std::is_move_constructible_v<R> && ...)) {
        if (inner.values_unshared()) {
          this->emplace_tuple(inner.value_rvalues());
          this->borrowed = nullptr;
          inner = future<R...>();
          return;
        }
      }
      while (is_real_cell(inner.cell())) {
        auto* c = static_cast<value_cell<R...>*>(inner.cell());
        if (c->borrowed != &proxy_cell::inner_refs) break;
        future<R...> deeper = static_cast<proxy_cell*>(c)->inner;  // before c may go away
        inner = std::move(deeper);
      }
    }
  }
};

// The state of `src.then(fn)`: a listener on src until it is ready, then the callback's
// result — a value constructed in place, or the future it returned (see proxy_cell).
template <typename Fut, typename Fn, typename... T>
struct then_cell;

template <typename... R, typename Fn, typename... T>
struct then_cell<future<R...>, Fn, T...> : proxy_cell<R...> {
  struct hook : listener {
    then_cell* owner;
  };
  using ret = decltype(std::apply(std::declval<Fn&>(), std::declval<std::tuple<cref_t<T>...>>()));
  hook on_src, on_inner;
  Fn fn;
  cell_base* src;

  template <typename F>
  then_cell(cell_base* source, F&& f) : fn(std::forward<F>(f)), src(source) {
    this->destroy_fn = &then_cell::destroy;
    src->add_ref();
    this->add_ref();  // held by the pending listener until it fires
    on_src.owner = this;
    on_src.fire = &then_cell::src_ready;
    src->listen(&on_src);
  }
  static void destroy(cell_base* c) { delete static_cast<then_cell*>(c); }

  static void src_ready(listener* l) {
    then_cell* self = static_cast<hook*>(l)->owner;
    const auto args = static_cast<value_cell<T...>*>(self->src)->value_refs();
    constexpr const char* kind = "a future::then() callback";
    auto call = [&]() -> decltype(auto) { return std::apply(self->fn, args); };
    if constexpr (std::is_void_v<ret>) {
      guard_callback(kind, call);
    } else if constexpr (!is_future_v<ret>) {
      self->emplace(guard_callback(kind, call));  // the returned value, constructed in place
    } else {
      self->inner = guard_callback(kind, call);
    }
    self->src->drop_ref();
    self->src = nullptr;
    if constexpr (is_future_v<ret>) {
      self->borrow_inner();
      if (!self->inner.ready()) {
        // fn returned a pending future: become ready when it does (spec §5.8.1 ¶49).
        if (!is_real_cell(self->inner.cell())) {  // never ready: neither are we
          self->drop_ref();
          return;
        }
        self->on_inner.owner = self;
        self->on_inner.fire = &then_cell::inner_ready;
        self->inner.cell()->listen(&self->on_inner);
        return;
      }
    }
    self->finish();
  }
  static void inner_ready(listener* l) { static_cast<hook*>(l)->owner->finish(); }
  void finish() {
    if constexpr (is_future_v<ret>) this->settle();
    this->add_ref();  // fulfilling may run callbacks that drop the last outside reference
    this->fulfill(1);
    this->drop_ref();
    this->drop_ref();  // the pending listener's reference
  }
};

}  // namespace detail

template <typename... T>
template <typename Func>
detail::then_future_t<std::invoke_result_t<std::decay_t<Func>&, detail::cref_t<T>...>> future<T...>::then(
    Func&& func) const {
  using result_future = detail::then_future_t<std::invoke_result_t<std::decay_t<Func>&, detail::cref_t<T>...>>;
  if (ready()) {
    std::decay_t<Func> fn(std::forward<Func>(func));
    return detail::invoke_to_future<result_future>(fn, result_reference_tuple());
  }
  if (!detail::is_real_cell(cell_)) return result_future();  // never ready
  auto* c = new detail::then_cell<result_future, std::decay_t<Func>, T...>(cell_, std::forward<Func>(func));
  return result_future(detail::adopt_cell, c);
}

// ---- when_all (spec §5.8.1 ¶69) -----------------------------------------------------

namespace detail {

// The state of a when_all() of several futures: it keeps the inputs that carry values and
// hands out references into them (as the reference implementation does), so no value is
// copied and values that cannot be copied work. Inputs whose values only it can see have
// them moved in instead; valueless inputs are let go once ready.
template <typename Fut, typename... Fs>
struct when_all_cell;

template <typename... R, typename... Fs>
struct when_all_cell<future<R...>, Fs...> : value_cell<R...> {
  struct hook : listener {
    when_all_cell* owner;
  };
  std::tuple<Fs...> inputs;
  hook hooks[sizeof...(Fs)];
  std::intptr_t pending = 0;

  explicit when_all_cell(std::tuple<Fs...>&& in) : inputs(std::move(in)) {
    this->destroy_fn = &when_all_cell::destroy;
    if constexpr (sizeof...(R) > 0) this->borrowed = &when_all_cell::input_refs;
    this->add_ref();  // held until the last input is ready
    pending = 1;      // guards against finishing while listeners are still being attached
    attach(std::index_sequence_for<Fs...>{});
    arrive();
  }
  static void destroy(cell_base* c) { delete static_cast<when_all_cell*>(c); }

  static typename value_cell<R...>::refs_type input_refs(const value_cell<R...>* c) noexcept {
    return std::apply([](const Fs&... f) { return std::tuple_cat(f.result_reference_tuple()...); },
                      static_cast<const when_all_cell*>(c)->inputs);
  }

  template <std::size_t... I>
  void attach(std::index_sequence<I...>) {
    (attach_one(std::get<I>(inputs), hooks[I]), ...);
  }
  template <typename F>
  void attach_one(const F& f, hook& h) {
    if (f.ready()) return;
    ++pending;
    if (!is_real_cell(f.cell())) return;  // a never-ready input: never arrives
    h.owner = this;
    h.fire = [](listener* l) { static_cast<hook*>(l)->owner->arrive(); };
    f.cell()->listen(&h);
  }
  void arrive() {
    if (--pending != 0) return;
    if constexpr (sizeof...(R) > 0 && (std::is_move_constructible_v<R> && ...)) {
      // Values no other future can see are moved here, and every input let go.
      if (std::apply([](const Fs&... f) { return (f.values_unshared() && ...); }, inputs)) {
        this->emplace_tuple(std::apply([](Fs&... f) { return std::tuple_cat(f.value_rvalues()...); }, inputs));
        this->borrowed = nullptr;
      }
    }
    // Drop the inputs' references that are not needed any more (a `f = when_all(f, op())`
    // loop must not keep a chain of every earlier state alive).
    drop_unneeded(std::index_sequence_for<Fs...>{});
    this->add_ref();
    this->fulfill(1);
    this->drop_ref();
    this->drop_ref();  // the listeners' reference
  }
  template <std::size_t... I>
  void drop_unneeded(std::index_sequence<I...>) {
    (drop_if_unneeded(std::get<I>(inputs)), ...);
  }
  template <typename F>
  void drop_if_unneeded(F& f) {
    if constexpr (sizeof...(R) > 0 && std::tuple_size_v<typename F::results_type> > 0)
      if (this->borrowed) return;  // the values are handed out from this input
    f = F();
  }
};

// Returns the argument at position `which`, which has type Result.
template <typename Result, std::size_t I, typename F, typename... Rest>
Result pick_input(std::size_t which, F&& f, Rest&&... rest) {
  if constexpr (std::is_same_v<detail::remove_cvref_t<F>, Result>) {
    if (I == which || sizeof...(Rest) == 0) return Result(std::forward<F>(f));
  }
  if constexpr (sizeof...(Rest) > 0) return pick_input<Result, I + 1>(which, std::forward<Rest>(rest)...);
  else return Result();  // unreachable: the single contributor always has the result type
}

template <typename Result, typename... Fs>
Result when_all_futures(Fs&&... fs) {
  // "Optimization of Asynchronous Communication Operations through Eager Notifications"
  // §III-C: when at most one input is pending or carries values and every other input is a
  // ready future<>, those others add nothing: the result is that input itself (same type,
  // necessarily), so no cell is allocated.
  constexpr std::size_t n = sizeof...(Fs);
  const bool ready[n] = {fs.ready()...};
  constexpr bool valueless[n] = {(std::tuple_size_v<typename detail::remove_cvref_t<Fs>::results_type> == 0)...};
  std::size_t contributing = 0, which = 0;
  bool all_ready = true;
  for (std::size_t i = 0; i < n; ++i) {
    all_ready = all_ready && ready[i];
    if (!ready[i] || !valueless[i]) {
      ++contributing;
      which = i;
    }
  }
  if constexpr (std::tuple_size_v<typename Result::results_type> == 0)  // else one input has values
    if (contributing == 0) return Result::make_ready();
  if (contributing == 1) return pick_input<Result, 0>(which, std::forward<Fs>(fs)...);
  // Small trivially copyable values: a ready result keeps copies inline, no allocation.
  if constexpr (Result::inline_ok)
    if (all_ready) return ready_from_tuple<Result>(std::tuple_cat(fs.result_reference_tuple()...));
  // A default-constructed (never ready) input makes the result never ready.
  if (((!fs.ready() && !is_real_cell(fs.cell())) || ...)) return Result();
  auto* c = new when_all_cell<Result, detail::remove_cvref_t<Fs>...>(
      std::tuple<detail::remove_cvref_t<Fs>...>(std::forward<Fs>(fs)...));
  return Result(adopt_cell, c);
}

// when_all's arguments: futures pass through by reference, values are moved (or copied,
// from an lvalue) into ready futures.
template <typename X>
decltype(auto) when_all_arg(X&& x) {
  if constexpr (is_future_v<X>) return std::forward<X>(x);
  else return as_future_t<X>::make_ready(std::forward<X>(x));
}

template <typename... Args>
typename concat_future<as_future_t<Args>...>::type when_all_impl(Args&&... futures_or_values) {
  using result_future = typename concat_future<as_future_t<Args>...>::type;
  if constexpr (sizeof...(Args) == 0) {
    return result_future::make_ready();
  } else if constexpr (sizeof...(Args) == 2 && (std::is_same_v<remove_cvref_t<Args>, future<>> && ...)) {
    // The conjoining loop `f = when_all(f, op())` (the Eager Notifications paper, §II-A),
    // kept small enough to inline: a ready future<> adds nothing to the other one.
    auto pick = [](auto&& a, auto&& b) -> future<> {
      if (b.ready()) return std::forward<decltype(a)>(a);
      if (a.ready()) return std::forward<decltype(b)>(b);
      return when_all_futures<future<>>(std::forward<decltype(a)>(a), std::forward<decltype(b)>(b));
    };
    return pick(std::forward<Args>(futures_or_values)...);
  } else {
    return when_all_futures<result_future>(when_all_arg(std::forward<Args>(futures_or_values))...);
  }
}

// A range of futures (std::vector<future<>> and the like): when_all takes it as one value.
template <typename X, typename = void>
struct is_future_range : std::false_type {};
template <typename X>
struct is_future_range<X, std::void_t<typename X::value_type, decltype(std::declval<X&>().begin())>>
    : is_future<remove_cvref_t<typename X::value_type>> {};
template <typename... Args>
inline constexpr bool any_future_range_v = (is_future_range<remove_cvref_t<Args>>::value || ...);

}  // namespace detail

template <typename... Args
#ifndef UPCXX_CODEMODE
          , std::enable_if_t<!detail::any_future_range_v<Args...>, int> = 0
#endif
          >
typename detail::concat_future<detail::as_future_t<Args>...>::type when_all(Args&&... futures_or_values) {
  return detail::when_all_impl(std::forward<Args>(futures_or_values)...);
}

#ifndef UPCXX_CODEMODE
// Debug codemode: a container of futures among the arguments is a common mistake (real
// programs "wait" for a std::vector of RPC futures this way). It compiles and behaves as in
// UPC++ - the container is one value and the result is ready at once - with a warning at
// the call (docs/compatibility.md).
template <typename... Args, std::enable_if_t<detail::any_future_range_v<Args...>, int> = 0>
[[deprecated("upcxx::when_all() was given a container of futures: UPC++ takes it as one value, so the result is "
             "ready at once and waits for none of them. Wait on each future, or fold them with "
             "f = upcxx::when_all(f, fut) in a loop (Gannet, debug codemode)")]]
typename detail::concat_future<detail::as_future_t<Args>...>::type when_all(Args&&... futures_or_values) {
  return detail::when_all_impl(std::forward<Args>(futures_or_values)...);
}
#endif

}  // namespace upcxx
