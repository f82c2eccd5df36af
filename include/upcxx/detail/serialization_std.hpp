// Internals of upcxx/serialization.hpp, part 4 of 6: builtin<T> for standard types (spec
// 6.3 and Gannet extensions). Not API.
//
// std::reference_wrapper, std::basic_string, the sequence containers (vector, deque, list,
// forward_list), the ordered and unordered sets and maps, std::optional, and std::pair,
// std::tuple and std::array when they are not TriviallySerializable as a whole. Their
// encodings are listed in the format note of serialization_impl.hpp.
//
// Depends on: serialization_stream.hpp (the writer, the reader and their shared helpers).
// serializer<T, serial_kind::builtin> (serialization_kinds.hpp) dispatches to these.
#pragma once

#include "upcxx/version.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <forward_list>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "upcxx/detail/serialization_stream.hpp"

namespace upcxx {
namespace detail {

// std::reference_wrapper<T> (UPC++ 2022.9, spec issue 199): serialized through, as a
// reference is: the referent is written, and deserialization produces a
// deserialized_type_t<T> (const dropped, as for const T&). Never TriviallySerializable
// (serialization.hpp), although the wrapper itself is trivially copyable.
template <typename T>
struct builtin<std::reference_wrapper<T>> {
  using U = std::remove_const_t<T>;
  static constexpr bool enabled = !std::is_volatile_v<T> && serializable_v<U>;
  using deserialized_type = deserialized_lazy_t<U>;
  static constexpr std::size_t size_bound() { return static_serialized_size<U>(); }
  static void write(serial_writer& w, const std::reference_wrapper<T>& ref) { w.write(ref.get()); }
  static deserialized_type read(serial_reader& r) { return r.read<U>(); }
  static deserialized_type* read_into(serial_reader& r, void* storage) { return r.read_into<U>(storage); }
  static void skip(serial_reader& r) { r.skip<U>(); }
};

// std::basic_string (spec 6.3 ¶21): the characters are one memcpy each way.
template <typename C, typename Tr, typename A>
struct builtin<std::basic_string<C, Tr, A>> {
  static constexpr bool enabled = serializable_v<A> && serial_trivial_v<C>;
  using alloc_type = rebind_alloc_t<deserialized_lazy_t<A>, C>;
  using deserialized_type = std::basic_string<C, Tr, alloc_type>;
  static constexpr std::size_t size_bound() { return 0; }
  static void write(serial_writer& w, const std::basic_string<C, Tr, A>& s) {
    write_param(w, s.get_allocator());
    std::size_t n = s.size();
    write_size(w, n);
    std::byte* dst = w.place(serial_align<C>, n * sizeof(C));
    if (n) std::memcpy(dst, s.data(), n * sizeof(C));
  }
  static deserialized_type read(serial_reader& r) {
    alloc_type a(read_param<A>(r));
    std::size_t n = read_size(r);
    if constexpr (in_place_v<C>) {
      return deserialized_type(take_in_place<C>(r, n), n, a);
    } else {
      deserialized_type s(a);
      s.reserve(n);
      for (std::size_t i = 0; i < n; ++i) s.push_back(r.read<C>());
      return s;
    }
  }
  static void skip(serial_reader& r) {
    skip_param<A>(r);
    r.skip_sequence<C>(read_size(r));
  }
};

// vector, deque, list (spec 6.3 ¶7-10); forward_list as a Gannet extension.
template <typename C>
using size_probe = decltype(std::declval<const C&>().size());
template <typename C>
using reserve_probe = decltype(std::declval<C&>().reserve(std::size_t{}));
template <typename C, typename V>
using emplace_back_probe = decltype(std::declval<C&>().emplace_back(std::declval<V>()));
template <typename Seq, typename T, typename A, typename Out>
struct sequence_builtin {
  static constexpr bool enabled = serializable_v<T> && serializable_v<A>;
  using deserialized_type = Out;
  using alloc_type = typename Out::allocator_type;
  static constexpr std::size_t size_bound() { return 0; }
  static void write(serial_writer& w, const Seq& s) {
    write_param(w, s.get_allocator());
    std::size_t n;
    if constexpr (is_detected_v<size_probe, Seq>)
      n = s.size();
    else
      n = static_cast<std::size_t>(std::distance(s.begin(), s.end()));
    write_size(w, n);
    w.write_sequence(s.begin(), s.end(), n);
  }
  static Out read(serial_reader& r) {
    alloc_type a(read_param<A>(r));
    std::size_t n = read_size(r);
    if constexpr (in_place_v<T>) {
      const T* p = take_in_place<T>(r, n);
      return Out(p, p + n, a);  // vector: one allocation and one memcpy
    } else {
      Out out(a);
      if constexpr (is_detected_v<reserve_probe, Out>) out.reserve(n);
      if constexpr (is_detected_v<emplace_back_probe, Out, deserialized_t<T>>) {
        for (std::size_t i = 0; i < n; ++i) out.emplace_back(r.read<T>());
      } else {  // forward_list
        auto tail = out.before_begin();
        for (std::size_t i = 0; i < n; ++i) tail = out.emplace_after(tail, r.read<T>());
      }
      return out;
    }
  }
  static void skip(serial_reader& r) {
    skip_param<A>(r);
    r.skip_sequence<T>(read_size(r));
  }
};
template <typename T, typename A>
struct builtin<std::vector<T, A>>
    : sequence_builtin<
          std::vector<T, A>, T, A,
          std::vector<deserialized_lazy_t<T>, rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<T>>>> {};
template <typename T, typename A>
struct builtin<std::deque<T, A>>
    : sequence_builtin<
          std::deque<T, A>, T, A,
          std::deque<deserialized_lazy_t<T>, rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<T>>>> {};
template <typename T, typename A>
struct builtin<std::list<T, A>>
    : sequence_builtin<
          std::list<T, A>, T, A,
          std::list<deserialized_lazy_t<T>, rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<T>>>> {};
template <typename T, typename A>
struct builtin<std::forward_list<T, A>>
    : sequence_builtin<
          std::forward_list<T, A>, T, A,
          std::forward_list<deserialized_lazy_t<T>, rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<T>>>> {};

// Reads one element of a map written as pair<const K, V>: whole when the pair is trivially
// serializable, else key then mapped value, each moved into the container.
template <typename K, typename V, typename Insert>
void read_map_entry(serial_reader& r, Insert&& insert) {
  if constexpr (serial_trivial_v<std::pair<const K, V>>) {
    insert(r.read<std::pair<const K, V>>());
  } else {
    deserialized_t<K> k = r.read<K>();
    deserialized_t<V> v = r.read<V>();
    insert(std::move(k), std::move(v));
  }
}

// set, multiset, map, multimap (spec 6.3 ¶11-20): [comparator][allocator][count][elements].
// Elements arrive sorted, so each insertion is at the end (amortized constant).
template <typename C, typename Key, typename Mapped, typename Cmp, typename A, typename Out>
struct ordered_builtin {
  static constexpr bool is_map = !std::is_void_v<Mapped>;
  using value = typename C::value_type;
  static constexpr bool enabled =
      serializable_v<Key> && (!is_map || serializable_v<Mapped>)&&serializable_v<Cmp> && serializable_v<A>;
  using deserialized_type = Out;
  static constexpr std::size_t size_bound() { return 0; }
  static void write(serial_writer& w, const C& c) {
    write_param(w, c.key_comp());
    write_param(w, c.get_allocator());
    std::size_t n = c.size();
    write_size(w, n);
    w.write_sequence(c.begin(), c.end(), n);
  }
  static Out read(serial_reader& r) {
    typename Out::key_compare cmp(read_param<Cmp>(r));
    typename Out::allocator_type a(read_param<A>(r));
    std::size_t n = read_size(r);
    if constexpr (in_place_v<value>) {
      const value* p = take_in_place<value>(r, n);
      return Out(p, p + n, cmp, a);
    } else {
      Out out(cmp, a);
      for (std::size_t i = 0; i < n; ++i) {
        if constexpr (is_map) {
          read_map_entry<Key, Mapped>(r, [&out](auto&&... kv) { out.emplace_hint(out.end(), std::move(kv)...); });
        } else {
          out.emplace_hint(out.end(), r.read<Key>());
        }
      }
      return out;
    }
  }
  static void skip(serial_reader& r) {
    skip_param<Cmp>(r);
    skip_param<A>(r);
    r.skip_sequence<value>(read_size(r));
  }
};
template <typename K, typename C, typename A>
struct builtin<std::set<K, C, A>>
    : ordered_builtin<std::set<K, C, A>, K, void, C, A,
                      std::set<deserialized_lazy_t<K>, deserialized_lazy_t<C>,
                               rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<K>>>> {};
template <typename K, typename C, typename A>
struct builtin<std::multiset<K, C, A>>
    : ordered_builtin<std::multiset<K, C, A>, K, void, C, A,
                      std::multiset<deserialized_lazy_t<K>, deserialized_lazy_t<C>,
                                    rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<K>>>> {};
template <typename K, typename V, typename C, typename A>
struct builtin<std::map<K, V, C, A>>
    : ordered_builtin<std::map<K, V, C, A>, K, V, C, A,
                      std::map<deserialized_lazy_t<K>, deserialized_lazy_t<V>, deserialized_lazy_t<C>,
                               rebind_alloc_t<deserialized_lazy_t<A>,
                                              std::pair<const deserialized_lazy_t<K>, deserialized_lazy_t<V>>>>> {};
template <typename K, typename V, typename C, typename A>
struct builtin<std::multimap<K, V, C, A>>
    : ordered_builtin<std::multimap<K, V, C, A>, K, V, C, A,
                      std::multimap<deserialized_lazy_t<K>, deserialized_lazy_t<V>, deserialized_lazy_t<C>,
                                    rebind_alloc_t<deserialized_lazy_t<A>,
                                                   std::pair<const deserialized_lazy_t<K>, deserialized_lazy_t<V>>>>> {
};

// unordered_(multi)set, unordered_(multi)map: [hash][key_equal][allocator][count][elements].
template <typename C, typename Key, typename Mapped, typename H, typename E, typename A, typename Out>
struct unordered_builtin {
  static constexpr bool is_map = !std::is_void_v<Mapped>;
  using value = typename C::value_type;
  static constexpr bool enabled = serializable_v<Key> && (!is_map || serializable_v<Mapped>)&&serializable_v<H> &&
                                  serializable_v<E> && serializable_v<A>;
  using deserialized_type = Out;
  static constexpr std::size_t size_bound() { return 0; }
  static void write(serial_writer& w, const C& c) {
    write_param(w, c.hash_function());
    write_param(w, c.key_eq());
    write_param(w, c.get_allocator());
    std::size_t n = c.size();
    write_size(w, n);
    w.write_sequence(c.begin(), c.end(), n);
  }
  static Out read(serial_reader& r) {
    typename Out::hasher h(read_param<H>(r));
    typename Out::key_equal e(read_param<E>(r));
    typename Out::allocator_type a(read_param<A>(r));
    std::size_t n = read_size(r);
    Out out(n, h, e, a);
    if constexpr (in_place_v<value>) {
      const value* p = take_in_place<value>(r, n);
      out.insert(p, p + n);
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        if constexpr (is_map) {
          read_map_entry<Key, Mapped>(r, [&out](auto&&... kv) { out.emplace(std::move(kv)...); });
        } else {
          out.emplace(r.read<Key>());
        }
      }
    }
    return out;
  }
  static void skip(serial_reader& r) {
    skip_param<H>(r);
    skip_param<E>(r);
    skip_param<A>(r);
    r.skip_sequence<value>(read_size(r));
  }
};
template <typename K, typename H, typename E, typename A>
struct builtin<std::unordered_set<K, H, E, A>>
    : unordered_builtin<std::unordered_set<K, H, E, A>, K, void, H, E, A,
                        std::unordered_set<deserialized_lazy_t<K>, deserialized_lazy_t<H>, deserialized_lazy_t<E>,
                                           rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<K>>>> {};
template <typename K, typename H, typename E, typename A>
struct builtin<std::unordered_multiset<K, H, E, A>>
    : unordered_builtin<std::unordered_multiset<K, H, E, A>, K, void, H, E, A,
                        std::unordered_multiset<deserialized_lazy_t<K>, deserialized_lazy_t<H>, deserialized_lazy_t<E>,
                                                rebind_alloc_t<deserialized_lazy_t<A>, deserialized_lazy_t<K>>>> {};
template <typename K, typename V, typename H, typename E, typename A>
struct builtin<std::unordered_map<K, V, H, E, A>>
    : unordered_builtin<
          std::unordered_map<K, V, H, E, A>, K, V, H, E, A,
          std::unordered_map<deserialized_lazy_t<K>, deserialized_lazy_t<V>, deserialized_lazy_t<H>,
                             deserialized_lazy_t<E>,
                             rebind_alloc_t<deserialized_lazy_t<A>,
                                            std::pair<const deserialized_lazy_t<K>, deserialized_lazy_t<V>>>>> {};
template <typename K, typename V, typename H, typename E, typename A>
struct builtin<std::unordered_multimap<K, V, H, E, A>>
    : unordered_builtin<
          std::unordered_multimap<K, V, H, E, A>, K, V, H, E, A,
          std::unordered_multimap<deserialized_lazy_t<K>, deserialized_lazy_t<V>, deserialized_lazy_t<H>,
                                  deserialized_lazy_t<E>,
                                  rebind_alloc_t<deserialized_lazy_t<A>,
                                                 std::pair<const deserialized_lazy_t<K>, deserialized_lazy_t<V>>>>> {};

// std::optional (Gannet extension): [engaged][value].
template <typename T>
struct builtin<std::optional<T>> {
  static constexpr bool enabled = serializable_v<T>;
  using deserialized_type = std::optional<deserialized_lazy_t<T>>;
  static constexpr std::size_t size_bound() { return 0; }
  static void write(serial_writer& w, const std::optional<T>& o) {
    write_flag(w, o.has_value());
    if (o.has_value()) w.write(*o);
  }
  static deserialized_type read(serial_reader& r) {
    deserialized_type o;
    if (read_flag(r)) o.emplace(r.read<T>());
    return o;
  }
  static void skip(serial_reader& r) {
    if (read_flag(r)) r.skip<T>();
  }
};

// pair, tuple, array that are not TriviallySerializable as a whole (spec 6.3 ¶2-6): each
// element in order. Braced initialization evaluates the reads left to right; const elements
// are read non-const so that they are moved, not copied, into place.
template <typename A, typename B>
struct builtin<std::pair<A, B>> {
  static constexpr bool enabled = serializable_v<A> && serializable_v<B>;
  using deserialized_type = std::pair<deserialized_lazy_t<A>, deserialized_lazy_t<B>>;
  static constexpr std::size_t size_bound() { return sum_static_sizes<A, B>(); }
  static void write(serial_writer& w, const std::pair<A, B>& p) {
    w.write(p.first);
    w.write(p.second);
  }
  static deserialized_type read(serial_reader& r) {
    return deserialized_type{r.read<std::remove_const_t<A>>(), r.read<std::remove_const_t<B>>()};
  }
  static void skip(serial_reader& r) {
    r.skip<A>();
    r.skip<B>();
  }
};
template <typename... T>
struct builtin<std::tuple<T...>> {
  static constexpr bool enabled = (serializable_v<T> && ...);
  using deserialized_type = std::tuple<deserialized_lazy_t<T>...>;
  static constexpr std::size_t size_bound() { return sum_static_sizes<T...>(); }
  static void write(serial_writer& w, const std::tuple<T...>& t) {
    std::apply([&w](const auto&... x) { (w.write(x), ...); }, t);
  }
  static deserialized_type read(serial_reader& r) { return deserialized_type{r.read<std::remove_const_t<T>>()...}; }
  static void skip(serial_reader& r) { (r.skip<T>(), ...); }
};
template <typename T, std::size_t N>
struct builtin<std::array<T, N>> {
  static constexpr bool enabled = serializable_v<T>;
  using deserialized_type = std::array<deserialized_lazy_t<T>, N>;
  static constexpr std::size_t size_bound() { return static_serialized_size<T>() * N; }
  static void write(serial_writer& w, const std::array<T, N>& a) { w.write_sequence(a.begin(), a.end(), N); }
  static deserialized_type read(serial_reader& r) {
    using D = deserialized_t<T>;
    if constexpr (N > 16 && std::is_default_constructible_v<D> && std::is_move_assignable_v<D>) {
      deserialized_type out;  // avoids an N-element pack expansion for long arrays
      for (D& e : out) e = r.read<T>();
      return out;
    } else {
      return read_pack(r, std::make_index_sequence<N>{});
    }
  }
  template <std::size_t... I>
  static deserialized_type read_pack(serial_reader& r, std::index_sequence<I...>) {
    return deserialized_type{{(static_cast<void>(I), r.read<T>())...}};
  }
  static void skip(serial_reader& r) { r.skip_sequence<T>(N); }
};

}  // namespace detail
}  // namespace upcxx
