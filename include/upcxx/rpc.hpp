// Remote procedure calls (spec chapter 9) and remote_cx::as_rpc.
//
//   rpc_ff([team,] rank, [completions,] fn, args...)   fire and forget
//   rpc([team,] rank, [completions,] fn, args...)      future of fn's result (unwrapped)
//   experimental::rpc_ff_immediate, experimental::rpc_immediate (UPC++ 2025.10)
//                                                      the same, but throw network_busy
//                                                      rather than wait to inject
//
// fn and args are serialized before the call returns (source completion is synchronous);
// the call runs on the target during user-level progress of its master persona, never
// synchronously, not even when the target is the caller (spec §9.2 ¶43). dist_object<T>&
// and team& arguments travel as ids and are looked up at the target, which waits for a
// named dist_object to be constructed (spec §6.6).
//
// Shipping fn: a function pointer is sent as an (object, offset) token that every rank
// decodes to its own address of the function (ranks load the program at different
// addresses); a function object (lambda, functor) is serialized — by its bytes when it is
// trivially copyable, so captured pointers arrive as the same addresses (spec §6.5).
// Progress level: internal.
#pragma once

#include "upcxx/version.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/completion.hpp"
#include "upcxx/rpc_fwd.hpp"
#include "upcxx/serialization.hpp"
#include "upcxx/team.hpp"

namespace upcxx {

template <typename T>
class dist_object;

namespace detail {

// ---- argument kinds ----
// A type that is not Serializable has no deserialized type: its callee type falls back to
// A&&, so that write_arg's static_assert, not a missing member, is the error the user sees.
template <typename A, typename = void>
struct rpc_callee {
  using type = A&&;
};
template <typename A>
struct rpc_callee<A, std::void_t<deserialized_type_t<A>>> {
  using type = deserialized_type_t<A>&&;
};
template <typename A>
struct rpc_arg {
  using callee_type = typename rpc_callee<A>::type;
  static constexpr int dist = 0;
};
template <typename T>
struct rpc_arg<dist_object<T>> {
  using callee_type = dist_object<T>&;
  static constexpr int dist = 1;
};
template <>
struct rpc_arg<team> {
  using callee_type = team&;
  static constexpr int dist = 0;
};

template <typename Fn, typename... Args>
using rpc_result_t = std::invoke_result_t<Fn&, typename rpc_arg<Args>::callee_type...>;

// The values an rpc's operation completion produces (spec §9.3 ¶39-41), `type`, and the
// types the callee serialized them as, `wire`: the reply is read with the wire types'
// deserialization, which may produce other types (spec §6.2.3), and a const result stays
// const (spec §6.4 ¶4).
// A result that is not Serializable gets stand-in types, so that rpc_impl's static_assert,
// not a missing member, is the error the user sees.
template <typename R, typename = void>
struct rpc_values {
  using type = std::tuple<detail::remove_cvref_t<R>>;
  using wire = std::tuple<detail::remove_cvref_t<R>>;
  static constexpr bool ok = false;
};
template <typename R>
struct rpc_values<R, std::enable_if_t<!is_future_v<R> && !std::is_void_v<R> && is_serializable<detail::remove_cvref_t<R>>::value>> {
  using type = std::tuple<deserialized_type_t<R>>;
  using wire = std::tuple<detail::remove_cvref_t<R>>;
  static constexpr bool ok = true;
};
template <>
struct rpc_values<void> {
  using type = std::tuple<>;
  using wire = std::tuple<>;
  static constexpr bool ok = true;
};
template <typename... U>
struct rpc_values<future<U...>, std::enable_if_t<(is_serializable<detail::remove_cvref_t<U>>::value && ...)>> {
  using type = std::tuple<deserialized_type_t<U>...>;
  using wire = std::tuple<detail::remove_cvref_t<U>...>;
  static constexpr bool ok = true;
};
template <typename... U>
struct rpc_values<future<U...>, std::enable_if_t<!(is_serializable<detail::remove_cvref_t<U>>::value && ...)>> {
  using type = std::tuple<detail::remove_cvref_t<U>...>;
  using wire = std::tuple<detail::remove_cvref_t<U>...>;
  static constexpr bool ok = false;
};

// ---- function objects ----
template <typename Fn>
inline constexpr bool is_function_pointer_v = std::is_pointer_v<Fn> && std::is_function_v<std::remove_pointer_t<Fn>>;

// Function pointers travel as tokens, function objects serialized (trivially copyable ones,
// lambdas included, as their bytes).
template <typename Fn>
struct rpc_function_ok : std::bool_constant<is_function_pointer_v<Fn> || is_serializable<Fn>::value> {};

template <typename Fn>
void write_function(serial_writer& w, const Fn& fn) {
  if constexpr (is_function_pointer_v<Fn>) {
    serialize_into(w, encode_function(reinterpret_cast<const void*>(fn)));
  } else {
    static_assert(rpc_function_ok<Fn>::value,
                  "an RPC's function object must be a function, a lambda or functor that is trivially "
                  "copyable, or a Serializable type (spec 6.5)");
    serialize_into(w, fn);
  }
}

// The callee's type for a function object. A function object that cannot be serialized
// maps to itself, so that write_function's static_assert is the error the user sees.
template <typename Fn, bool = is_function_pointer_v<Fn> || !is_serializable<Fn>::value>
struct stored_function {
  using type = Fn;
};
template <typename Fn>
struct stored_function<Fn, false> {
  using type = deserialized_type_t<Fn>;
};

template <typename Fn>
struct function_holder {
  using stored = typename stored_function<Fn>::type;
  alignas(stored) unsigned char storage[sizeof(stored)];
  stored* fn = nullptr;
  explicit function_holder(serial_reader& r) {
    if constexpr (is_function_pointer_v<Fn>) {
      fn_token t = deserialize_from<fn_token>(r);
      fn = ::new (static_cast<void*>(storage)) stored(reinterpret_cast<Fn>(const_cast<void*>(decode_function(t))));
    } else {
      fn = deserialize_into<Fn>(r, storage);
    }
  }
  ~function_holder() { fn->~stored(); }
  function_holder(const function_holder&) = delete;
  function_holder& operator=(const function_holder&) = delete;
};

// ---- arguments at the callee ----

template <typename A>
struct arg_holder {
  using stored = deserialized_type_t<A>;
  alignas(stored) unsigned char storage[sizeof(stored)];
  stored* p = nullptr;
  arg_holder(serial_reader& r, const std::uint64_t*&) { p = deserialize_into<A>(r, storage); }
  ~arg_holder() { p->~stored(); }
  stored&& get() { return std::move(*p); }
  arg_holder(const arg_holder&) = delete;
  arg_holder& operator=(const arg_holder&) = delete;
};
template <typename T>
struct arg_holder<dist_object<T>> {
  dist_object<T>* p;
  arg_holder(serial_reader&, const std::uint64_t*& ids) : p(static_cast<dist_object<T>*>(dist_lookup(*ids++))) {}
  dist_object<T>& get() { return *p; }
};
template <>
struct arg_holder<team> {
  team* p;
  arg_holder(serial_reader& r, const std::uint64_t*&) : p(&team_from_id(deserialize_from<std::uint64_t>(r))) {}
  team& get() { return *p; }
};

// The callee's arguments, deserialized left to right in place (members initialize in
// declaration order) and passed to a callable by apply().
template <typename... Args>
struct arg_holders;
template <>
struct arg_holders<> {
  arg_holders(serial_reader&, const std::uint64_t*&) {}
  template <typename F>
  decltype(auto) apply(F&& f) {
    return f();
  }
};
template <typename A, typename... Rest>
struct arg_holders<A, Rest...> {
  arg_holder<A> first;
  arg_holders<Rest...> rest;
  arg_holders(serial_reader& r, const std::uint64_t*& ids) : first(r, ids), rest(r, ids) {}
  template <typename F>
  decltype(auto) apply(F&& f) {
    return rest.apply([&](auto&&... more) -> decltype(auto) {
      return f(first.get(), std::forward<decltype(more)>(more)...);
    });
  }
};

// ---- sender side ----
template <typename A>
void write_arg(serial_writer& w, const A& a) {
  using D = detail::remove_cvref_t<A>;
  if constexpr (rpc_arg<D>::dist) {
    // sent as a dist id in front of the body
  } else if constexpr (std::is_same_v<D, team>) {
    serialize_into(w, team_id_of(a));
  } else {
    static_assert(is_serializable<D>::value, "an RPC argument must be Serializable, dist_object<T>& or team& (spec 9.2)");
    serialize_into(w, a);
  }
}
template <typename A>
void write_dist_id(serial_writer& w, const A& a) {
  if constexpr (rpc_arg<detail::remove_cvref_t<A>>::dist) serialize_into(w, a.id().raw());
}

inline constexpr std::size_t rpc_inline_bytes = 512;

template <typename Fn, typename... Args>
struct rpc_exec;

// Where serial_writer::place() puts a function object and arguments that are all serialized
// as plain bytes, after a header of `start` bytes: such a call's layout is known at compile
// time, so it is written with fixed-offset copies instead of the generic writer.
template <typename Fn, typename... Args>
struct fixed_layout {
  std::size_t fn = 0;
  std::size_t args[sizeof...(Args) + 1] = {};
  std::size_t end = 0;
  constexpr explicit fixed_layout(std::size_t start) {
    std::size_t at = start;
    auto place = [&at](std::size_t align, std::size_t n) {
      at = (at + align - 1) & ~(align - 1);
      std::size_t p = at;
      at += n;
      return p;
    };
    fn = place(serial_align<Fn>, sizeof(Fn));
    std::size_t i = 0;
    ((args[i++] = place(serial_align<Args>, sizeof(Args))), ...);
    end = at;
  }
};
template <typename T>
inline constexpr bool plain_bytes_arg_v =
    kind_of<T>() == serial_kind::trivial && !rpc_arg<T>::dist && !std::is_same_v<T, team>;
template <typename Fn, typename... Args>
inline constexpr bool fixed_layout_call_v = [] {
  if constexpr (is_function_pointer_v<Fn> || kind_of<Fn>() != serial_kind::trivial ||
                !(plain_bytes_arg_v<Args> && ...)) {
    return false;
  } else {
    return fixed_layout<Fn, Args...>(sizeof(rpc_wire) + 16).end <= rpc_inline_bytes;
  }
}();

template <bool Immediate>
bool rpc_send_as(intrank_t target, std::byte* record, std::size_t bytes) {
  if constexpr (Immediate) {
    return rpc_try_send(target, record, bytes);
  } else {
    rpc_send(target, record, bytes);
    return true;
  }
}

// Serializes one call record into a buffer that starts on the stack (no allocation for small
// calls) and sends it. Immediate: returns false, having sent nothing, where sending would
// wait for room.
template <bool Immediate, typename Fn, typename... Args>
bool send_call_as(intrank_t target, std::uint64_t reply_to, const Fn& fn, const Args&... args) {
  using exec = rpc_exec<Fn, detail::remove_cvref_t<Args>...>;
  constexpr std::uint16_t n_ids = (rpc_arg<detail::remove_cvref_t<Args>>::dist + ... + 0);
  if constexpr (fixed_layout_call_v<Fn, detail::remove_cvref_t<Args>...>) {
    using layout = fixed_layout<Fn, detail::remove_cvref_t<Args>...>;
    static constexpr layout plain(sizeof(rpc_wire)), with_reply(sizeof(rpc_wire) + 16);
    const layout& at = reply_to ? with_reply : plain;
    alignas(16) std::byte buf[with_reply.end];
    const rpc_wire wire{0, reply_to ? rpc_call_reply : rpc_call, 0, exec_token<&exec::run>().bits};
    std::memcpy(buf, &wire, sizeof wire);
    if (reply_to) {
      const std::uint64_t to[2] = {reply_to, 0};
      std::memcpy(buf + sizeof wire, to, sizeof to);
    }
    // An empty function object (a functor without members) has no value bits: its byte is
    // left as is rather than copied from an object that never initialized it.
    if constexpr (!std::is_empty_v<Fn>) std::memcpy(buf + at.fn, addr_of(fn), sizeof(Fn));
    std::size_t i = 0;
    (std::memcpy(buf + at.args[i++], addr_of(args), sizeof(Args)), ...);
    return rpc_send_as<Immediate>(target, buf, at.end);
  } else {
    alignas(16) std::byte inline_buf[rpc_inline_bytes];
    serial_writer w(inline_buf, sizeof inline_buf);
    const std::uint16_t kind = reply_to ? rpc_call_reply : rpc_call;
    serialize_into(w, rpc_wire{0, kind, n_ids, exec_token<&exec::run>().bits});
    if (reply_to) serialize_into(w, std::array<std::uint64_t, 2>{reply_to, 0});
    (write_dist_id(w, args), ...);
    if constexpr (n_ids % 2 != 0) serialize_into(w, std::uint64_t{0});  // pad the ids to 16
    write_function(w, fn);
    (write_arg(w, args), ...);
    return rpc_send_as<Immediate>(target, w.data(), w.size());
  }
}
template <typename Fn, typename... Args>
void send_call(intrank_t target, std::uint64_t reply_to, const Fn& fn, const Args&... args) {
  send_call_as<false, Fn>(target, reply_to, fn, args...);
}

template <typename... V>
void send_reply(intrank_t target, std::uint64_t reply_to, const V&... values) {
  alignas(16) std::byte inline_buf[rpc_inline_bytes];
  serial_writer w(inline_buf, sizeof inline_buf);
  serialize_into(w, rpc_wire{0, rpc_reply, 0, reply_to});
  (serialize_into(w, values), ...);
  rpc_send(target, w.data(), w.size());
}

// ---- callee side ----
template <typename Fn, typename... Args>
struct rpc_exec {
  using result = rpc_result_t<typename function_holder<Fn>::stored, Args...>;

  static void run(const rpc_incoming& in) {
    const auto* wire = reinterpret_cast<const rpc_wire*>(in.body);
    const std::uint64_t reply_to =
        wire->kind == rpc_call_reply ? *reinterpret_cast<const std::uint64_t*>(in.body + sizeof(rpc_wire)) : 0;
    const auto* ids = reinterpret_cast<const std::uint64_t*>(in.body + rpc_ids_offset(wire->kind));
    if constexpr (is_future_v<result>) {
      run_async(in, wire, reply_to);
    } else if constexpr (std::is_void_v<result>) {
      guard_callback(body_kind, [&] {
        serial_reader r(in.body + rpc_stream_offset(wire->kind, wire->dist_ids));
        function_holder<Fn> f(r);
        arg_holders<Args...> a(r, ids);
        a.apply([&](auto&&... v) { std::invoke(*f.fn, std::forward<decltype(v)>(v)...); });
      });
      if (reply_to) send_reply(in.source, reply_to);
    } else {
      // The result may refer into the arguments: the reply is serialized where both live.
      guard_callback(body_kind, [&] {
        serial_reader r(in.body + rpc_stream_offset(wire->kind, wire->dist_ids));
        function_holder<Fn> f(r);
        arg_holders<Args...> a(r, ids);
        decltype(auto) value =
            a.apply([&](auto&&... v) -> decltype(auto) { return std::invoke(*f.fn, std::forward<decltype(v)>(v)...); });
        reply(in.source, reply_to, value);
      });
    }
  }
  // Sends the result back to an rpc. A result that is not Serializable can only come from
  // rpc_ff or remote_cx::as_rpc (rpc refuses it at compile time), which discard it: the
  // reply code is not even formed for it.
  template <typename... V>
  static void reply(intrank_t source, std::uint64_t reply_to, const V&... values) {
    if constexpr (rpc_values<result>::ok)
      if (reply_to) send_reply(source, reply_to, values...);
  }
  // Debug codemode reports an exception that leaves the user's part of a call (its
  // deserialization and body) here, in the program's codemode (UPC++ 2021.9).
  static constexpr const char* body_kind = "an RPC body (or a remote_cx::as_rpc callback) run by upcxx::progress()";

  // fn returns a future: the deserialized objects (and the bytes views point into) live
  // until it is ready (spec §9.2 ¶42), so they move to the heap.
  struct async_call {
    std::vector<std::byte> body;
    serial_reader reader;
    const std::uint64_t* ids;
    function_holder<Fn> f;
    arg_holders<Args...> a;
    async_call(const rpc_incoming& in, const rpc_wire* wire)
        : body(in.body, in.body + in.bytes),
          reader(body.data() + rpc_stream_offset(wire->kind, wire->dist_ids)),
          ids(reinterpret_cast<const std::uint64_t*>(body.data() + rpc_ids_offset(wire->kind))),
          f(reader),
          a(reader, ids) {}
  };
  static void run_async(const rpc_incoming& in, const rpc_wire* wire, std::uint64_t reply_to) {
    async_call* call = nullptr;
    result fut = guard_callback(body_kind, [&] {
      call = new async_call(in, wire);
      return call->a.apply(
          [&](auto&&... v) -> result { return std::invoke(*call->f.fn, std::forward<decltype(v)>(v)...); });
    });
    intrank_t source = in.source;
    fut.then([call, reply_to, source](const auto&... values) {
      reply(source, reply_to, values...);
      delete call;
    });
  }
};

// ---- initiator side ----
template <typename Cxs, typename Vals, typename Wire>
struct rpc_reply_state;

template <typename Cx>
inline constexpr bool only_buffering = false;
template <bool... B>
inline constexpr bool only_buffering<completions<buffered_cx<B>...>> = true;

// Whether a completion object is made of LPCs (as_lpc, any event) and source buffering
// only: an LPC is enqueued to its persona from any thread, moving its function (no copy of
// what it captured), and nothing else in the object belongs to the initiating persona. Such
// a reply needs no detour through the initiating persona: a thread that initiates and then
// makes no progress still sees its as_lpc run on the thread that holds the target persona.
// Futures and promises are the initiator's, and keep their replies on its thread.
template <typename Cx>
inline constexpr bool operation_lpcs_only = false;
template <typename... Cx>
inline constexpr bool operation_lpcs_only<completions<Cx...>> =
    ((is_lpc_item<Cx>::value || only_buffering<completions<Cx>>) && ...);

template <typename Cxs, typename... V, typename... W>
struct rpc_reply_state<Cxs, std::tuple<V...>, std::tuple<W...>> final : reply_base {
  static constexpr bool from_any_thread = operation_lpcs_only<Cxs>;
  cx_async_state<Cxs, std::tuple<>, std::tuple<V...>> cx;
  // From any thread, the reply may be delivered while the initiator is still inside rpc()
  // notifying source completion: the last of the two frees the state.
  std::atomic<int> holds{2};
  rpc_reply_state(Cxs&& c, intrank_t target) : cx(std::move(c), target) {
    deliver = &rpc_reply_state::deliver_reply;
    owner = cx.initiator;
    any_thread = from_any_thread;
  }
  void release() {
    if constexpr (from_any_thread) {
      if (holds.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    }
    delete this;
  }
  static void deliver_reply(reply_base* base, const std::byte* bytes, std::size_t) {
    auto* self = static_cast<rpc_reply_state*>(base);
    serial_reader r(bytes);
    // Not const, even for a const result (spec §6.4 ¶4), so that the values can be moved on.
    std::tuple<std::remove_const_t<V>...> vals{deserialize_from<W>(r)...};  // braces: read in order
    self->cx.template notify<cx_event::operation>(std::move(vals));  // moved into the future
    self->release();
  }
};

template <typename Cx>
inline constexpr bool only_source_events = false;
template <typename... Cx>
inline constexpr bool only_source_events<completions<Cx...>> = ((Cx::event == cx_event::source) && ...);

// Immediate mode (experimental::rpc_immediate, rpc_ff_immediate; UPC++ 2025.10): the call is
// sent without waiting, or network_busy is thrown and nothing happened: no completion is
// prepared or notified (the call is sent before they are prepared; its reply cannot arrive
// before this returns).
[[noreturn]] void throw_network_busy(const char* op, intrank_t target);  // src/rpc/outgoing.cpp

template <bool Immediate, typename Fn, typename... Args>
void send_call_or_throw(const char* op, intrank_t target, std::uint64_t reply_to, const Fn& fn,
                        const Args&... args) {
  if (!send_call_as<Immediate, Fn>(target, reply_to, fn, args...)) throw_network_busy(op, target);
}

// An rpc's target rank and where the call was written: the conversion from the rank happens
// in the caller's code, so the default argument names the caller's file and line, which the
// debug-codemode checks report (a variadic call cannot end in a defaulted source_loc).
struct rpc_target {
  intrank_t rank;
  source_loc loc;
  rpc_target(intrank_t r, source_loc l = source_loc::current()) noexcept : rank(r), loc(l) {}
};

// What every call checks first, so that a misuse is the first error the compiler prints
// and nothing that depends on it is instantiated after it (rpc_call_ok guards the rest).
template <typename A>
inline constexpr bool rpc_arg_ok_v = rpc_arg<detail::remove_cvref_t<A>>::dist ||
                                     std::is_same_v<detail::remove_cvref_t<A>, team> ||
                                     is_serializable<detail::remove_cvref_t<A>>::value;
template <typename A>
struct rpc_arg_ok : std::bool_constant<rpc_arg_ok_v<A>> {};
// An argument's top-level object travels by value: past UPCXX_MAX_RPC_ARG_SIZE it is refused
// (dist_object& and team& travel as ids).
template <typename A>
inline constexpr bool rpc_arg_size_ok_v = rpc_arg<detail::remove_cvref_t<A>>::dist ||
                                          std::is_same_v<detail::remove_cvref_t<A>, team> ||
                                          sizeof(detail::remove_cvref_t<A>) <= UPCXX_MAX_RPC_ARG_SIZE;
template <typename A>
struct rpc_arg_size_ok : std::bool_constant<rpc_arg_size_ok_v<A>> {};
// Whether the function can be called the way the target calls it: with the deserialized
// arguments as rvalues (dist_object<T>& and team& as lvalues).
template <typename Fn, typename... Args>
struct rpc_invocable
    : std::is_invocable<typename function_holder<std::decay_t<Fn>>::stored&,
                        typename rpc_arg<detail::remove_cvref_t<Args>>::callee_type...> {};
template <typename Fn, typename... Args>
inline constexpr bool rpc_call_ok = rpc_function_ok<std::decay_t<Fn>>::value && (rpc_arg_ok_v<Args> && ...) &&
                                    (rpc_arg_size_ok_v<Args> && ...) && rpc_invocable<Fn, Args...>::value;

#define UPCXX_DETAIL_RPC_CALL_CHECKS(op)                                                                        \
  static_assert(rpc_function_ok<std::decay_t<Fn>>::value,                                                       \
                op ": the function must be a function pointer, or a lambda or function object that is "         \
                   "trivially copyable or Serializable (spec 9.2, 6.5); a lambda capturing a std::string or a "  \
                   "std::vector by value is neither: capture what it needs as arguments instead");              \
  static_assert((rpc_arg_ok_v<Args> && ...),                                                                    \
                op ": every argument must be Serializable (spec 6: trivially copyable, a standard container of " \
                   "Serializable elements, or a class with UPCXX_SERIALIZED_FIELDS / UPCXX_SERIALIZED_VALUES or " \
                   "a serialization specialization), a dist_object<T>& or a team& (spec 9.2)");                 \
  static_assert((rpc_arg_size_ok_v<Args> && ...),                                                               \
                op ": an argument's type is larger than UPCXX_MAX_RPC_ARG_SIZE (" UPCXX_DETAIL_STR(              \
                    UPCXX_MAX_RPC_ARG_SIZE) " bytes): pass a Serializable container instead, such as "          \
                   "upcxx::make_view(&big, &big + 1) (or raise the limit with -DUPCXX_MAX_RPC_ARG_SIZE=n)");     \
  static_assert(!(rpc_function_ok<std::decay_t<Fn>>::value && (rpc_arg_ok_v<Args> && ...)) ||                   \
                    rpc_invocable<Fn, Args...>::value,                                                          \
                op ": the function cannot be called with these arguments as the target passes them: "          \
                   "deserialized copies, as rvalues (dist_object<T>& and team& as references); a parameter of " \
                   "non-const lvalue reference type (int&) cannot take an rvalue: take it by value or const&")

template <bool Immediate, typename Cxs, typename Fn, typename... Args>
auto rpc_ff_impl_checked(rpc_target to, Cxs&& cxs, Fn&& fn, Args&&... args) {
  using C = detail::remove_cvref_t<Cxs>;
  constexpr const char* op = Immediate ? "upcxx::experimental::rpc_ff_immediate" : "upcxx::rpc_ff";
  static_assert(only_source_events<C>, "rpc_ff provides only source completion (spec 9.2)");
  check_init(op, to.loc);
  check_rank(op, to.rank, g_state.rank_n, to.loc);
  const intrank_t target = to.rank;
  using F = std::decay_t<Fn>;
  if constexpr (only_buffering<C>) {
    send_call_or_throw<Immediate, F>(op, target, 0, fn, args...);
  } else {
    cx_async_state<C, std::tuple<>, std::tuple<>> state(C(std::forward<Cxs>(cxs)), target);
    if constexpr (Immediate) send_call_or_throw<true, F>(op, target, 0, fn, args...);
    if constexpr (std::is_void_v<decltype(state.prepare())>) {
      state.prepare();
      if constexpr (!Immediate) send_call<F>(target, 0, fn, args...);
      state.template notify<cx_event::source>(std::tuple<>{});  // serialized: the sources are free
    } else {
      auto result = state.prepare();
      if constexpr (!Immediate) send_call<F>(target, 0, fn, args...);
      state.template notify<cx_event::source>(std::tuple<>{});
      return result;
    }
  }
}

template <bool Immediate = false, typename Cxs, typename Fn, typename... Args>
auto rpc_ff_impl(rpc_target target, Cxs&& cxs, Fn&& fn, Args&&... args) {
  UPCXX_DETAIL_RPC_CALL_CHECKS("upcxx::rpc_ff");
  if constexpr (rpc_call_ok<Fn, Args...>)
    return rpc_ff_impl_checked<Immediate>(target, std::forward<Cxs>(cxs), std::forward<Fn>(fn),
                                          std::forward<Args>(args)...);
}

template <bool Immediate, typename Cxs, typename Fn, typename... Args>
auto rpc_impl_checked(rpc_target to, Cxs&& cxs, Fn&& fn, Args&&... args) {
  using C = detail::remove_cvref_t<Cxs>;
  using F = std::decay_t<Fn>;
  using R = rpc_result_t<typename function_holder<F>::stored, detail::remove_cvref_t<Args>...>;
  using vals = typename rpc_values<R>::type;
  constexpr const char* op = Immediate ? "upcxx::experimental::rpc_immediate" : "upcxx::rpc";
  check_init(op, to.loc);
  check_rank(op, to.rank, g_state.rank_n, to.loc);
  const intrank_t target = to.rank;
  // One state carries source and operation notifications; the source ones are delivered
  // right after serialization, the operation ones when the reply arrives.
  using state_t = rpc_reply_state<C, vals, typename rpc_values<R>::wire>;
  auto* state = new state_t(C(std::forward<Cxs>(cxs)), target);
  auto& cx = state->cx;  // the reply may delete `state`; cx stays usable until then
  const auto reply_to = reinterpret_cast<std::uint64_t>(static_cast<reply_base*>(state));
  if constexpr (Immediate) {
    if (!send_call_as<true, F>(target, reply_to, fn, args...)) {
      delete state;
      throw_network_busy(op, target);
    }
  }
  auto send = [&] {
    if constexpr (!Immediate) send_call<F>(target, reply_to, fn, args...);
    // The reply arrives in a later progress of this persona (never inside this call), or,
    // from_any_thread, perhaps on another thread now: it frees the state only after this.
    cx.template notify<cx_event::source>(std::tuple<>{});
    if constexpr (state_t::from_any_thread) state->release();
  };
  if constexpr (std::is_void_v<decltype(cx.prepare())>) {
    cx.prepare();
    send();
  } else {
    auto prepared = cx.prepare();
    send();
    return prepared;
  }
}

// An rpc's result (or its future's values) that is a view: refused (spec 6.7 ¶9).
template <typename R>
struct returns_view : std::false_type {};
template <typename T, typename It>
struct returns_view<view<T, It>> : std::true_type {};
template <typename... U>
struct returns_view<future<U...>> : std::bool_constant<(returns_view<detail::remove_cvref_t<U>>::value || ...)> {};

// An rpc's result that names an object of the target: refused (it would refer to the
// target's object from the initiator).
template <typename R>
struct returns_target_object : std::false_type {};
template <typename R>
struct returns_target_object<R&>
    : std::bool_constant<rpc_arg<std::remove_cv_t<R>>::dist || std::is_same_v<std::remove_cv_t<R>, team>> {};
template <typename R>
inline constexpr bool returns_target_object_v = returns_target_object<R>::value;

template <typename Fn, typename... Args>
auto rpc_result_checks() {
  using R = rpc_result_t<typename function_holder<std::decay_t<Fn>>::stored, detail::remove_cvref_t<Args>...>;
  static_assert(!returns_target_object_v<R>,
                "upcxx::rpc: the function must not return a dist_object& or a team&: they name objects of the "
                "target, which the initiator cannot use; return a value (the dist_object's value, its id(), or "
                "the team's id()) instead (spec 9.2)");
  static_assert(returns_target_object_v<R> || !returns_view<R>::value,
                "upcxx::rpc: the function must not return a view: its elements live in the incoming message, "
                "which is gone once the call returns (spec 6.7 ¶9); return a container (std::vector) instead");
  static_assert(returns_target_object_v<R> || returns_view<R>::value || rpc_values<R>::ok,
                "upcxx::rpc: the function's result (or the values of the future it returns) must be Serializable "
                "(spec 9.2, 6.1)");
  return std::bool_constant<!returns_target_object_v<R> && !returns_view<R>::value && rpc_values<R>::ok>{};
}

template <bool Immediate = false, typename Cxs, typename Fn, typename... Args>
auto rpc_impl(rpc_target target, Cxs&& cxs, Fn&& fn, Args&&... args) {
  static_assert(!cx_asks_for<detail::remove_cvref_t<Cxs>, cx_event::remote>,
                "upcxx::rpc has source and operation completion only (spec 9.3): remote_cx::as_rpc does not "
                "apply (the call itself runs at the target)");
  UPCXX_DETAIL_RPC_CALL_CHECKS("upcxx::rpc");
  if constexpr (!rpc_call_ok<Fn, Args...>) {
    return future<>();  // (the static_assert above is the error; a future keeps `.wait()` quiet)
  } else if constexpr (!decltype(rpc_result_checks<Fn, Args...>())::value) {
    return future<>();
  } else {
    return rpc_impl_checked<Immediate>(target, std::forward<Cxs>(cxs), std::forward<Fn>(fn),
                                       std::forward<Args>(args)...);
  }
}

template <typename Fn, typename... Args, std::size_t... I>
void send_remote_cx_impl(const rpc_cx<Fn, Args...>& item, intrank_t target, std::index_sequence<I...>) {
  send_call<Fn>(target, 0, item.fn, cx_arg<Args>::use(std::get<I>(item.args))...);
}
template <typename Fn, typename... Args>
void send_remote_cx(const rpc_cx<Fn, Args...>& item, intrank_t target) {
  send_remote_cx_impl(item, target, std::index_sequence_for<Args...>{});
}

}  // namespace detail

// ---- rpc_ff ----
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
void rpc_ff(detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  detail::rpc_ff_impl(recipient, source_cx::as_buffered(), std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_ff(detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_ff_impl(recipient, std::forward<Cx>(completions), std::forward<Fn>(fn),
                             std::forward<Args>(args)...);
}
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
void rpc_ff(const team& tm, detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  detail::rpc_ff_impl(detail::rpc_target(tm[recipient.rank], recipient.loc), source_cx::as_buffered(), std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_ff(const team& tm, detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_ff_impl(detail::rpc_target(tm[recipient.rank], recipient.loc), std::forward<Cx>(completions), std::forward<Fn>(fn),
                             std::forward<Args>(args)...);
}

// ---- rpc ----
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
auto rpc(detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  return detail::rpc_impl(recipient, source_cx::as_buffered() | operation_cx::as_future(), std::forward<Fn>(fn),
                          std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc(detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_impl(recipient, std::forward<Cx>(completions), std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
auto rpc(const team& tm, detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  return detail::rpc_impl(detail::rpc_target(tm[recipient.rank], recipient.loc), source_cx::as_buffered() | operation_cx::as_future(),
                          std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc(const team& tm, detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_impl(detail::rpc_target(tm[recipient.rank], recipient.loc), std::forward<Cx>(completions), std::forward<Fn>(fn),
                          std::forward<Args>(args)...);
}

namespace experimental {

// Thrown by rpc_immediate and rpc_ff_immediate when the call cannot be sent without waiting
// (the target's queue is full, or large calls of ours still hold our shared heap); nothing
// was sent and no completion was notified: try again after progress.
class network_busy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Immediate-mode RPC (UPC++ 2025.10): as rpc and rpc_ff, but never stalls injection to
// wait for network resources; throws network_busy instead.
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
void rpc_ff_immediate(detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  detail::rpc_ff_impl<true>(recipient, source_cx::as_buffered(), std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_ff_immediate(detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_ff_impl<true>(recipient, std::forward<Cx>(completions), std::forward<Fn>(fn),
                                   std::forward<Args>(args)...);
}
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
void rpc_ff_immediate(const team& tm, detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  detail::rpc_ff_impl<true>(detail::rpc_target(tm[recipient.rank], recipient.loc), source_cx::as_buffered(), std::forward<Fn>(fn),
                            std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_ff_immediate(const team& tm, detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_ff_impl<true>(detail::rpc_target(tm[recipient.rank], recipient.loc), std::forward<Cx>(completions), std::forward<Fn>(fn),
                                   std::forward<Args>(args)...);
}

template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
auto rpc_immediate(detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  return detail::rpc_impl<true>(recipient, source_cx::as_buffered() | operation_cx::as_future(),
                                std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_immediate(detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_impl<true>(recipient, std::forward<Cx>(completions), std::forward<Fn>(fn),
                                std::forward<Args>(args)...);
}
template <typename Fn, typename... Args, std::enable_if_t<!is_completion_object_v<Fn>, int> = 0>
auto rpc_immediate(const team& tm, detail::rpc_target recipient, Fn&& fn, Args&&... args) {
  return detail::rpc_impl<true>(detail::rpc_target(tm[recipient.rank], recipient.loc), source_cx::as_buffered() | operation_cx::as_future(),
                                std::forward<Fn>(fn), std::forward<Args>(args)...);
}
template <typename Cx, typename Fn, typename... Args, std::enable_if_t<is_completion_object_v<Cx>, int> = 0>
auto rpc_immediate(const team& tm, detail::rpc_target recipient, Cx&& completions, Fn&& fn, Args&&... args) {
  return detail::rpc_impl<true>(detail::rpc_target(tm[recipient.rank], recipient.loc), std::forward<Cx>(completions), std::forward<Fn>(fn),
                                std::forward<Args>(args)...);
}

}  // namespace experimental

}  // namespace upcxx
