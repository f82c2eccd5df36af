// Internals of upcxx/serialization.hpp, part 1 of 6 (the umbrella serialization_impl.hpp
// includes them in order and holds the byte-format note). Not API.
//
// Classification: what the class-serialization macros plant in a class (the tags,
// serialized_base, serialization_access), the default of is_trivially_serializable
// (bytes_copyable_v), which mechanism serializes a type (serial_kind, kind_of; the primary
// builtin<T> that later parts specialize), whether it is Serializable (serializable_v), and
// what it deserializes to (deserialized_t, including the two forms of custom deserialize
// functions). Ends with the declarations of serializer<T, K> and static_serialized_size that
// the later parts define.
//
// Depends on: compat.hpp only. The primaries of is_trivially_serializable and serialization
// are declared here and defined in serialization.hpp.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "upcxx/detail/compat.hpp"

namespace upcxx {

template <typename T>
struct is_trivially_serializable;
template <typename T>
struct serialization;
template <typename T>
class deserializing_iterator;
template <typename T, typename IterType>
class view;

namespace detail {

class serial_writer;
class serial_reader;

// ---- what the class-serialization macros plant in a class ----
// Each macro declares the nested name upcxx_serialization, so that a derived class's own
// mechanism hides an inherited one and two mechanisms in one class fail to compile (spec
// 6.2 ¶3, 6.2.5). The tags tell the macros apart from a user's nested class.
struct serialized_fields_tag {};
struct serialized_values_tag {};
struct serialized_delete_tag {};

// UPCXX_SERIALIZED_BASE(B): a reference to the B subobject (const B inside const members).
template <typename B>
struct serialized_base {
  B& ref;
};
template <typename Self, typename B>
using serialized_base_t = std::conditional_t<std::is_const_v<std::remove_reference_t<Self>>, const B, B>;
template <typename X>
struct is_serialized_base : std::false_type {};
template <typename B>
struct is_serialized_base<serialized_base<B>> : std::true_type {
  using base = std::remove_const_t<B>;
};

template <typename... T>
struct type_list {};
template <typename Tuple>
struct type_list_of;
template <typename... T>
struct type_list_of<std::tuple<T...>> {
  using type = type_list<T...>;
};

// What the macros' members return: lvalues (the fields, or values naming members) by
// reference, prvalues (computed values, UPCXX_SERIALIZED_BASE) by value. The members are not
// templates because local classes cannot have member templates.
template <typename... A>
std::tuple<A...> serialized_members(A&&... a) {
  return std::tuple<A...>(std::forward<A>(a)...);
}

// The macros befriend this class, so that default constructors and constructors used by
// deserialization may be private (spec 6.2.1 ¶4, 6.2.2 ¶1).
struct serialization_access {
  template <typename T, typename... A>
  static T* construct(void* storage, A&&... a) {
    return ::new (storage) T(std::forward<A>(a)...);
  }
  template <typename T, typename... A>
  static T make(A&&... a) {
    return T(std::forward<A>(a)...);
  }
  template <typename T>
  static auto fields(T& object) {
    return object.upcxx_serialized_fields_();
  }
  template <typename T>
  static auto values(const T& object) {
    return object.upcxx_serialized_values_();
  }
};

// ---- classification ----
template <typename T>
using nested_serialization_probe = typename T::upcxx_serialization;
template <typename T>
inline constexpr bool has_nested_serialization = is_detected_v<nested_serialization_probe, T>;
// The primary upcxx::serialization<T> carries this marker; a user's specialization does not.
template <typename T>
using unspecialized_probe = typename ::upcxx::serialization<T>::upcxx_unspecialized_;
template <typename T>
inline constexpr bool serialization_specialized = !is_detected_v<unspecialized_probe, T>;

template <typename T>
struct never_trivial : std::false_type {};
template <typename T, typename I>
struct never_trivial<view<T, I>> : std::true_type {};  // Serializable by the spec, never by bytes

// Whether an object of type T may be made by copying another's bytes: std::is_trivially_copyable,
// or, for a type that cannot be copy- or move-assigned, trivial copy and move construction
// and a trivial destructor. The second half is what the standard's definition gives such
// types (deleted special members are not eligible), and it covers closure types: every
// lambda in C++17, and in C++20 every lambda with a capture or a capture default, has a
// deleted copy assignment, and GCC's is_trivially_copyable turns false for such a closure
// once that operator has been looked at (std::tuple of it does). The answer then depended
// on what the program had asked before: a lambda that rpc_ff accepted was refused by
// remote_cx::as_rpc, which keeps it in a tuple.
template <typename T>
inline constexpr bool bytes_copyable_v =
    std::is_trivially_copyable_v<T> ||
    (std::is_trivially_copy_constructible_v<T> && std::is_trivially_move_constructible_v<T> &&
     std::is_trivially_destructible_v<T> && !std::is_copy_assignable_v<T> && !std::is_move_assignable_v<T>);

// The default of is_trivially_serializable<T> (spec 6.1 ¶3-5).
template <typename T>
constexpr bool default_trivially_serializable() {
  if constexpr (std::is_reference_v<T> || detail::is_bounded_array_v<T> || detail::is_unbounded_array_v<T> ||
                std::is_volatile_v<T> || std::is_void_v<T> || std::is_function_v<T>) {
    return false;
  } else if constexpr (std::is_const_v<T>) {
    return ::upcxx::is_trivially_serializable<std::remove_const_t<T>>::value;  // spec 6.4 ¶4
  } else {
    return bytes_copyable_v<T> && !has_nested_serialization<T> && !serialization_specialized<T> &&
           !never_trivial<T>::value;
  }
}
template <typename T>
inline constexpr bool serial_trivial_v = ::upcxx::is_trivially_serializable<T>::value;

// How a cv-unqualified, non-reference, non-array object type is serialized. Precedence
// follows spec 6.2 ¶5: an explicit is_trivially_serializable or serialization<T>
// specialization, then the class's own mechanism, then the library's support.
enum class serial_kind : unsigned char { trivial, specialized, fields, values, nested, builtin, deleted, none };

// Library support for standard types and views: specialized further down.
template <typename T>
struct builtin {
  static constexpr bool enabled = false;
};

template <typename T>
constexpr serial_kind kind_of() {
  if constexpr (serial_trivial_v<T>) {
    return serial_kind::trivial;
  } else if constexpr (serialization_specialized<T>) {
    return serial_kind::specialized;
  } else if constexpr (has_nested_serialization<T>) {
    using tag = typename T::upcxx_serialization;
    if constexpr (std::is_same_v<tag, serialized_fields_tag>)
      return serial_kind::fields;
    else if constexpr (std::is_same_v<tag, serialized_values_tag>)
      return serial_kind::values;
    else if constexpr (std::is_same_v<tag, serialized_delete_tag>)
      return serial_kind::deleted;
    else
      return serial_kind::nested;
  } else if constexpr (builtin<T>::enabled) {
    return serial_kind::builtin;
  } else {
    return serial_kind::none;
  }
}

// is_serializable (spec 6.1 ¶7-10, 6.4).
template <typename T>
constexpr bool serializable_impl() {
  if constexpr (std::is_reference_v<T>) {
    using U = std::remove_reference_t<T>;
    if constexpr (std::is_volatile_v<U>)
      return false;
    else
      return serializable_impl<std::remove_const_t<U>>();
  } else if constexpr (std::is_volatile_v<T> || std::is_array_v<T> || std::is_void_v<T> || std::is_function_v<T>) {
    return false;
  } else if constexpr (std::is_const_v<T>) {
    return serializable_impl<std::remove_const_t<T>>();
  } else {
    constexpr serial_kind k = kind_of<T>();
    return k != serial_kind::deleted && k != serial_kind::none;
  }
}
template <typename T>
inline constexpr bool serializable_v = serializable_impl<T>();

// What Writer::write and Reader::read_into accept: Serializable types, and arrays of them
// (spec 6.2.3 ¶3, 6.4 ¶3).
template <typename T>
constexpr bool writable_impl() {
  using U = detail::remove_cvref_t<T>;
  if constexpr (detail::is_bounded_array_v<U>)
    return writable_impl<std::remove_extent_t<U>>();
  else
    return serializable_v<T>;
}

template <typename T>
inline constexpr bool serializable_or_array_v = writable_impl<T>();

// The Writer and Reader members are constrained (enable_if, so that C++17 programs see the
// same overload sets as C++20 ones): whether w.write(x) is valid can be asked, and a misuse
// names the condition, e.g. "enable_if<serializable_or_array_v<T>, ...> [with T = Foo]".
// make_view, whose overloads differ by arity, asserts instead, in one sentence:
#define UPCXX_DETAIL_NEEDS_SERIALIZABLE(T, what)                                                \
  static_assert(::upcxx::detail::serializable_v<T>, "upcxx: " what ": the type is not Serializable " \
                                                    "(is_serializable<T> is false; spec 6.1)")

// ---- deserialized_type_t ----
template <typename T, serial_kind K = kind_of<T>()>
struct deserialized_by_kind {};
template <typename T>
struct deserialized_by_kind<T, serial_kind::trivial> {
  using type = T;
};
template <typename T>
struct deserialized_by_kind<T, serial_kind::fields> {
  using type = T;  // spec 6.2.5 ¶3: a derived class deserializes as itself
};
template <typename T>
struct deserialized_by_kind<T, serial_kind::values> {
  using type = T;
};
// Custom deserialize functions come in two forms (spec 6.2.3 as revised in UPC++ 2022.9):
//   template <typename Reader, typename Storage> static U* deserialize(Reader&, Storage);
//     (2022.9) builds the object with storage.construct(args...), which may place it in raw
//     memory or emplace it into a managed object such as an optional;
//   template <typename Reader> static U* deserialize(Reader&, void* storage);
//     (2020.10, deprecated by UPC++ but accepted) placement-news the object at storage.
// The form is told by whether deserialize accepts a Storage; the result type U comes from
// the declared return type either way. This probe stands for every Storage type: it is
// never called.
struct storage_probe {
  template <typename... A>
  void* construct(A&&...) const;
};
// (Overloads rather than is_detected_v: GCC does not treat a failed call in an alias
// template as a substitution failure when the alias's expansion is looked at twice.)
template <typename S>
auto custom_deserialize_storage_form(int)
    -> detail::type_identity<decltype(S::deserialize(std::declval<serial_reader&>(), std::declval<storage_probe&>()))>;
template <typename S>
void custom_deserialize_storage_form(...);
template <typename S>
auto custom_deserialize_void_form(int)
    -> detail::type_identity<decltype(S::deserialize(std::declval<serial_reader&>(), std::declval<void*>()))>;
template <typename S>
detail::type_identity<void> custom_deserialize_void_form(...);
template <typename S>
inline constexpr bool custom_deserialize_takes_storage =
    !std::is_void_v<decltype(custom_deserialize_storage_form<S>(0))>;
template <typename S>
constexpr auto custom_result_probe() {
  if constexpr (custom_deserialize_takes_storage<S>)
    return decltype(custom_deserialize_storage_form<S>(0)){};
  else
    return decltype(custom_deserialize_void_form<S>(0)){};
}
// What S::deserialize returns (U*), or void when it has neither form.
template <typename S>
using custom_result_ptr_t = typename decltype(custom_result_probe<S>())::type;

template <typename T>
struct deserialized_by_kind<T, serial_kind::specialized> {
  using type = std::remove_pointer_t<custom_result_ptr_t<::upcxx::serialization<T>>>;
};
template <typename T>
struct deserialized_by_kind<T, serial_kind::nested> {
  using type = std::remove_pointer_t<custom_result_ptr_t<typename T::upcxx_serialization>>;
};
template <typename T>
struct deserialized_by_kind<T, serial_kind::builtin> {
  using type = typename builtin<T>::deserialized_type;
};

struct no_deserialized_type {};
template <typename T>
constexpr auto deserialized_probe() {
  if constexpr (std::is_reference_v<T>) {
    return deserialized_probe<detail::remove_cvref_t<T>>();  // spec 6.4 ¶1: cq T& -> deserialized T
  } else if constexpr (detail::is_bounded_array_v<T>) {
    using E = decltype(deserialized_probe<std::remove_extent_t<T>>());
    if constexpr (std::is_same_v<E, no_deserialized_type>)
      return no_deserialized_type{};
    else
      return detail::type_identity<typename E::type[std::extent_v<T>]>{};
  } else if constexpr (std::is_volatile_v<T> || std::is_array_v<T> || std::is_void_v<T> || std::is_function_v<T>) {
    return no_deserialized_type{};
  } else if constexpr (std::is_const_v<T>) {
    using E = decltype(deserialized_probe<std::remove_const_t<T>>());
    if constexpr (std::is_same_v<E, no_deserialized_type>)
      return no_deserialized_type{};
    else
      return detail::type_identity<const typename E::type>{};  // spec 6.4 ¶4
  } else if constexpr (serializable_v<T>) {
    return detail::type_identity<typename deserialized_by_kind<T>::type>{};
  } else {
    return no_deserialized_type{};
  }
}
// Has a member `type` exactly when T is Serializable (or an array of Serializable elements).
template <typename T>
struct deserialized : decltype(deserialized_probe<T>()) {};
template <typename T>
using deserialized_t = typename deserialized<T>::type;
// For naming a container's deserialized type before knowing whether its elements are
// Serializable: is_serializable<vector<X>> must be false, not an error, when X is not.
template <typename T>
using deserialized_probe_t = typename deserialized<T>::type;
template <typename T>
inline constexpr bool has_deserialized_type = is_detected_v<deserialized_probe_t, T>;
template <typename T>
using deserialized_lazy_t =
    typename std::conditional_t<has_deserialized_type<T>, deserialized<T>, detail::type_identity<T>>::type;

// Per-type implementation, for cv-unqualified non-reference non-array T: write, read (by
// value), read_into (placement), skip, and static_size (an upper bound of the bytes write
// appends at any offset, or 0 when not known statically).
template <typename T, serial_kind K = kind_of<T>()>
struct serializer;

template <typename T>
constexpr std::size_t static_serialized_size();

}  // namespace detail
}  // namespace upcxx
