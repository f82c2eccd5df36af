// Serialization (spec chapter 6): how C++ objects become bytes for RPC arguments and results.
//
//   is_trivially_serializable<T>   byte-copyable for serialization (user-specializable)
//   is_serializable<T>             any form of serialization (not specializable)
//   serialization<T>               user-specializable custom serialize/deserialize
//   serialization_traits<T>        deserialized_type, deserialized_value(); deserialized_type_t
//   UPCXX_SERIALIZED_FIELDS / _VALUES / _DELETE / _BASE   class serialization macros
//   view<T, Iter>, make_view, deserializing_iterator, view_default_iterator_t
//
// What is supported. TriviallySerializable types are copied as bytes: trivially copyable
// types without a class serialization interface, types with is_trivially_serializable
// specialized to true, and std::pair, std::tuple, std::array, std::optional whose elements
// all are. A class may instead serialize itself with one of the macros or a nested
// upcxx_serialization class (inherited by derived classes, spec 6.2.5), or be given a
// specialization of upcxx::serialization<T>. The library serializes std::basic_string,
// vector, deque, list, set, multiset, map, multimap, the unordered_ containers, std::allocator
// and the std function objects (spec 6.3), and, as Gannet extensions, forward_list and
// optional. deserialized_type_t maps each type to what deserialization produces: const is
// kept, references dropped, containers deserialize element-wise, view<T, Iter> becomes
// view<T> whose iterators point into the received bytes (spec 6.7).
//
// Writers and Readers. User serialize functions receive a Writer (write, write_sequence,
// reserve/commit) and deserialize functions a Reader (read, read_into, read_sequence_into;
// from UPC++ 2022.9 read_into an optional, read_overwrite and read_sequence_overwrite; plus
// the extensions skip and skip_sequence); both are upcxx::detail::serial_writer and
// serial_reader, documented with the byte format in detail/serialization_impl.hpp.
// std::reference_wrapper<T> serializes its referent, as T& does (UPC++ 2022.9).
// TriviallySerializable data is one memcpy each way (a vector<double> is a count and one
// memcpy), and nothing here allocates unless a container does or the writer's initial
// buffer overflows. No virtual calls.
//
// Completion, progress and threads. Every call here is local (never collective), completes
// before it returns, has progress level none and makes no UPC++ calls; user serialization
// code must not make any either (spec 6.2.4). A writer or reader is used by one thread at a
// time; separate ones need no synchronization. A view<T> received by an RPC is valid while
// the RPC runs, or until the future it returns is ready (spec 6.7 ¶8); an RPC may not
// return a view.
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/detail/serialization_impl.hpp"
#include "upcxx/optional.hpp"

namespace upcxx {

// ---- traits (spec 6.1, 6.8) ----

// True if T is TriviallySerializable: trivially copyable without a class serialization
// interface, or specialized to true by the user (then T is copied as bytes, and deserialized
// objects are assumed trivially destructible). const T follows T; references, arrays and
// volatile types are never TriviallySerializable.
template <typename T>
struct is_trivially_serializable : std::bool_constant<detail::default_trivially_serializable<T>()> {};

// The library's own specializations: these are TriviallySerializable whenever their
// elements are, even when the C++ library does not make them trivially copyable (spec 6.3
// ¶6), and a trivially copyable container of a non-trivially serializable element is not.
template <typename T1, typename T2>
struct is_trivially_serializable<std::pair<T1, T2>>
    : std::bool_constant<is_trivially_serializable<T1>::value && is_trivially_serializable<T2>::value> {};
template <typename... T>
struct is_trivially_serializable<std::tuple<T...>> : std::bool_constant<(is_trivially_serializable<T>::value && ...)> {
};
template <typename T, std::size_t N>
struct is_trivially_serializable<std::array<T, N>> : std::bool_constant<is_trivially_serializable<T>::value> {};
template <typename T>
struct is_trivially_serializable<std::optional<T>> : std::bool_constant<is_trivially_serializable<T>::value> {};
// Trivially copyable, but its bytes are an address: it serializes its referent instead
// (UPC++ 2022.9, UPC++ specification issue 199).
template <typename T>
struct is_trivially_serializable<std::reference_wrapper<T>> : std::false_type {};
// Stateless; libstdc++ gives it a user-provided copy constructor (spec 6.3 ¶23).
template <typename T>
struct is_trivially_serializable<std::allocator<T>> : std::true_type {};

// True if T is Serializable (spec 6.1 ¶7-12, 6.4). Not specializable.
template <typename T>
struct is_serializable : std::bool_constant<detail::serializable_v<T>> {};

// Specialize for a class to serialize it with static member templates
//   template <typename Writer> static void serialize(Writer&, T const&);
//   template <typename Reader, typename Storage> static U* deserialize(Reader&, Storage storage);
// where deserialize builds its result with `return storage.construct(args...);` (the form of
// UPC++ 2022.9, which lets the library construct U in raw memory or emplace it into an
// optional). The 2020.10 form, which placement-news U itself, is still accepted:
//   template <typename Reader> static U* deserialize(Reader&, void* storage);
// (spec 6.2.3). Takes precedence over mechanisms nested in T; not inherited.
template <typename T>
struct serialization {
  using upcxx_unspecialized_ = void;  // how the library tells the primary template apart
};

namespace detail {
// For every T, Serializable or not, as in the reference implementation: is_serializable, and
// is_actually_trivially_serializable (false for a type that is not Serializable).
template <typename T, bool = serializable_v<T>>
struct serialization_traits_base {
  static constexpr bool is_serializable = false;
  static constexpr bool is_actually_trivially_serializable = false;
  // There is no deserialized value: a call says why, first (as UPC++ does).
  template <typename U = T>
  static auto deserialized_value(const std::remove_reference_t<U>&) {
    using V = detail::remove_cvref_t<U>;
    if constexpr (std::is_class_v<V>) {
      static_assert(kind_of<V>() != serial_kind::deleted,
                    "upcxx: serialization_traits<T>::deserialized_value: T's serialization is deleted "
                    "(UPCXX_SERIALIZED_DELETE in T or a base of T; spec 6.2.5)");
    }
    static_assert(serializable_v<U>,
                  "upcxx: serialization_traits<T>::deserialized_value: T is not Serializable (spec 6.1, 6.8.2); "
                  "is_serializable<T> is false");
  }
};
template <typename T>
struct serialization_traits_base<T, true> {
  static constexpr bool is_serializable = true;
  using deserialized_type = deserialized_t<T>;
  // Whether serializing a T copies its bytes (references: their referent's). Not in the
  // specification; the UPC++ reference implementation has the same member, and programs use
  // it to choose memcpy paths.
  static constexpr bool is_actually_trivially_serializable = serial_trivial_v<detail::remove_cvref_t<T>>;

  // The deserialized counterpart of object, as if serialized and deserialized (spec 6.8.2 ¶6-8).
  static deserialized_type deserialized_value(const std::remove_reference_t<T>& object) {
    static_assert(detail::value_size_ok<deserialized_type>,
                  UPCXX_DETAIL_VALUE_SIZE_MSG("serialization_traits<T>::deserialized_value",
                                              "serialize and deserialize through a view of the object"));
    using U = detail::remove_cvref_t<T>;
    static_assert(!never_trivial<U>::value, "upcxx: deserialized_value does not accept a view (spec 6.8.2 ¶7)");
    if constexpr (serial_trivial_v<U>) {
      return from_bytes<U>(reinterpret_cast<const std::byte*>(addr_of(object)));
    } else {
      alignas(serial_max_align) std::byte stack[256];
      serial_writer w(stack, sizeof stack);
      w.write(object);
      serial_reader r(w.data());
      return r.read<U>();
    }
  }
};
}  // namespace detail

// deserialized_type: the type deserializing a T produces (spec 6.2.6, 6.8.2), and
// deserialized_value(): present only when T is Serializable. is_serializable and
// is_actually_trivially_serializable (reference implementation): present for every T.
template <typename T>
struct serialization_traits : detail::serialization_traits_base<T> {};

template <typename T>
using deserialized_type_t = typename serialization_traits<T>::deserialized_type;

// ---- views (spec 6.7, 6.8.1) ----

// T* for TriviallySerializable T (the received elements are used in place), else
// deserializing_iterator<T>.
template <typename T>
using view_default_iterator_t = detail::view_default_iter_t<T>;

// An input iterator over serialized elements in a received buffer: dereferencing
// deserializes one element and returns it by value (there is no operator->).
template <typename T>
class deserializing_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = deserialized_type_t<T>;
  using difference_type = std::ptrdiff_t;
  using pointer = value_type*;
  using reference = value_type;

  deserializing_iterator() = default;

  value_type operator*() const {
    detail::serial_reader r(pos_);
    return r.read<T>();
  }
  // Deserializes the element into storage (size and alignment of value_type) and returns it;
  // avoids a move for large types.
  pointer deserialize_into(void* storage) const {
    detail::serial_reader r(pos_);
    return r.read_into<T>(storage);
  }
  // UPC++ 2022.9: constructs the element in an optional (destroying any value it held);
  // the optional manages the element's lifetime, so nothing needs destroying by hand.
  pointer deserialize_into(optional<value_type>& storage) const {
    detail::serial_reader r(pos_);
    return r.read_into<T>(storage);
  }
  // UPC++ 2022.9: destroys storage, then deserializes the element in its place.
  pointer deserialize_overwrite(value_type& storage) const {
    detail::serial_reader r(pos_);
    return r.read_overwrite<T>(storage);
  }
  // Skipping an element costs no allocation for trivially serializable types, strings and
  // containers of them; custom serialization is deserialized and destroyed.
  deserializing_iterator& operator++() {
    detail::serial_reader r(pos_);
    r.skip<T>();
    pos_ = r.position();
    return *this;
  }
  deserializing_iterator operator++(int) {
    deserializing_iterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ == y.pos_; }
  friend bool operator!=(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ != y.pos_; }
  // Order by position in the buffer (the reference implementation's iterators compare so;
  // programs loop `for (auto it = v.begin(); it < v.end(); ++it)`). Meaningful for iterators
  // of one view.
  friend bool operator<(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ < y.pos_; }
  friend bool operator<=(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ <= y.pos_; }
  friend bool operator>(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ > y.pos_; }
  friend bool operator>=(const deserializing_iterator& x, const deserializing_iterator& y) { return x.pos_ >= y.pos_; }

 private:
  friend struct detail::view_access;
  explicit deserializing_iterator(const std::byte* pos) : pos_(pos) {}
  const std::byte* pos_ = nullptr;
};

// A non-owning view of a sequence of T delimited by two iterators. Serializing it writes the
// elements; deserializing gives a view<T> over the received bytes.
template <typename T, typename IterType = view_default_iterator_t<T>>
class view {
 public:
  using iterator = IterType;
  using size_type = std::size_t;

  view() = default;  // an empty sequence

  iterator begin() const { return begin_; }
  iterator end() const { return end_; }
  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  friend struct detail::view_access;
  view(IterType begin, IterType end, size_type n) : begin_(begin), end_(end), size_(n) {}
  IterType begin_{};
  IterType end_{};
  size_type size_ = 0;
};

// A view over contiguous elements: what a receiver gets for TriviallySerializable T (its
// elements lie in the network buffer; the receiver may const_cast and modify them), and what
// make_view(T*, T*) gives a sender.
template <typename T>
class view<T, T*> {
 public:
  using value_type = T;
  using pointer = T*;
  using const_pointer = const T*;
  using reference = T&;
  using const_reference = const T&;
  using const_iterator = const T*;
  using iterator = const_iterator;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  using reverse_iterator = const_reverse_iterator;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;

  view() = default;

  const_iterator begin() const { return begin_; }
  const_iterator cbegin() const { return begin_; }
  const_iterator end() const { return end_; }
  const_iterator cend() const { return end_; }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end_); }
  const_reverse_iterator crbegin() const { return const_reverse_iterator(end_); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin_); }
  const_reverse_iterator crend() const { return const_reverse_iterator(begin_); }

  bool empty() const { return begin_ == end_; }
  size_type size() const { return static_cast<size_type>(end_ - begin_); }

  const_reference operator[](size_type n) const { return begin_[n]; }
  const_reference at(size_type n) const {
    if (n >= size()) throw std::out_of_range("upcxx::view::at: index out of range");
    return begin_[n];
  }
  const_reference front() const { return *begin_; }
  const_reference back() const { return end_[-1]; }
  const_pointer data() const { return begin_; }

 private:
  friend struct detail::view_access;
  view(T* begin, T* end, size_type) : begin_(begin), end_(end) {}
  T* begin_ = nullptr;
  T* end_ = nullptr;
  // Elements aligned to more than the network buffer guarantees (16 bytes) may arrive
  // misaligned: the receiver then copies them, and every copy of the view keeps the copy.
  struct nothing_kept {};
  [[no_unique_address]] std::conditional_t<(alignof(T) > detail::serial_max_align), std::shared_ptr<void>,
                                           nothing_kept> kept_{};
};

// A view over [begin, end); size must equal std::distance(begin, end) and saves computing it.
template <typename IterType>
view<typename std::iterator_traits<IterType>::value_type, IterType> make_view(
    IterType begin, IterType end, typename std::iterator_traits<IterType>::difference_type size) {
  using T = typename std::iterator_traits<IterType>::value_type;
  UPCXX_DETAIL_NEEDS_SERIALIZABLE(T, "make_view: the iterator's value_type");
  return detail::view_access::make<T, IterType>(begin, end, static_cast<std::size_t>(size));
}
template <typename IterType>
view<typename std::iterator_traits<IterType>::value_type, IterType> make_view(IterType begin, IterType end) {
  return make_view(begin, end, std::distance(begin, end));
}
// A view over container.cbegin() .. container.cend().
template <typename Container>
view<typename Container::value_type, typename Container::const_iterator> make_view(const Container& container) {
  UPCXX_DETAIL_NEEDS_SERIALIZABLE(typename Container::value_type, "make_view: the container's value_type");
  std::size_t n;
  if constexpr (detail::is_detected_v<detail::size_probe, Container>)
    n = container.size();
  else
    n = static_cast<std::size_t>(std::distance(container.cbegin(), container.cend()));
  return detail::view_access::make<typename Container::value_type, typename Container::const_iterator>(
      container.cbegin(), container.cend(), n);
}

}  // namespace upcxx

// ---- class serialization macros (spec 6.2.1, 6.2.2, 6.2.5) ----
// Invoke them in a public part of a class definition (local classes too); at most one per
// class. They declare the nested name upcxx_serialization, befriend the library (so the
// constructors used may be private) and define a member returning the listed fields (by
// reference) or values, which the library writes and reads left to right.

// Serializes the listed non-static data members (and UPCXX_SERIALIZED_BASE(B) subobjects).
// Deserialization value-initializes a T and overwrites each listed member.
#define UPCXX_SERIALIZED_FIELDS(...)                                                                 \
  using upcxx_serialization = ::upcxx::detail::serialized_fields_tag;                                \
  friend struct ::upcxx::detail::serialization_access;                                               \
  auto upcxx_serialized_fields_() const { return ::upcxx::detail::serialized_members(__VA_ARGS__); } \
  auto upcxx_serialized_fields_() { return ::upcxx::detail::serialized_members(__VA_ARGS__); }

// Serializes the values of the listed expressions (evaluated in a const member function);
// deserialization calls the constructor T(values...) with them as rvalues.
#define UPCXX_SERIALIZED_VALUES(...)                                  \
  using upcxx_serialization = ::upcxx::detail::serialized_values_tag; \
  friend struct ::upcxx::detail::serialization_access;                \
  auto upcxx_serialized_values_() const { return ::upcxx::detail::serialized_members(__VA_ARGS__); }

// Makes this class (and classes derived from it) not Serializable, even if a base is.
#define UPCXX_SERIALIZED_DELETE() using upcxx_serialization = ::upcxx::detail::serialized_delete_tag;

// Inside UPCXX_SERIALIZED_FIELDS or _VALUES: the base subobject of type `base`.
#define UPCXX_SERIALIZED_BASE(...)                                                                     \
  ::upcxx::detail::serialized_base<::upcxx::detail::serialized_base_t<decltype(*this), __VA_ARGS__>> { \
    static_cast<::upcxx::detail::serialized_base_t<decltype(*this), __VA_ARGS__>&>(*this)              \
  }
