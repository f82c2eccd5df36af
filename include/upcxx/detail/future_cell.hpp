// Internal: the shared state behind futures and promises (not API).
//
// State machine of a cell:
//   pending (deps > 0) --fulfill to 0--> ready (deps == 0): listeners fire once, in LIFO
//   order, on the thread that fulfilled it. A ready cell never changes again.
// A cell is reference counted by the futures, promises and listeners that hold it. The
// counts are plain integers: a cell belongs to one persona, and the specification forbids
// using futures and promises of one persona from two threads at once (spec §5.7).
//
// Cheap representations ("Optimization of Asynchronous Communication Operations through
// Eager Notifications", §III): a future does not need a cell at all when it is ready and
// its values (if any) fit inline, see future.hpp; a never-ready future points at the tag
// `never_cell()`. So ready value-less futures and eager results allocate nothing. The null
// pointer does what one shared, preallocated ready cell for future<> would, without that
// cell's shared reference count (no cross-thread writes to a global).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

namespace upcxx::detail {

// Small-object pool for the runtime's short-lived objects (future cells, operation and
// reply states): per-thread free lists in 32-byte classes up to 256 bytes, so a steady
// stream of asynchronous operations reuses memory instead of calling malloc. A block may
// be freed by another thread than the one that allocated it; it then joins that thread's
// list. Larger objects go to ::operator new.
void* pool_allocate(std::size_t bytes);
void pool_free(void* p, std::size_t bytes) noexcept;

// Base for classes allocated from the pool.
struct pooled {
  static void* operator new(std::size_t bytes) { return pool_allocate(bytes); }
  static void operator delete(void* p, std::size_t bytes) noexcept { pool_free(p, bytes); }
};

struct cell_base;

// Something waiting for a cell to become ready. Intrusive: the waiter embeds it.
struct listener {
  listener* next = nullptr;
  void (*fire)(listener* self) = nullptr;
};

struct cell_base : pooled {
  std::int32_t refs = 1;
  std::intptr_t deps = 1;  // ready when it reaches 0
  listener* waiters = nullptr;
  void (*destroy_fn)(cell_base*) = nullptr;

  bool ready() const noexcept { return deps == 0; }
  void add_ref() noexcept { ++refs; }
  void drop_ref() noexcept {
    if (--refs == 0) destroy_fn(this);
  }
  void listen(listener* l) noexcept {
    l->next = waiters;
    waiters = l;
  }
  // Subtracts n dependencies; at zero, fires every listener (which may run user callbacks).
  // The caller holds a reference to the cell until this returns (a promise, a completion's
  // queue entry, a then()/when_all() state's own guard): so while listeners fire, no
  // listener sees the cell as held only by itself (future::values_unshared), and none can
  // destroy it by letting its own reference go.
  void fulfill(std::intptr_t n) {
    deps -= n;
    if (deps == 0 && waiters) fire_all();
  }
  void fire_all();  // out of line: src/core/progress.cpp
};

// The tag behind a default-constructed future, which never becomes ready. Never
// dereferenced: futures test for it before touching a cell.
inline cell_base* never_cell() noexcept { return reinterpret_cast<cell_base*>(std::uintptr_t{1}); }
inline bool is_real_cell(const cell_base* c) noexcept {
  return reinterpret_cast<std::uintptr_t>(c) > 1;
}

// How a future hands its values out (spec §5.8.1 ¶26-38, ¶43-45): U itself for a reference
// type U, const U& otherwise.
template <typename U>
using cref_t = std::conditional_t<std::is_reference_v<U>, U, const U&>;

template <typename Tuple, std::size_t... I>
auto refs_of_tuple(const Tuple& t, std::index_sequence<I...>) noexcept {
  return std::tuple<cref_t<std::tuple_element_t<I, Tuple>>...>(
      static_cast<cref_t<std::tuple_element_t<I, Tuple>>>(std::get<I>(t))...);
}
// References to the elements of a tuple, as a future hands them out.
template <typename... T>
std::tuple<cref_t<T>...> refs_of(const std::tuple<T...>& t) noexcept {
  return refs_of_tuple(t, std::index_sequence_for<T...>{});
}

// A cell that carries the values of a future<T...>.
//
// The values are constructed in place, once, when they are supplied (fulfill_result, a
// reply, a callback's result), from whatever they are constructed from: nothing is
// default-constructed, so T may lack a default constructor, be move-only or not movable at
// all, or be a reference. Or they live elsewhere: a when_all() of futures and a then() whose
// callback returned a future keep the states that hold the values alive and hand out
// references into them (`borrowed`), so no value is copied and non-copyable values work.
template <typename... T>
struct value_cell : cell_base {
  using tuple_type = std::tuple<T...>;
  using refs_type = std::tuple<cref_t<T>...>;

  // Non-null when the values live in states this cell keeps alive.
  refs_type (*borrowed)(const value_cell* self) noexcept = nullptr;
  alignas(tuple_type) unsigned char storage[sizeof(tuple_type)];
  bool has_values = false;

  value_cell() { destroy_fn = &value_cell::destroy; }

  // Precondition: the values were supplied.
  refs_type value_refs() const noexcept { return borrowed ? borrowed(this) : refs_of(owned()); }
  // The values this cell holds itself (borrowed == nullptr).
  tuple_type& owned() noexcept { return *std::launder(reinterpret_cast<tuple_type*>(storage)); }
  const tuple_type& owned() const noexcept { return *std::launder(reinterpret_cast<const tuple_type*>(storage)); }

  // Constructs the values in place from u... (spec §5.8.2 ¶15: T constructible from U&&).
  template <typename... U>
  void emplace(U&&... u) {
    ::new (static_cast<void*>(storage)) tuple_type(std::forward<U>(u)...);
    has_values = true;
  }
  // The same from the elements of a tuple (moved from an rvalue tuple, copied from an lvalue).
  template <typename Tuple>
  void emplace_tuple(Tuple&& t) {
    emplace_from(std::forward<Tuple>(t), std::make_index_sequence<std::tuple_size_v<std::remove_reference_t<Tuple>>>{});
  }
  ~value_cell() {
    if (has_values) owned().~tuple_type();
  }
  static void destroy(cell_base* c) { delete static_cast<value_cell*>(c); }

 private:
  template <typename Tuple, std::size_t... I>
  void emplace_from(Tuple&& t, std::index_sequence<I...>) {
    emplace(std::get<I>(std::forward<Tuple>(t))...);
  }
};

template <>
struct value_cell<> : cell_base {
  using tuple_type = std::tuple<>;
  using refs_type = std::tuple<>;
  value_cell() { destroy_fn = &value_cell::destroy; }
  static refs_type value_refs() noexcept { return {}; }
  void emplace() noexcept {}
  void emplace_tuple(const std::tuple<>&) noexcept {}
  static void destroy(cell_base* c) { delete static_cast<value_cell*>(c); }
};

// Values a ready future keeps without a cell: small, trivially copyable results (an rget
// of a double, a fetched int64). Anything else lives in a cell.
template <typename... T>
inline constexpr bool inline_values_ok =
    sizeof...(T) > 0 && (std::is_trivially_copyable_v<T> && ...) && sizeof(std::tuple<T...>) <= 32 &&
    std::is_trivially_copy_constructible_v<std::tuple<T...>> &&
    std::is_trivially_destructible_v<std::tuple<T...>>;

template <typename... T>
struct inline_values {
  // Raw storage, constructed only while the future is ready-inline. Trivially copyable T
  // means memcpy of the bytes is a valid copy of the values.
  alignas(std::tuple<T...>) unsigned char bytes[sizeof(std::tuple<T...>)];
  std::tuple<T...>& get() noexcept { return *std::launder(reinterpret_cast<std::tuple<T...>*>(bytes)); }
  const std::tuple<T...>& get() const noexcept {
    return *std::launder(reinterpret_cast<const std::tuple<T...>*>(bytes));
  }
};
struct no_inline_values {};

}  // namespace upcxx::detail
