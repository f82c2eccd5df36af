// Internals of upcxx/serialization.hpp, part 6 of 6: the Writer and Reader members and the
// entry points for the RPC layer. Not API.
//
// Arrays (written and read whole), the definitions of serial_writer::write /
// write_sequence and serial_reader::read / read_into / read_sequence_into / read_overwrite /
// skip..., which dispatch to serializer<T, K>, then static_serialized_size, serialize_into,
// deserialize_from and deserialize_into. Last, so that every serializer is declared.
//
// Depends on: serialization_kinds.hpp, serialization_std.hpp, serialization_view.hpp (and
// through them serialization_stream.hpp and serialization_classify.hpp).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>

#include "upcxx/detail/serialization_kinds.hpp"
#include "upcxx/detail/serialization_std.hpp"
#include "upcxx/detail/serialization_view.hpp"

namespace upcxx {
namespace detail {

// ---- arrays (write and read_into only, spec 6.4 ¶3) ----
template <typename A>
void write_array(serial_writer& w, const A& a) {
  using E = std::remove_cv_t<std::remove_all_extents_t<A>>;
  if constexpr (serial_trivial_v<E>) {
    std::memcpy(w.place(serial_align<E>, sizeof(A)), a, sizeof(A));  // as element-wise writes would
  } else {
    for (const auto& x : a) w.write(x);
  }
}
template <typename A>
deserialized_t<A>* read_array_into(serial_reader& r, void* storage) {
  using E = std::remove_cv_t<std::remove_all_extents_t<A>>;
  if constexpr (serial_trivial_v<E>) {
    std::memcpy(storage, r.take(serial_align<E>, sizeof(A)), sizeof(A));
  } else {
    using X = std::remove_extent_t<A>;
    for (std::size_t i = 0; i < std::extent_v<A>; ++i)
      r.read_into<X>(static_cast<std::byte*>(storage) + i * sizeof(deserialized_t<X>));
  }
  return static_cast<deserialized_t<A>*>(storage);
}

// ---- Writer and Reader members ----
template <typename T, std::enable_if_t<serializable_or_array_v<T>, int>>
void serial_writer::write(const T& object) {
  using U = detail::remove_cvref_t<T>;
  if constexpr (std::is_array_v<U>) {
    write_array(*this, object);
  } else {
    serializer<U>::write(*this, object);
  }
}

template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int>>
std::size_t serial_writer::write_sequence(Iter begin, Iter end) {
  using T = typename std::iterator_traits<Iter>::value_type;
  if constexpr (is_random_access_iterator_v<Iter>) {
    return write_sequence(begin, end, static_cast<std::size_t>(end - begin));
  } else {
    std::size_t n = 0;
    for (; begin != end; ++begin, ++n) {
      const T& x = *begin;  // binds a proxy's value (vector<bool>) as well as a reference
      write(x);
    }
    return n;
  }
}

template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int>>
std::size_t serial_writer::write_sequence(Iter begin, Iter end, std::size_t num_items) {
  using T = typename std::iterator_traits<Iter>::value_type;
  if constexpr (serial_trivial_v<T>) {
    // One capacity check and one padding for the whole run: sizeof(T) is a multiple of its
    // alignment, so consecutive elements are where separate writes would put them.
    std::byte* dst = place(serial_align<T>, num_items * sizeof(T));
    if constexpr (is_contiguous_iterator_v<Iter>) {
      UPCXX_DETAIL_SERIAL_CHECK(static_cast<std::size_t>(end - begin) == num_items,
                                "write_sequence: num_items differs from the length of the sequence");
      if (num_items) std::memcpy(dst, addr_of(*begin), num_items * sizeof(T));
    } else {
      [[maybe_unused]] std::byte* limit = dst + num_items * sizeof(T);
      for (; begin != end; ++begin, dst += sizeof(T)) {
        UPCXX_DETAIL_SERIAL_CHECK(dst < limit, "write_sequence: the sequence is longer than num_items");
        const T& x = *begin;
        std::memcpy(dst, addr_of(x), sizeof(T));
      }
      UPCXX_DETAIL_SERIAL_CHECK(dst == limit, "write_sequence: the sequence is shorter than num_items");
    }
  } else {
    [[maybe_unused]] std::size_t n = 0;
    for (; begin != end; ++begin, ++n) {
      const T& x = *begin;
      write(x);
    }
    UPCXX_DETAIL_SERIAL_CHECK(n == num_items, "write_sequence: num_items differs from the length of the sequence");
  }
  return num_items;
}

template <typename T, std::enable_if_t<serializable_v<T>, int>>
deserialized_t<T> serial_reader::read() {
  return serializer<detail::remove_cvref_t<T>>::read(*this);
}

template <typename T, std::enable_if_t<serializable_or_array_v<T>, int>>
deserialized_t<T>* serial_reader::read_into(void* storage) {
  using U = detail::remove_cvref_t<T>;
  if constexpr (std::is_array_v<U>) {
    return read_array_into<U>(*this, storage);
  } else {
    return serializer<U>::read_into(*this, storage);
  }
}

template <typename T, std::enable_if_t<serializable_v<T>, int>>
deserialized_t<T>* serial_reader::read_sequence_into(void* storage, std::size_t num_items) {
  using U = detail::remove_cvref_t<T>;
  using D = deserialized_t<U>;
  if constexpr (serial_trivial_v<U>) {
    const std::byte* src = take(serial_align<U>, num_items * sizeof(U));
    if (num_items) std::memcpy(storage, src, num_items * sizeof(U));
  } else {
    for (std::size_t i = 0; i < num_items; ++i)
      serializer<U>::read_into(*this, static_cast<std::byte*>(storage) + i * sizeof(D));
  }
  return static_cast<D*>(storage);
}

// Ends the lifetime of the object(s) x names, as read_overwrite requires.
template <typename X>
void destroy_in_place(X& x) {
  if constexpr (std::is_array_v<X>) {
    for (auto& e : x) destroy_in_place(e);
  } else if constexpr (!std::is_trivially_destructible_v<X>) {
    x.~X();
  }
}
template <typename X>
void* storage_of(X& x) {
  return const_cast<void*>(static_cast<const volatile void*>(addr_of(x)));
}

// Reads into an optional: per kind, in place where the kind allows it.
template <typename U, typename O>
O* read_into_optional(serial_reader& r, std::optional<O>& o) {
  constexpr serial_kind k = kind_of<U>();
  if constexpr (k == serial_kind::specialized || k == serial_kind::nested || k == serial_kind::fields ||
                k == serial_kind::values) {
    return serializer<U>::read_into_optional(r, o);
  } else {
    o.reset();
    return addr_of(o.emplace(serializer<U>::read(r)));
  }
}

template <typename T, std::enable_if_t<serializable_v<T>, int>>
deserialized_t<T>* serial_reader::read_into(std::optional<deserialized_t<T>>& storage) {
  return read_into_optional<detail::remove_cvref_t<T>>(*this, storage);
}

template <typename T, std::enable_if_t<serializable_or_array_v<T>, int>>
deserialized_t<T>* serial_reader::read_overwrite(deserialized_t<T>& storage) {
  destroy_in_place(storage);
  return read_into<T>(storage_of(storage));
}

template <typename T, std::enable_if_t<serializable_v<T>, int>>
deserialized_t<T>* serial_reader::read_sequence_overwrite(deserialized_t<T>* storage, std::size_t num_items) {
  for (std::size_t i = 0; i < num_items; ++i) destroy_in_place(storage[i]);
  return read_sequence_into<T>(const_cast<void*>(static_cast<const volatile void*>(storage)), num_items);
}

template <typename T, std::enable_if_t<serializable_or_array_v<T>, int>>
void serial_reader::skip() {
  using U = detail::remove_cvref_t<T>;
  if constexpr (std::is_array_v<U>) {
    using E = std::remove_cv_t<std::remove_all_extents_t<U>>;
    if constexpr (serial_trivial_v<E>) {
      take(serial_align<E>, sizeof(U));
    } else {
      for (std::size_t i = 0; i < std::extent_v<U>; ++i) skip<std::remove_extent_t<U>>();
    }
  } else {
    serializer<U>::skip(*this);
  }
}

template <typename T, std::enable_if_t<serializable_v<T>, int>>
void serial_reader::skip_sequence(std::size_t num_items) {
  using U = detail::remove_cvref_t<T>;
  if constexpr (serial_trivial_v<U>) {
    take(serial_align<U>, num_items * sizeof(U));
  } else {
    for (std::size_t i = 0; i < num_items; ++i) serializer<U>::skip(*this);
  }
}

// ---- entry points for the RPC layer ----

// An upper bound of the bytes serialize_into<T> appends, wherever the writer stands, when it
// is known at compile time: TriviallySerializable types (sizeof + worst-case padding), and
// pairs, tuples, arrays and UPCXX_SERIALIZED_FIELDS/VALUES classes built only from such
// types (the sum). Returns 0 when the size depends on the value (containers, strings,
// views, custom serialization). Sums of bounds bound a sequence of writes.
template <typename T>
constexpr std::size_t static_serialized_size() {
  using U = detail::remove_cvref_t<T>;
  if constexpr (detail::is_bounded_array_v<U>) {
    using E = std::remove_cv_t<std::remove_all_extents_t<U>>;
    if constexpr (serial_trivial_v<E>)
      return sizeof(U) + serial_align<E> - 1;
    else
      return static_serialized_size<std::remove_extent_t<U>>() * std::extent_v<U>;
  } else {
    static_assert(serializable_v<U>, "upcxx: static_serialized_size<T>: T is not Serializable");
    return serializer<U>::static_size;
  }
}

// Appends value (any Serializable type, or an array of them) to w.
template <typename T>
void serialize_into(serial_writer& w, const T& value) {
  w.write(value);
}
// Reads an object serialized as T; returns its deserialized counterpart by value.
template <typename T>
deserialized_t<T> deserialize_from(serial_reader& r) {
  return r.read<T>();
}
// Reads an object serialized as T and constructs its deserialized counterpart in storage
// (sizeof/alignof deserialized_type_t<T>); the caller destroys it. No move for the library's
// types and the class macros; custom deserialize functions construct in place by contract.
template <typename T>
deserialized_t<T>* deserialize_into(serial_reader& r, void* storage) {
  return r.read_into<T>(storage);
}

}  // namespace detail
}  // namespace upcxx
