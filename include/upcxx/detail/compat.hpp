// C++20 library conveniences the public headers use, spelled so that they compile as C++17.
// The library itself is C++20; a user's program may be C++17 (UPC++ programs commonly are), so
// nothing under include/ may need more than C++17. Where C++20 offers the real thing, these
// are aliases of it, so both modes agree.
#pragma once

#include "upcxx/version.hpp"

#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

// Branch hints: [[likely]]/[[unlikely]] are C++20 attributes (and a pedantic C++17 warning).
#define UPCXX_DETAIL_LIKELY(cond) (__builtin_expect(static_cast<bool>(cond), 1))
#define UPCXX_DETAIL_UNLIKELY(cond) (__builtin_expect(static_cast<bool>(cond), 0))

namespace upcxx::detail {

template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

// Names T in a non-deduced context (std::type_identity is C++20).
template <typename T>
struct type_identity {
  using type = T;
};
template <typename T>
using type_identity_t = typename type_identity<T>::type;

template <typename T>
inline constexpr bool is_bounded_array_v = false;
template <typename T, std::size_t N>
inline constexpr bool is_bounded_array_v<T[N]> = true;
template <typename T>
inline constexpr bool is_unbounded_array_v = false;
template <typename T>
inline constexpr bool is_unbounded_array_v<T[]> = true;

// Detection idiom, the C++17 spelling of a requires-expression: is_detected_v<Probe, T...>
// is true when Probe<T...> is well formed.
template <typename Void, template <typename...> class Probe, typename... T>
struct detect : std::false_type {};
template <template <typename...> class Probe, typename... T>
struct detect<std::void_t<Probe<T...>>, Probe, T...> : std::true_type {};
template <template <typename...> class Probe, typename... T>
inline constexpr bool is_detected_v = detect<void, Probe, T...>::value;

template <typename Iter>
inline constexpr bool is_random_access_iterator_v =
    std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<Iter>::iterator_category>;

// Iterators whose elements are contiguous in memory, so a run of them is one memcpy. C++20
// says so with std::contiguous_iterator; in C++17 the ones known for sure are pointers and the
// iterators of vector (not vector<bool>) and std::string. Other iterators take the
// element-wise path, which writes the same bytes.
#if defined(__cpp_lib_concepts) && __cpp_lib_concepts >= 202002L
template <typename Iter>
inline constexpr bool is_contiguous_iterator_v = std::contiguous_iterator<Iter>;
#else
template <typename Iter, typename V = typename std::iterator_traits<Iter>::value_type>
constexpr bool contiguous_iterator_17() {
  if constexpr (std::is_pointer_v<Iter>)
    return true;
  else if constexpr (std::is_same_v<V, bool>)
    return false;  // vector<bool> packs bits
  else if constexpr (std::is_same_v<Iter, typename std::vector<V>::iterator> ||
                     std::is_same_v<Iter, typename std::vector<V>::const_iterator>)
    return true;
  else if constexpr (std::is_same_v<V, char>)
    return std::is_same_v<Iter, std::string::iterator> || std::is_same_v<Iter, std::string::const_iterator>;
  else
    return false;
}
template <typename Iter>
inline constexpr bool is_contiguous_iterator_v = contiguous_iterator_17<Iter>();
#endif

}  // namespace upcxx::detail
