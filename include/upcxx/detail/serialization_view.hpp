// Internals of upcxx/serialization.hpp, part 5 of 6: views (spec 6.7, 6.8.1). Not API.
//
// view_access, through which the view, its T* specialization and deserializing_iterator
// (defined in serialization.hpp, which befriends it) are made, and builtin<view<T, It>>:
// how a view is written, read back in place from the received bytes (or as an aligned copy
// for over-aligned elements that arrived misaligned), forwarded and skipped.
//
// Depends on: serialization_stream.hpp.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "upcxx/detail/serialization_stream.hpp"

namespace upcxx {
namespace detail {

// ---- views (spec 6.7, 6.8.1) ----
template <typename T>
using view_default_iter_t = std::conditional_t<serial_trivial_v<T>, T*, deserializing_iterator<T>>;

// Constructs views and buffer iterators, which have no public constructors.
struct view_access {
  template <typename T, typename It>
  static view<T, It> make(It begin, It end, std::size_t n) {
    return view<T, It>(begin, end, n);
  }
  // A received view of over-aligned elements that arrived misaligned: an aligned copy the
  // view owns.
  template <typename T>
  static view<T, T*> make_aligned_copy(const std::byte* src, std::size_t n) {
    std::shared_ptr<void> copy(::operator new(n * sizeof(T), std::align_val_t(alignof(T))),
                               [](void* q) { ::operator delete(q, std::align_val_t(alignof(T))); });
    std::memcpy(copy.get(), src, n * sizeof(T));
    T* p = static_cast<T*>(copy.get());
    view<T, T*> v(p, p + n, n);
    v.kept_ = std::move(copy);
    return v;
  }
  template <typename T>
  static deserializing_iterator<T> iterator_at(const std::byte* p) {
    return deserializing_iterator<T>(p);
  }
  template <typename T>
  static const std::byte* position_of(const deserializing_iterator<T>& it) {
    return it.pos_;
  }
};

template <typename T, typename It>
struct builtin<view<T, It>> {
  static constexpr bool enabled = serializable_v<T>;
  using deserialized_type = view<T, view_default_iter_t<T>>;  // spec 6.7 ¶6: always view<T>
  static constexpr std::size_t size_bound() { return 0; }

  static void write(serial_writer& w, const view<T, It>& v) {
    std::size_t n = v.size();
    write_size(w, n);
    if constexpr (serial_trivial_v<T>) {
      w.write_sequence(v.begin(), v.end(), n);
    } else if constexpr (std::is_same_v<It, deserializing_iterator<T>>) {
      // A received view: forward its bytes as they are.
      const std::byte* b = view_access::position_of(v.begin());
      std::size_t bytes = static_cast<std::size_t>(view_access::position_of(v.end()) - b);
      write_size(w, bytes);
      w.align_to(serial_max_align);
      std::byte* dst = w.place(1, bytes);
      if (bytes) std::memcpy(dst, b, bytes);
    } else {
      std::size_t bytes_at = reserve_size(w);
      w.align_to(serial_max_align);
      std::size_t start = w.size();
      w.write_sequence(v.begin(), v.end(), n);
      commit_size(w, bytes_at, w.size() - start);
    }
  }
  static deserialized_type read(serial_reader& r) {
    std::size_t n = read_size(r);
    if constexpr (serial_trivial_v<T>) {
      if (n == 0) {
        r.take(serial_align<T>, 0);
        return view_access::make<T, T*>(nullptr, nullptr, 0);
      }
      // The elements stay in the buffer; the spec lets the receiver modify them (6.7 ¶7).
      const std::byte* at = r.take(serial_align<T>, n * sizeof(T));
      if constexpr (alignof(T) > serial_max_align) {
        if (reinterpret_cast<std::uintptr_t>(at) % alignof(T) != 0) return view_access::make_aligned_copy<T>(at, n);
      }
      T* p = reinterpret_cast<T*>(const_cast<std::byte*>(at));
      return view_access::make<T, T*>(p, p + n, n);
    } else {
      std::size_t bytes = read_size(r);
      r.align_to(serial_max_align);
      const std::byte* p = r.take(1, bytes);
      return view_access::make<T, deserializing_iterator<T>>(view_access::iterator_at<T>(p),
                                                             view_access::iterator_at<T>(p + bytes), n);
    }
  }
  static void skip(serial_reader& r) {
    std::size_t n = read_size(r);
    if constexpr (serial_trivial_v<T>) {
      r.take(serial_align<T>, n * sizeof(T));
    } else {
      std::size_t bytes = read_size(r);
      r.align_to(serial_max_align);
      r.take(1, bytes);
    }
  }
};

}  // namespace detail
}  // namespace upcxx
