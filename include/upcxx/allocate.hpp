// Shared-heap storage management (spec chapter 4).
//
// Each rank owns one fixed-size shared heap (gannet-run --shared-heap, default 128 MiB) that
// every rank on the machine can load and store. Allocation is local to the calling rank,
// one-sided, thread-safe, and never communicates: progress level none. The heap coalesces
// freed neighbours, so churn of mixed sizes does not fragment it (tests/unit/heap_allocator).
//
// new_/new_array throw upcxx::bad_shared_alloc on exhaustion with a message that names the
// heap size, what is in use and how to raise it; allocate and the nothrow forms return null.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "upcxx/global_ptr.hpp"
#include "upcxx/init.hpp"

namespace upcxx {

class bad_shared_alloc : public std::bad_alloc {
 public:
  bad_shared_alloc() = default;
  explicit bad_shared_alloc(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override {
    return what_.empty() ? "upcxx::bad_shared_alloc" : what_.c_str();
  }

 private:
  std::string what_;
};

// The reference implementation's collective heap reset (not in the specification; in upcxx::
// until UPC++ 2021.3 moved it to experimental; docs/compatibility.md). destroy_heap() frees
// every object in every rank's shared heap at once (it reports how many were still there);
// allocation fails until restore_heap(). Both are collective over world, on the master persona.
namespace experimental {
void destroy_heap();
void restore_heap();
}  // namespace experimental
using experimental::destroy_heap;
using experimental::restore_heap;

namespace detail {
// The calling rank's heap. Null on exhaustion; alignment is a power of two.
void* heap_allocate(std::size_t size, std::size_t alignment);
void heap_deallocate(void* p);
[[noreturn]] void throw_bad_shared_alloc(const char* what, std::size_t size);
[[noreturn]] void fail_not_mine(const char* what, intrank_t owner, const detail::source_loc& loc);

// The address of memory this rank allocated: a global pointer carries the owner's address,
// which for the owner itself is the address to use.
template <typename T>
T* own_address(const global_ptr<T>& g) {
  return const_cast<T*>(g.raw_);
}

// Freeing after finalize() (or before init()) does nothing: the shared heap went with
// finalize(), and RAII owners local to main() are destroyed after it (docs/compatibility.md).
// True when the caller is to return without touching the pointer; debug codemode warns
// once per process, naming the first such call site.
void note_freed_late(const char* what, const detail::source_loc& loc);
inline bool freed_late([[maybe_unused]] const char* what, [[maybe_unused]] const detail::source_loc& loc) {
  if (UPCXX_DETAIL_LIKELY(g_state.init_count > 0)) return false;
#if UPCXX_ASSERT_ENABLED
  note_freed_late(what, loc);
#endif
  return true;
}

// Debug codemode: only the rank that allocated shared memory may free it.
inline void check_mine([[maybe_unused]] const char* what, [[maybe_unused]] intrank_t owner,
                       [[maybe_unused]] const detail::source_loc& loc) {
#if UPCXX_ASSERT_ENABLED
  if (owner != g_state.rank_me) fail_not_mine(what, owner, loc);
#endif
}

template <typename T>
global_ptr<T> own_gptr(void* p) {
  return global_ptr<T>(gptr_raw_tag{}, g_state.rank_me, static_cast<T*>(p));
}

// new_array keeps the element count in front of the elements when it must run destructors.
template <typename T>
constexpr std::size_t array_prefix() {
  if constexpr (std::is_trivially_destructible_v<T>) return 0;
  else return alignof(T) > sizeof(std::size_t) ? alignof(T) : sizeof(std::size_t);
}
}  // namespace detail

// Current size of the calling rank's shared heap and the bytes it has allocated (from later
// UPC++ releases; in bytes).
std::size_t shared_segment_size();
std::size_t shared_segment_used();

void* allocate(std::size_t size, std::size_t alignment = alignof(std::max_align_t));
void deallocate(void* p, detail::source_loc loc = detail::source_loc::current());

// Both spellings of the typed form work: allocate<T>(n, align) (spec 2020.10) and
// allocate<T, align>(n) (earlier revisions).
template <typename T, std::size_t Alignment = alignof(T)>
global_ptr<T> allocate(std::size_t n = 1, std::size_t alignment = Alignment) {
  detail::check_init("upcxx::allocate", detail::source_loc::current());
  return detail::own_gptr<T>(detail::heap_allocate(n * sizeof(T), alignment));
}

template <typename T>
void deallocate(global_ptr<T> g, detail::source_loc loc = detail::source_loc::current()) {
  if (g.is_null() || detail::freed_late("upcxx::deallocate", loc)) return;
  detail::check_mine("upcxx::deallocate", g.where(), loc);
  detail::heap_deallocate(detail::own_address(g));
}

template <typename T, typename... Args>
global_ptr<T> new_(const std::nothrow_t&, Args&&... args) {
  static_assert(!std::is_array_v<T>,
                "upcxx::new_<T>: T must not be an array type (spec 2.4): use upcxx::new_array<E>(n) for n elements");
  static_assert(!std::is_reference_v<T> && !std::is_function_v<T> && !std::is_void_v<T>,
                "upcxx::new_<T>: T must be an object type");
  detail::check_init("upcxx::new_", detail::source_loc::current());
  void* p = detail::heap_allocate(sizeof(T), alignof(T));
  if (!p) return nullptr;
  try {
    ::new (p) T(std::forward<Args>(args)...);
  } catch (...) {
    detail::heap_deallocate(p);
    throw;
  }
  return detail::own_gptr<T>(p);
}

template <typename T, typename... Args>
global_ptr<T> new_(Args&&... args) {
  static_assert(!std::is_array_v<T>,
                "upcxx::new_<T>: T must not be an array type (spec 2.4): use upcxx::new_array<E>(n) for n elements");
  static_assert(!std::is_reference_v<T> && !std::is_function_v<T> && !std::is_void_v<T>,
                "upcxx::new_<T>: T must be an object type");
  detail::check_init("upcxx::new_", detail::source_loc::current());
  void* p = detail::heap_allocate(sizeof(T), alignof(T));
  if (!p) detail::throw_bad_shared_alloc("upcxx::new_", sizeof(T));
  try {
    ::new (p) T(std::forward<Args>(args)...);
  } catch (...) {
    detail::heap_deallocate(p);
    throw;
  }
  return detail::own_gptr<T>(p);
}

template <typename T>
global_ptr<T> new_array(std::size_t n, const std::nothrow_t&) {
  static_assert(!std::is_array_v<T> && !std::is_reference_v<T> && !std::is_void_v<T>,
                "upcxx::new_array<T>(n): T is the element type, an object type that is not an array (spec 2.4)");
  static_assert(std::is_default_constructible_v<T>,
                "upcxx::new_array<T>(n): T must be DefaultConstructible, as for new T[n] (spec 2.4); allocate and "
                "construct the elements yourself (upcxx::allocate<T>(n) and placement new) otherwise");
  detail::check_init("upcxx::new_array", detail::source_loc::current());
  constexpr std::size_t prefix = detail::array_prefix<T>();
  if (n > (~std::size_t{0} - prefix) / (sizeof(T) ? sizeof(T) : 1)) return nullptr;
  constexpr std::size_t align = alignof(T) > alignof(std::size_t) ? alignof(T) : alignof(std::size_t);
  auto* block = static_cast<unsigned char*>(detail::heap_allocate(prefix + n * sizeof(T), align));
  if (!block) return nullptr;
  T* elems = reinterpret_cast<T*>(block + prefix);
  std::size_t built = 0;
  try {
    // Default initialization, as operator new[] (spec §4.2 ¶15 and its footnote).
    for (; built < n; ++built) ::new (static_cast<void*>(elems + built)) T;
  } catch (...) {
    while (built > 0) elems[--built].~T();
    detail::heap_deallocate(block);
    throw;
  }
  if constexpr (prefix != 0) *reinterpret_cast<std::size_t*>(block + prefix - sizeof(std::size_t)) = n;
  return detail::own_gptr<T>(elems);
}

template <typename T>
global_ptr<T> new_array(std::size_t n) {
  constexpr std::size_t prefix = detail::array_prefix<T>();
  if (n > (~std::size_t{0} - prefix) / (sizeof(T) ? sizeof(T) : 1))
    detail::throw_bad_shared_alloc("upcxx::new_array", ~std::size_t{0});
  global_ptr<T> g = new_array<T>(n, std::nothrow);
  if (g.is_null()) detail::throw_bad_shared_alloc("upcxx::new_array", prefix + n * sizeof(T));
  return g;
}

template <typename T>
void delete_(global_ptr<T> g, detail::source_loc loc = detail::source_loc::current()) {
  static_assert(std::is_destructible_v<T>, "upcxx::delete_: T must be Destructible (its destructor runs, spec 2.4)");
  if (g.is_null() || detail::freed_late("upcxx::delete_", loc)) return;
  detail::check_mine("upcxx::delete_", g.where(), loc);
  T* p = detail::own_address(g);
  p->~T();
  detail::heap_deallocate(const_cast<std::remove_cv_t<T>*>(p));
}

template <typename T>
void delete_array(global_ptr<T> g, detail::source_loc loc = detail::source_loc::current()) {
  static_assert(std::is_destructible_v<T>, "upcxx::delete_array: T must be Destructible (its destructor runs, spec 2.4)");
  if (g.is_null() || detail::freed_late("upcxx::delete_array", loc)) return;
  detail::check_mine("upcxx::delete_array", g.where(), loc);
  using U = std::remove_cv_t<T>;
  U* elems = const_cast<U*>(detail::own_address(g));
  constexpr std::size_t prefix = detail::array_prefix<U>();
  auto* block = reinterpret_cast<unsigned char*>(elems) - prefix;
  if constexpr (prefix != 0) {
    std::size_t n = *reinterpret_cast<std::size_t*>(block + prefix - sizeof(std::size_t));
    while (n > 0) elems[--n].~U();
  }
  detail::heap_deallocate(block);
}

}  // namespace upcxx
