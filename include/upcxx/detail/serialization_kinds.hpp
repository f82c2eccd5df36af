// Internals of upcxx/serialization.hpp, part 3 of 6: serializer<T, K>, one per kind of
// serialization. Not API.
//
// TriviallySerializable types (the bytes), UPCXX_SERIALIZED_FIELDS (spec 6.2.1) and
// UPCXX_SERIALIZED_VALUES (6.2.2), custom serialization through serialization<T> or a
// nested T::upcxx_serialization (6.2.3, both forms of deserialize, with the Storage objects
// of the 2022.9 form), and the library's builtin<T>, whose specializations for standard
// types and views are in serialization_std.hpp and serialization_view.hpp.
//
// Depends on: serialization_stream.hpp (and, through it, serialization_classify.hpp).
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstring>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/detail/serialization_stream.hpp"

namespace upcxx {
namespace detail {

// ---- TriviallySerializable: the bytes ----
template <typename T>
struct serializer<T, serial_kind::trivial> {
  static_assert(!serialization_specialized<T>,
                "upcxx: a type may not both specialize upcxx::serialization<T> and have "
                "is_trivially_serializable<T> true (spec 6.2 ¶4)");
  static constexpr std::size_t static_size = sizeof(T) + serial_align<T> - 1;
  static void write(serial_writer& w, const T& v) {
    std::memcpy(w.place(serial_align<T>, sizeof(T)), addr_of(v), sizeof(T));
  }
  static T read(serial_reader& r) { return from_bytes<T>(r.take(serial_align<T>, sizeof(T))); }
  static T* read_into(serial_reader& r, void* storage) {
    std::memcpy(storage, r.take(serial_align<T>, sizeof(T)), sizeof(T));
    return std::launder(static_cast<T*>(storage));
  }
  static void skip(serial_reader& r) { r.take(serial_align<T>, sizeof(T)); }
};

// ---- UPCXX_SERIALIZED_FIELDS (spec 6.2.1) ----
template <typename X>
void write_member(serial_writer& w, const X& x) {
  if constexpr (is_serialized_base<X>::value)
    w.write(x.ref);  // static type: the base
  else
    w.write(x);
}

template <typename A>
void destroy_elements(A& a) {
  if constexpr (std::is_array_v<A>) {
    for (auto& e : a) destroy_elements(e);
  } else if constexpr (!serial_trivial_v<A>) {
    a.~A();  // TriviallySerializable: assumed trivially destructible (spec 6.1 ¶6)
  }
}

// "Each member variable listed is destructed and overwritten by an object deserialized from
// the byte stream" (spec 6.2.1 ¶9).
template <typename X>
void read_field(serial_reader& r, X& field) {
  if constexpr (is_serialized_base<X>::value) {
    using B = std::remove_reference_t<decltype(field.ref)>;
    static_assert(!std::is_polymorphic_v<B>,
                  "upcxx: UPCXX_SERIALIZED_BASE(B): B must not be polymorphic (spec 6.2.5 ¶10)");
    // A base subobject may share its tail padding with the derived class's members, so it is
    // assigned (the compiler copies only B's data) rather than rebuilt as a complete B.
    if constexpr (std::is_move_assignable_v<B>) {
      field.ref = r.read<B>();
    } else {
      field.ref.~B();
      r.read_into<B>(addr_of(field.ref));
    }
  } else {
    static_assert(!std::is_const_v<std::remove_all_extents_t<X>>,
                  "upcxx: UPCXX_SERIALIZED_FIELDS members must not be const (spec 6.2.1 ¶6)");
    static_assert(std::is_same_v<deserialized_t<X>, X>,
                  "upcxx: a UPCXX_SERIALIZED_FIELDS member must deserialize to its own type (spec 6.2.1 ¶8)");
    destroy_elements(field);
    r.read_into<X>(addr_of(field));
  }
}

template <typename X>
void skip_member(serial_reader& r) {
  if constexpr (is_serialized_base<X>::value)
    r.skip<typename is_serialized_base<X>::base>();
  else
    r.skip<X>();
}
template <typename X>
constexpr std::size_t member_static_size() {
  if constexpr (is_serialized_base<X>::value)
    return static_serialized_size<typename is_serialized_base<X>::base>();
  else
    return static_serialized_size<X>();
}
template <typename... X>
constexpr std::size_t members_static_size(type_list<X...>) {
  std::size_t total = 0;
  for (std::size_t s : {std::size_t{1}, member_static_size<detail::remove_cvref_t<X>>()...}) {
    if (s == 0) return 0;
    total += s;
  }
  return total - 1;
}

template <typename T>
struct serializer<T, serial_kind::fields> {
  using field_types = typename type_list_of<decltype(serialization_access::fields(std::declval<T&>()))>::type;
  static constexpr std::size_t static_size = members_static_size(field_types{});

  static void write(serial_writer& w, const T& v) {
    std::apply([&w](const auto&... f) { (write_member(w, f), ...); }, serialization_access::fields(v));
  }
  static void read_fields(serial_reader& r, T& v) {
    // A fold over the comma operator runs left to right: the order write used.
    std::apply([&r](auto&&... f) { (read_field(r, f), ...); }, serialization_access::fields(v));
  }
  static T read(serial_reader& r) {
    T v = serialization_access::make<T>();
    read_fields(r, v);
    return v;
  }
  static T* read_into(serial_reader& r, void* storage) {
    T* p = serialization_access::construct<T>(storage);
    read_fields(r, *p);
    return p;
  }
  template <typename O>
  static O* read_into_optional(serial_reader& r, std::optional<O>& o) {
    o.reset();
    if constexpr (std::is_default_constructible_v<T> && !std::is_const_v<O>) {  // public: optional calls it
      read_fields(r, o.emplace());
      return addr_of(*o);
    } else {
      return addr_of(o.emplace(read(r)));
    }
  }
  static void skip(serial_reader& r) { skip_all(r, field_types{}); }
  template <typename... X>
  static void skip_all(serial_reader& r, type_list<X...>) {
    (skip_member<detail::remove_cvref_t<X>>(r), ...);
  }
};

// ---- UPCXX_SERIALIZED_VALUES (spec 6.2.2) ----
template <typename X>
struct value_type_of {
  using type = detail::remove_cvref_t<X>;
};
template <typename B>
struct value_type_of<serialized_base<B>> {
  using type = std::remove_const_t<B>;
};
template <typename L>
struct value_types;
template <typename... X>
struct value_types<type_list<X...>> {
  using type = type_list<typename value_type_of<detail::remove_cvref_t<X>>::type...>;
};

// Reads the values in order, each into a local, then hands them all (as rvalues) to make.
template <typename Make, typename... Done>
decltype(auto) read_values(serial_reader&, type_list<>, Make& make, Done&&... done) {
  return make(std::move(done)...);
}
template <typename V0, typename... Vs, typename Make, typename... Done>
decltype(auto) read_values(serial_reader& r, type_list<V0, Vs...>, Make& make, Done&&... done) {
  deserialized_t<V0> v = r.read<V0>();
  return read_values(r, type_list<Vs...>{}, make, std::forward<Done>(done)..., std::move(v));
}

template <typename T>
struct serializer<T, serial_kind::values> {
  using values = typename value_types<
      typename type_list_of<decltype(serialization_access::values(std::declval<const T&>()))>::type>::type;
  // The rules first, so that a misuse's first error names them.
  template <typename... V>
  static constexpr bool values_ok(type_list<V...>) {
    static_assert((!std::is_abstract_v<V> && ...),
                  "upcxx: UPCXX_SERIALIZED_BASE(B) within UPCXX_SERIALIZED_VALUES: B must not be abstract (its value is "
                  "deserialized and passed to the constructor; spec 6.2.2, 6.2.5); use UPCXX_SERIALIZED_FIELDS");
    static_assert((serializable_or_array_v<V> && ...),
                  "upcxx: every expression listed in UPCXX_SERIALIZED_VALUES must be Serializable (spec 6.2.2 ¶2); "
                  "give the member's type its own serialization or list Serializable parts of it");
    return true;
  }
  static_assert(values_ok(values{}));
  template <typename... V>
  static constexpr std::size_t sizes(type_list<V...>) {
    static_assert((!std::is_array_v<V> && ...), "upcxx: UPCXX_SERIALIZED_VALUES expressions must not be arrays");
    return sum_static_sizes<V...>();
  }
  static constexpr std::size_t static_size = sizes(values{});

  static void write(serial_writer& w, const T& v) {
    std::apply([&w](const auto&... x) { (write_member(w, x), ...); }, serialization_access::values(v));
  }
  static T read(serial_reader& r) {
    auto make = [](auto&&... a) { return serialization_access::make<T>(std::move(a)...); };
    return read_values(r, values{}, make);
  }
  static T* read_into(serial_reader& r, void* storage) {
    auto make = [storage](auto&&... a) { return serialization_access::construct<T>(storage, std::move(a)...); };
    return read_values(r, values{}, make);
  }
  // std::optional can only call public constructors.
  template <typename... V>
  static constexpr bool emplaceable(type_list<V...>) {
    return std::is_constructible_v<T, deserialized_t<V>&&...>;
  }
  template <typename O>
  static O* read_into_optional(serial_reader& r, std::optional<O>& o) {
    o.reset();
    if constexpr (emplaceable(values{})) {
      auto make = [&o](auto&&... a) { return addr_of(o.emplace(std::move(a)...)); };
      return read_values(r, values{}, make);
    } else {
      return addr_of(o.emplace(read(r)));
    }
  }
  static void skip(serial_reader& r) { skip_all(r, values{}); }
  template <typename... V>
  static void skip_all(serial_reader& r, type_list<V...>) {
    (r.skip<V>(), ...);
  }
};

// ---- custom serialization: T::upcxx_serialization or serialization<T> (spec 6.2.3) ----
template <typename S, typename T>
using custom_serialize_probe = decltype(S::serialize(std::declval<serial_writer&>(), std::declval<const T&>()));
template <typename S>
constexpr bool custom_deserialize_ok() {
  using P = custom_result_ptr_t<S>;
  return std::is_pointer_v<P> && std::is_object_v<std::remove_pointer_t<P>>;
}

// The Storage objects the 2022.9 form of deserialize receives. construct(args...) builds the
// deserialized object from args (parenthesized, as emplace does) and returns a pointer to
// it; call it once. They are passed as lvalues, so deserialize may take its Storage by
// value, by reference or by forwarding reference.
template <typename U>
class raw_storage {  // constructs at a caller's suitably aligned bytes
 public:
  explicit raw_storage(void* at) noexcept : at_(at) {}
  template <typename... A>
  U* construct(A&&... a) const {
    return ::new (at_) U(std::forward<A>(a)...);
  }

 private:
  void* at_;
};
template <typename U, typename O = U>
class optional_storage {  // emplaces into a std::optional<O> (O is U or const U)
 public:
  explicit optional_storage(std::optional<O>& o) noexcept : o_(&o) {}
  template <typename... A>
  U* construct(A&&... a) const {
    return const_cast<U*>(addr_of(o_->emplace(std::forward<A>(a)...)));
  }

 private:
  std::optional<O>* o_;
};

template <typename T, typename S>
struct custom_serializer {
  static_assert(is_detected_v<custom_serialize_probe, S, T>,
                "upcxx: custom serialization must define a public static member template "
                "serialize(Writer&, T const&) (spec 6.2.3 ¶13-14)");
  static_assert(custom_deserialize_ok<S>(),
                "upcxx: custom serialization must define a public static member template "
                "U* deserialize(Reader&, Storage) or U* deserialize(Reader&, void*) with U* spelled as "
                "its return type (spec 6.2.3 ¶13-15)");
  using result = std::remove_pointer_t<custom_result_ptr_t<S>>;
  using plain = std::remove_cv_t<result>;
  static constexpr bool takes_storage = custom_deserialize_takes_storage<S>;
  static constexpr std::size_t static_size = 0;

  static void write(serial_writer& w, const T& v) { S::serialize(w, v); }
  static result* read_into(serial_reader& r, void* storage) {
    if constexpr (takes_storage) {
      raw_storage<plain> st(storage);
      result* p = S::deserialize(r, st);
      UPCXX_DETAIL_SERIAL_CHECK(static_cast<const volatile void*>(p) == storage,
                                "deserialize(Reader&, Storage) must return what storage.construct() returned");
      return p;
    } else {
      return S::deserialize(r, storage);
    }
  }
  // The 2022.9 form emplaces straight into the optional; the 2020.10 form builds the object
  // aside and moves it in.
  template <typename O>
  static O* read_into_optional(serial_reader& r, std::optional<O>& o) {
    o.reset();
    if constexpr (takes_storage) {
      optional_storage<plain, O> st(o);
      result* p = S::deserialize(r, st);
      UPCXX_DETAIL_SERIAL_CHECK(o.has_value() && static_cast<const volatile void*>(p) == addr_of(*o),
                                "deserialize(Reader&, Storage) must return what storage.construct() returned");
      return addr_of(*o);
    } else {
      alignas(result) unsigned char buf[sizeof(result)];
      result* p = S::deserialize(r, buf);
      o.emplace(std::move(*p));
      p->~result();
      return addr_of(*o);
    }
  }
  // deserialize constructs in place; by value costs one move (allowed by spec 6.1 ¶15).
  static result read(serial_reader& r) {
    alignas(result) unsigned char buf[sizeof(result)];
    result* p = read_into(r, buf);
    result out(std::move(*p));
    p->~result();
    return out;
  }
  static void skip(serial_reader& r) {
    alignas(result) unsigned char buf[sizeof(result)];
    read_into(r, buf)->~result();
  }
};
template <typename T>
struct serializer<T, serial_kind::specialized> : custom_serializer<T, ::upcxx::serialization<T>> {};
template <typename T>
struct serializer<T, serial_kind::nested> : custom_serializer<T, typename T::upcxx_serialization> {};

// ---- library support ----
template <typename B>
using builtin_read_into_probe = decltype(B::read_into(std::declval<serial_reader&>(), std::declval<void*>()));
template <typename T>
struct serializer<T, serial_kind::builtin> : builtin<T> {
  using deserialized_type = typename builtin<T>::deserialized_type;
  static constexpr std::size_t static_size = builtin<T>::size_bound();
  static deserialized_type* read_into(serial_reader& r, void* storage) {
    if constexpr (is_detected_v<builtin_read_into_probe, builtin<T>>)
      return builtin<T>::read_into(r, storage);
    else
      return ::new (storage) deserialized_type(builtin<T>::read(r));  // no move: guaranteed elision
  }
};

}  // namespace detail
}  // namespace upcxx
