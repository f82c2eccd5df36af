// upcxx::optional (UPC++ 2022.9): a value that may be absent, with the interface of C++17
// std::optional. UPC++ ships its own class for C++11/14 builds and, from C++17 on, names
// std::optional and its companions; Gannet programs are C++17 or later, so these are always
// the standard library's entities (upcxx::optional<T> IS std::optional<T>: the two mix freely,
// overload the same way and deduce the same way).
//
// An optional<T> is Serializable when T is, TriviallySerializable when T is, and deserializes
// to optional<deserialized_type_t<T>>; a Reader's read_into<T>(optional<...>&) and
// deserializing_iterator<T>::deserialize_into(optional<...>&) construct a value in place in
// one (upcxx/serialization.hpp).
#pragma once

#include "upcxx/version.hpp"

#include <optional>

namespace upcxx {

using std::bad_optional_access;
using std::in_place;
using std::in_place_t;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;

}  // namespace upcxx
