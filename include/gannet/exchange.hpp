// gannet::all_gather: a blocking all-gather of a small trivially copyable value over team
// world(), for programs (and tests) that need to swap global pointers before the
// collectives layer is in place. Gannet extension, not UPC++.
//
// Collective and blocking: every rank calls it in the same order with the same T. It makes
// user-level progress while it waits. The value is at most gannet::all_gather_max_bytes.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <type_traits>
#include <vector>

#include "upcxx/init.hpp"

namespace gannet {

inline constexpr std::size_t all_gather_max_bytes = 2048;

namespace detail {
// out receives rank_n() * n bytes, rank r's value at out + r * n.
void all_gather_bytes(const void* in, std::size_t n, void* out);
}

template <typename T>
std::vector<T> all_gather(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "gannet::all_gather needs a trivially copyable type");
  static_assert(sizeof(T) <= all_gather_max_bytes, "gannet::all_gather: the value is too large");
  std::vector<T> out(static_cast<std::size_t>(upcxx::rank_n()));
  detail::all_gather_bytes(&value, sizeof(T), out.data());
  return out;
}

}  // namespace gannet
