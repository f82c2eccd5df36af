// Completions (spec chapter 7) with the eager/deferred factories of "Optimization of
// Asynchronous Communication Operations through Eager Notifications" §III-A.
//
//   source_cx::    as_future, as_promise, as_lpc, as_buffered, as_blocking,
//                  as_eager_future, as_defer_future, as_eager_promise, as_defer_promise
//   operation_cx:: as_future, as_promise, as_lpc, and the eager/defer variants
//   remote_cx::    as_rpc (with remote procedure calls)
// Completion objects compose with `|`; an operation returns void, one future, or a tuple
// of futures in `|` order (spec §7.2.2).
//
// Eager vs deferred: as_future/as_promise are eager unless UPCXX_DEFER_COMPLETION is
// defined. An eager notification of an event that happened before the initiating call
// returned is delivered at once: a ready future, and a promise left untouched (or, for a
// value-producing event, given its values without changing its count). A deferred one, and
// every notification of an event that happens later, is delivered during a later
// user-level progress of the initiating persona. LPCs always run during the target
// persona's user-level progress.
#pragma once

#include "upcxx/version.hpp"

#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/future.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/promise.hpp"

namespace upcxx {

template <typename T>
class dist_object;
class team;

namespace detail {

enum class cx_event : unsigned char { source, remote, operation };

#ifdef UPCXX_DEFER_COMPLETION
inline constexpr bool default_eager = false;
#else
inline constexpr bool default_eager = true;
#endif

template <cx_event E, bool Eager>
struct future_cx {
  static constexpr cx_event event = E;
};
template <cx_event E, bool Eager, typename... T>
struct promise_cx {
  static constexpr cx_event event = E;
  promise<T...> pro;
};
template <cx_event E, typename Fn>
struct lpc_cx {
  static constexpr cx_event event = E;
  persona* target;
  Fn fn;
};
template <bool Blocking>
struct buffered_cx {
  static constexpr cx_event event = cx_event::source;
};
// How remote_cx::as_rpc keeps an argument until the operation completes: by value, except
// dist_object<T>& and team&, which travel as ids (spec 7.3 ¶18, 6.6) and are kept by
// address, as rpc takes them.
template <typename A>
struct cx_arg {
  using stored = A;
  template <typename U>
  static A keep(U&& u) {
    return A(std::forward<U>(u));
  }
  static const A& use(const A& a) { return a; }
};
template <typename T>
struct cx_arg<dist_object<T>> {
  using stored = const dist_object<T>*;
  static stored keep(const dist_object<T>& d) { return &d; }
  static const dist_object<T>& use(stored p) { return *p; }
};
template <>
struct cx_arg<team> {
  using stored = const team*;
  static stored keep(const team& t) { return &t; }
  static const team& use(stored p) { return *p; }
};

// remote_cx::as_rpc: runs fn(args...) on the target at remote completion (rpc.hpp).
template <typename Fn, typename... Args>
struct rpc_cx {
  static constexpr cx_event event = cx_event::remote;
  Fn fn;
  std::tuple<typename cx_arg<Args>::stored...> args;
};
template <typename Fn, typename... Args>
void send_remote_cx(const rpc_cx<Fn, Args...>& item, intrank_t target);  // rpc.hpp
// Whether Fn can be shipped as an RPC's function (rpc.hpp; as_rpc needs rpc.hpp anyway).
template <typename Fn>
struct rpc_function_ok;
// Whether A can be an RPC's argument (rpc.hpp).
template <typename A>
struct rpc_arg_ok;
template <typename A>
struct rpc_arg_size_ok;
template <typename Fn, typename... Args>
struct rpc_invocable;

template <typename... Cx>
struct completions {
  std::tuple<Cx...> items;
};

template <typename X>
struct is_completions : std::false_type {};
template <typename... Cx>
struct is_completions<completions<Cx...>> : std::true_type {};

template <cx_event E>
struct event_factories {
  static completions<future_cx<E, default_eager>> as_future() { return {}; }
  static completions<future_cx<E, true>> as_eager_future() { return {}; }
  static completions<future_cx<E, false>> as_defer_future() { return {}; }
  template <typename... T>
  static completions<promise_cx<E, default_eager, T...>> as_promise(promise<T...> pro) {
    return {{promise_cx<E, default_eager, T...>{std::move(pro)}}};
  }
  template <typename... T>
  static completions<promise_cx<E, true, T...>> as_eager_promise(promise<T...> pro) {
    return {{promise_cx<E, true, T...>{std::move(pro)}}};
  }
  template <typename... T>
  static completions<promise_cx<E, false, T...>> as_defer_promise(promise<T...> pro) {
    return {{promise_cx<E, false, T...>{std::move(pro)}}};
  }
  template <typename Func>
  static completions<lpc_cx<E, std::decay_t<Func>>> as_lpc(persona& target, Func&& func) {
    return {{lpc_cx<E, std::decay_t<Func>>{&target, std::forward<Func>(func)}}};
  }
};

}  // namespace detail

// A completion object: the result of a factory below or of `|` on two of them. (A trait,
// not a concept: the public headers are C++17.)
template <typename C>
inline constexpr bool is_completion_object_v = detail::is_completions<detail::remove_cvref_t<C>>::value;

struct source_cx : detail::event_factories<detail::cx_event::source> {
  static detail::completions<detail::buffered_cx<false>> as_buffered() { return {}; }
  static detail::completions<detail::buffered_cx<true>> as_blocking() { return {}; }
};
struct operation_cx : detail::event_factories<detail::cx_event::operation> {};
struct remote_cx {
  // Runs func(args...) on the target process, in its master persona's user-level progress,
  // after the operation's data has arrived there (spec §7.3 ¶14).
  template <typename Func, typename... Args>
  static detail::completions<detail::rpc_cx<std::decay_t<Func>, std::decay_t<Args>...>> as_rpc(Func&& func,
                                                                                                Args&&... args) {
    // Checked here, where the caller wrote the function object, rather than when the
    // operation sends it.
    static_assert(detail::rpc_function_ok<std::decay_t<Func>>::value,
                  "upcxx::remote_cx::as_rpc: an RPC's function object must be a function, a lambda or functor "
                  "that is trivially copyable, or a Serializable type (spec 6.5)");
    static_assert((detail::rpc_arg_ok<Args>::value && ...),
                  "upcxx::remote_cx::as_rpc: every argument must be Serializable (spec 6: trivially copyable, a "
                  "standard container of Serializable elements, or a class with UPCXX_SERIALIZED_FIELDS / "
                  "UPCXX_SERIALIZED_VALUES), a dist_object<T>& or a team& (spec 7.3, 9.2)");
    static_assert((detail::rpc_arg_size_ok<Args>::value && ...),
                  "upcxx::remote_cx::as_rpc: an argument's type is larger than UPCXX_MAX_RPC_ARG_SIZE ("
                  UPCXX_DETAIL_STR(UPCXX_MAX_RPC_ARG_SIZE) " bytes): pass a Serializable container instead, such as "
                  "upcxx::make_view(&big, &big + 1) (or raise the limit with -DUPCXX_MAX_RPC_ARG_SIZE=n)");
    static_assert(!(detail::rpc_function_ok<std::decay_t<Func>>::value && (detail::rpc_arg_ok<Args>::value && ...)) ||
                      detail::rpc_invocable<Func, Args...>::value,
                  "upcxx::remote_cx::as_rpc: the function cannot be called with these arguments as the target "
                  "passes them: deserialized copies, as rvalues; a parameter of non-const lvalue reference type "
                  "(int&) cannot take an rvalue: take it by value or const&");
    return {{detail::rpc_cx<std::decay_t<Func>, std::decay_t<Args>...>{
        std::forward<Func>(func),
        std::tuple<typename detail::cx_arg<std::decay_t<Args>>::stored...>(
            detail::cx_arg<std::decay_t<Args>>::keep(std::forward<Args>(args))...)}}};
  }
};

namespace detail {

// In namespace detail so that argument-dependent lookup finds it for completion objects.
template <typename... A, typename... B>
completions<A..., B...> operator|(completions<A...> a, completions<B...> b) {
  return {std::tuple_cat(std::move(a.items), std::move(b.items))};
}

// ---- return types (spec §7.2.2) ----
// The future an item contributes when its event carries values V...
template <typename Item, typename... V>
struct item_future {
  using type = std::tuple<>;
};
template <cx_event E, bool Eager, typename... V>
struct item_future<future_cx<E, Eager>, V...> {
  using type = std::tuple<future<V...>>;
};

template <typename Tuple>
struct collapse {
  using type = Tuple;
};
template <>
struct collapse<std::tuple<>> {
  using type = void;
};
template <typename F>
struct collapse<std::tuple<F>> {
  using type = F;
};

template <typename T>
decltype(auto) collapse_value(T&& t) {
  using tuple_t = detail::remove_cvref_t<T>;
  if constexpr (std::tuple_size_v<tuple_t> == 0) return;
  else if constexpr (std::tuple_size_v<tuple_t> == 1) return std::get<0>(std::forward<T>(t));
  else return tuple_t(std::forward<T>(t));
}

// What one operation reports per event: Src/Rem/Op are event_values<V...> lists; an event
// that the operation does not provide is event_none.
template <typename... V>
struct event_values {};
struct event_none {};

template <cx_event E, typename Src, typename Op>
using values_for = std::conditional_t<E == cx_event::source, Src, Op>;

// ---- synchronous completion: every event happened before the call returns ----
void defer_to_current(cell_base* cell, std::intptr_t count);

template <typename... V>
struct sync_notify {
  // Returns this item's contribution to the result tuple.
  template <cx_event E, bool Eager>
  static auto item(future_cx<E, Eager>&, const std::tuple<V...>& vals) {
    if constexpr (Eager) {
      return std::tuple<future<V...>>(ready_from_tuple<future<V...>>(vals));
    } else {
      auto* c = new value_cell<V...>();
      c->emplace_tuple(vals);
      c->add_ref();  // one for the queue, one for the returned future
      defer_to_current(c, 1);
      return std::tuple<future<V...>>(future<V...>(adopt_cell, c));
    }
  }
  template <cx_event E, bool Eager, typename... T>
  static std::tuple<> item(promise_cx<E, Eager, T...>& p, const std::tuple<V...>& vals) {
    auto* c = p.pro.cell();
    if constexpr (sizeof...(V) > 0) c->emplace_tuple(vals);
    if constexpr (!Eager) {
      // require_anonymous(1) now, fulfill during progress: the promise cannot become
      // ready before then (the deferred contract).
      c->deps += 1;
      c->add_ref();
      defer_to_current(c, 1);
    }
    return {};
  }
  template <cx_event E, typename Fn>
  static std::tuple<> item(lpc_cx<E, Fn>& l, const std::tuple<V...>& vals) {
    l.target->lpc_ff([fn = std::move(l.fn), vals]() mutable { std::apply(fn, std::move(vals)); });
    return {};
  }
  template <bool B>
  static std::tuple<> item(buffered_cx<B>&, const std::tuple<V...>&) {
    return {};
  }
};

template <typename Fn, typename... Args>
std::tuple<> sync_remote(rpc_cx<Fn, Args...>& item, intrank_t target) {
  send_remote_cx(item, target);
  return {};
}

template <cx_event E, typename Item>
inline constexpr bool item_is_event = Item::event == E;

// Whether a completion object asks for event E: operations refuse the events they cannot
// deliver with a static_assert (rget: no source; atomics: operation only; rpc: no remote).
template <typename Cxs, cx_event E>
inline constexpr bool cx_asks_for = false;
template <typename... Items, cx_event E>
inline constexpr bool cx_asks_for<completions<Items...>, E> = ((Items::event == E) || ...);

// Notifies every item of a completion object whose events all happened synchronously.
// SrcVals/OpVals are the values of source and operation completion (tuples).
template <typename... Cx, typename... S, typename... O>
auto complete_sync(completions<Cx...>& cxs, const std::tuple<S...>& src_vals, const std::tuple<O...>& op_vals,
                   intrank_t target) {
  auto parts = std::apply(
      [&](Cx&... items) {
        return std::tuple_cat([&](auto& item) {
          using item_t = detail::remove_cvref_t<decltype(item)>;
          if constexpr (item_t::event == cx_event::source) return sync_notify<S...>::item(item, src_vals);
          else if constexpr (item_t::event == cx_event::remote) return sync_remote(item, target);
          else return sync_notify<O...>::item(item, op_vals);
        }(items)...);
      },
      cxs.items);
  return collapse_value(std::move(parts));
}

// Queues `count` fulfillments of `cell` for `owner`'s next user-level progress, from any
// thread: directly when the caller holds the persona, else through its LPC inbox.
inline void defer_to(persona& owner, cell_base* cell, std::intptr_t count) {
  if (owner.active_with_caller()) {
    owner.defer_fulfill(cell, count);
  } else {
    owner.lpc_ff([cell, count] {
      cell->fulfill(count);
      cell->drop_ref();
    });
  }
}

template <typename Item>
struct is_future_item : std::false_type {};
template <cx_event E, bool Eager>
struct is_future_item<future_cx<E, Eager>> : std::true_type {};
template <typename Item>
struct is_promise_item : std::false_type {};
template <cx_event E, bool Eager, typename... T>
struct is_promise_item<promise_cx<E, Eager, T...>> : std::true_type {};
template <typename Item>
struct is_lpc_item : std::false_type {};
template <cx_event E, typename Fn>
struct is_lpc_item<lpc_cx<E, Fn>> : std::true_type {};
template <typename Tuple>
struct cell_of;
template <typename... V>
struct cell_of<std::tuple<V...>> {
  using type = value_cell<V...>;
};

// The notifications of an operation whose events happen after initiation (off-node RMA,
// RPC replies): prepare() creates the requested futures and takes promise dependencies at
// initiation; notify<E>(values) delivers event E to the initiating persona.
template <typename Cxs, typename SrcVals, typename OpVals>
struct cx_async_state;

template <typename... Cx, typename... S, typename... O>
struct cx_async_state<completions<Cx...>, std::tuple<S...>, std::tuple<O...>> {
  completions<Cx...> cxs;
  persona* initiator;
  intrank_t target;
  // The cell of each future item (null for the other items), in item order.
  cell_base* cells[sizeof...(Cx) > 0 ? sizeof...(Cx) : 1] = {};

  cx_async_state(completions<Cx...>&& c, intrank_t tgt)
      : cxs(std::move(c)), initiator(&current_persona()), target(tgt) {}

  auto prepare() { return collapse_value(prepare_all(std::index_sequence_for<Cx...>{})); }

  // Delivers event E with its values. Given an rvalue tuple, the last completion that takes
  // values (a future, a promise or an LPC) gets them moved, the others copies: a reply's
  // values are moved, never copied, into a lone as_future (spec §9.3), and a value type
  // that cannot be copied works with one such completion.
  template <cx_event E, typename Vals>
  void notify(Vals&& vals) {
    using V = detail::remove_cvref_t<Vals>;
    constexpr std::size_t takers = (std::size_t{0} + ... + std::size_t{takes_values<E, V, Cx>});
    static_assert(takers <= 1 || copyable_tuple<V>::value,
                  "upcxx: this operation's values are not CopyConstructible, so only one of its completions "
                  "may receive them (a future, a promise or an LPC)");
    notify_all<E, last_taker<E, V>()>(vals, std::is_lvalue_reference<Vals>{}, std::index_sequence_for<Cx...>{});
  }

 private:
  template <std::size_t... I>
  auto prepare_all(std::index_sequence<I...>) {
    return std::tuple_cat(prepare_item(std::get<I>(cxs.items), cells[I])...);
  }
  template <cx_event E, bool Eager>
  static auto prepare_item(future_cx<E, Eager>&, cell_base*& slot) {
    using vals = std::conditional_t<E == cx_event::source, std::tuple<S...>, std::tuple<O...>>;
    return prepare_future(static_cast<vals*>(nullptr), slot);
  }
  template <typename... V>
  static std::tuple<future<V...>> prepare_future(std::tuple<V...>*, cell_base*& slot) {
    auto* c = new value_cell<V...>();
    c->add_ref();  // one for the returned future, one until delivery
    slot = c;
    return std::tuple<future<V...>>(future<V...>(adopt_cell, c));
  }
  template <cx_event E, bool Eager, typename... T>
  static std::tuple<> prepare_item(promise_cx<E, Eager, T...>& p, cell_base*&) {
    p.pro.cell()->deps += 1;  // require_anonymous(1) until the event is delivered
    return {};
  }
  template <typename Item>
  static std::tuple<> prepare_item(Item&, cell_base*&) {
    return {};
  }

  // Whether item Item takes values on event E (values Vals).
  template <cx_event E, typename Vals, typename Item>
  static constexpr bool takes_values = Item::event == E && std::tuple_size_v<Vals> > 0 &&
                                       (is_future_item<Item>::value || is_promise_item<Item>::value ||
                                        is_lpc_item<Item>::value);
  template <typename Tuple>
  struct copyable_tuple;
  template <typename... V>
  struct copyable_tuple<std::tuple<V...>> : std::bool_constant<(std::is_copy_constructible_v<V> && ...)> {};
  // The index of the last item taking values on E (sizeof...(Cx) if none).
  template <cx_event E, typename Vals>
  static constexpr std::size_t last_taker() {
    constexpr bool takes[] = {takes_values<E, Vals, Cx>..., false};
    std::size_t last = sizeof...(Cx);
    for (std::size_t i = 0; i < sizeof...(Cx); ++i)
      if (takes[i]) last = i;
    return last;
  }
  template <cx_event E, std::size_t Last, typename Vals, bool Lvalue, std::size_t... I>
  void notify_all(Vals& vals, std::bool_constant<Lvalue>, std::index_sequence<I...>) {
    // Only the last taker of an rvalue tuple sees it as an rvalue.
    (notify_one<E, I == Last && !Lvalue, I>(vals), ...);
  }
  template <cx_event E, bool Move, std::size_t I, typename Vals>
  void notify_one(Vals& vals) {
    if constexpr (Move) notify_item<E>(std::get<I>(cxs.items), cells[I], std::move(vals));
    else notify_item<E>(std::get<I>(cxs.items), cells[I], std::as_const(vals));
  }
  // Each notify_item takes the values as const Vals& (copies them) or Vals&& (moves them).
  template <cx_event E, typename Vals, cx_event IE, bool Eager>
  void notify_item(future_cx<IE, Eager>&, cell_base* slot, Vals&& vals) {
    if constexpr (IE == E) {
      // The cell prepare() made for this event's values (S... or O...).
      using cell_t = typename cell_of<std::conditional_t<E == cx_event::source, std::tuple<S...>, std::tuple<O...>>>::type;
      static_cast<cell_t*>(slot)->emplace_tuple(std::forward<Vals>(vals));
      defer_to(*initiator, slot, 1);  // the queue takes over our reference
    }
  }
  template <cx_event E, typename Vals, cx_event IE, bool Eager, typename... T>
  void notify_item(promise_cx<IE, Eager, T...>& item, cell_base*, Vals&& vals) {
    if constexpr (IE == E) {
      auto* c = item.pro.cell();
      if constexpr (std::tuple_size_v<detail::remove_cvref_t<Vals>> > 0) c->emplace_tuple(std::forward<Vals>(vals));
      c->add_ref();
      defer_to(*initiator, c, 1);  // pairs with the dependency taken in prepare
    }
  }
  template <cx_event E, typename Vals, cx_event IE, typename Fn>
  void notify_item(lpc_cx<IE, Fn>& item, cell_base*, Vals&& vals) {
    if constexpr (IE == E)
      // Each event is notified once: the function moves on (on whichever thread delivers
      // the event, no copy touches what it captured).
      item.target->lpc_ff(
          [fn = std::move(item.fn), v = detail::remove_cvref_t<Vals>(std::forward<Vals>(vals))]() mutable {
            std::apply(fn, std::move(v));
          });
  }
  template <cx_event E, typename Vals, bool B>
  void notify_item(buffered_cx<B>&, cell_base*, Vals&&) {}
  template <cx_event E, typename Vals, typename Fn, typename... Args>
  void notify_item(rpc_cx<Fn, Args...>& item, cell_base*, Vals&&) {
    if constexpr (E == cx_event::remote) send_remote_cx(item, target);
  }
};

}  // namespace detail
}  // namespace upcxx
