// Internals of upcxx/serialization.hpp (spec chapter 6). Not API: include
// <upcxx/serialization.hpp>. The RPC layer uses the byte stream directly:
//
//   serial_writer      appends bytes; starts in a caller's buffer, spills to the heap
//   serial_reader      reads them back; it is also the Reader user code sees
//   serialize_into / deserialize_from / deserialize_into / static_serialized_size
//
// Byte stream format. Every TriviallySerializable object is its bytes, placed at an offset
// that is a multiple of min(alignof(T), 16); padding bytes are unspecified. The writer
// computes padding from its own offset 0; the reader computes it from the address it reads
// at. The two agree because THE FIRST BYTE OF A STREAM IS READ FROM A 16-BYTE ALIGNED
// ADDRESS (the RPC layer guarantees it; heap buffers from ::operator new are 16-aligned).
// A payload of zero bytes is never padded, on either side, so write_sequence of an empty
// range matches a reader that reads nothing. Other encodings, all built from the above:
//
//   sequence container   [allocator][count: size_t][elements, as write_sequence writes them]
//   set / map            [comparator][allocator][count][elements]
//   unordered set / map  [hash][key_equal][allocator][count][elements]
//   std::optional        [engaged: bool][value if engaged]
//   pair/tuple/array     each element in order (when not TriviallySerializable as a whole)
//   view<T>, T trivial   [count][elements]                the reader's view points at them
//   view<T>, otherwise   [count][bytes: size_t][pad to 16][elements]
//
// Allocators, comparators, hashes and key_equals that are empty and TriviallySerializable
// (std::allocator, std::less, std::hash, ...) occupy no bytes: an empty class has no value
// bits to copy. The 16-byte pad in front of non-trivial view elements lets a received view
// be forwarded by copying its bytes (their padding stays valid at any 16-aligned offset).
#pragma once

#include "upcxx/version.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <forward_list>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

// Bugs in the use of a writer (a sequence longer than the count given, a handle committed
// twice) stop the program in debug codemode. Header-only on purpose: no library needed.
[[noreturn]] inline void serial_fail(const char* what) noexcept {
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}
#if UPCXX_ASSERT_ENABLED
#define UPCXX_DETAIL_SERIAL_CHECK(cond, msg) \
  ((cond) ? (void)0 : ::upcxx::detail::serial_fail("upcxx serialization: " msg))
#else
#define UPCXX_DETAIL_SERIAL_CHECK(cond, msg) ((void)0)
#endif

// The largest alignment the stream honours (see the format note above). Types aligned more
// strictly are still read correctly (by copy), but cannot be viewed in place.
inline constexpr std::size_t serial_max_align = 16;
template <typename T>
inline constexpr std::size_t serial_align = alignof(T) < serial_max_align ? alignof(T) : serial_max_align;

template <typename T>
constexpr T* addr_of(T& x) noexcept {
  return __builtin_addressof(x);  // std::addressof without <memory>
}

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

// ---- the byte stream ----

// Appends serialized bytes. Starts writing into a caller-provided buffer (e.g. 512 bytes on
// the stack) and moves to a heap buffer only when that is too small. This is the Writer
// passed to user serialize functions (spec 6.2.3 ¶2-7, 6.8.2 ¶20-42). Not thread-safe; not
// copyable or movable (it may point into its creator's stack).
class serial_writer {
 public:
  // A location reserved by reserve<T>() and filled by commit() (spec 6.8.2 ¶32-41). It holds
  // an offset, not a pointer, so it survives the buffer moving to the heap.
  template <typename T>
  class reserve_handle {
   public:
    reserve_handle(reserve_handle&& other) noexcept : offset_(other.offset_) { other.offset_ = consumed; }
    reserve_handle& operator=(reserve_handle&& other) noexcept {
      offset_ = other.offset_;
      other.offset_ = consumed;
      return *this;
    }
    ~reserve_handle() = default;

   private:
    friend class serial_writer;
    static constexpr std::size_t consumed = ~std::size_t{0};
    explicit reserve_handle(std::size_t offset) noexcept : offset_(offset) {}
    std::size_t offset_;
  };

  // initial may be null with initial_capacity 0: the first write then allocates.
  serial_writer(void* initial, std::size_t initial_capacity) noexcept
      : buf_(static_cast<std::byte*>(initial)),
        cap_(initial ? initial_capacity : 0),
        initial_(buf_),
        initial_cap_(cap_) {}
  // Frees the heap buffer, if any (not one handed out by release_heap).
  ~serial_writer() {
    if (heap_) ::operator delete(buf_);
  }
  serial_writer(const serial_writer&) = delete;
  serial_writer& operator=(const serial_writer&) = delete;

  // Bytes written so far.
  std::size_t size() const noexcept { return size_; }
  // Start of the bytes: the caller's buffer, or the heap buffer after a spill. Invalidated by
  // the next write.
  std::byte* data() noexcept { return buf_; }
  const std::byte* data() const noexcept { return buf_; }
  // Bytes the current buffer holds before the next spill.
  std::size_t capacity() const noexcept { return cap_; }
  // Whether the bytes spilled to the heap.
  bool on_heap() const noexcept { return heap_; }

  // Hands the bytes to the caller as a heap block of at least *size bytes, allocated with
  // plain ::operator new (so 16-byte aligned: __STDCPP_DEFAULT_NEW_ALIGNMENT__); free it with
  // free_heap() or ::operator delete(p). If the bytes are still in the caller's buffer they
  // are copied to a new block. The writer is left empty, writing into its initial buffer.
  std::byte* release_heap(std::size_t* size) {
    std::byte* out = buf_;
    if (!heap_) {
      out = static_cast<std::byte*>(::operator new(size_ ? size_ : 1));
      if (size_) std::memcpy(out, buf_, size_);
    }
    if (size) *size = size_;
    buf_ = initial_;
    cap_ = initial_cap_;
    size_ = 0;
    heap_ = false;
    return out;
  }
  static void free_heap(std::byte* p) noexcept { ::operator delete(p); }

  // Forgets the bytes written; keeps the current buffer.
  void clear() noexcept { size_ = 0; }
  // Makes room for at least `bytes` bytes in total, spilling now rather than mid-stream.
  void reserve_capacity(std::size_t bytes) {
    if (bytes > cap_) grow(bytes);
  }

  // Appends n bytes at the next multiple of align (a power of two <= 16) and returns where
  // they go; the pointer is valid until the next write. n == 0 appends nothing, not even
  // padding (see the format note).
  std::byte* place(std::size_t align, std::size_t n) {
    if (n == 0) return buf_ + size_;
    std::size_t at = (size_ + align - 1) & ~(align - 1);
    std::size_t end = at + n;
    if (UPCXX_DETAIL_UNLIKELY(end > cap_))
      grow(end);
    size_ = end;
    return buf_ + at;
  }
  // Pads to a multiple of align unconditionally; the reader mirrors it with align_to().
  void align_to(std::size_t align) {
    std::size_t at = (size_ + align - 1) & ~(align - 1);
    if (UPCXX_DETAIL_UNLIKELY(at > cap_))
      grow(at);
    size_ = at;
  }

  // ---- the spec's Writer ----
  // Writes object (a Serializable object, or an array of them).
  template <typename T, std::enable_if_t<serializable_or_array_v<T>, int> = 0>
  void write(const T& object);

  // Writes the elements of [begin, end) as separate write() calls would; returns how many.
  // TriviallySerializable elements behind contiguous iterators are one memcpy.
  template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
  std::size_t write_sequence(Iter begin, Iter end);
  template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
  std::size_t write_sequence(Iter begin, Iter end, std::size_t num_items);

  template <typename T>
  reserve_handle<T> reserve() {
    static_assert(serial_trivial_v<T>, "upcxx: Writer::reserve<T>() needs a TriviallySerializable T (spec 6.8.2 ¶36)");
    std::byte* at = place(serial_align<T>, sizeof(T));
    return reserve_handle<T>(static_cast<std::size_t>(at - buf_));
  }
  // The spec's signature takes the handle as an rvalue; its own example passes an lvalue, so
  // both are accepted. Either way the handle is used up.
  template <typename T>
  void commit(reserve_handle<T>&& handle, const detail::type_identity_t<T>& object) {
    commit(handle, object);
  }
  template <typename T>
  void commit(reserve_handle<T>& handle, const detail::type_identity_t<T>& object) {
    static_assert(serial_trivial_v<T>, "upcxx: Writer::commit needs a TriviallySerializable T (spec 6.8.2 ¶40)");
    UPCXX_DETAIL_SERIAL_CHECK(handle.offset_ != reserve_handle<T>::consumed, "commit() on a used reserve_handle");
    UPCXX_DETAIL_SERIAL_CHECK(handle.offset_ + sizeof(T) <= size_, "commit() with a handle from another writer");
    std::memcpy(buf_ + handle.offset_, addr_of(object), sizeof(T));
    handle.offset_ = reserve_handle<T>::consumed;
  }

 private:
  // Out of line: the common case never spills.
  [[gnu::noinline]] void grow(std::size_t needed) {
    std::size_t cap = cap_ * 2;
    if (cap < needed) cap = needed;
    if (cap < 256) cap = 256;
    auto* fresh = static_cast<std::byte*>(::operator new(cap));
    if (size_) std::memcpy(fresh, buf_, size_);
    if (heap_) ::operator delete(buf_);
    buf_ = fresh;
    cap_ = cap;
    heap_ = true;
  }

  std::byte* buf_;
  std::size_t size_ = 0;
  std::size_t cap_;
  std::byte* initial_;
  std::size_t initial_cap_;
  bool heap_ = false;
};

static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= serial_max_align,
              "serial_writer's heap buffers must be 16-byte aligned for the reader");

// Reads a byte stream whose first byte is at a 16-byte aligned address (see the format
// note); a reader may start anywhere in it, e.g. after a header its caller parsed. This is
// the Reader passed to user deserialize functions (spec 6.2.3 ¶8-12, 6.8.2 ¶43-54). There
// is no end pointer: the types read must be the types written, in the same order.
class serial_reader {
 public:
  explicit serial_reader(const void* bytes) noexcept : cur_(static_cast<const std::byte*>(bytes)) {}

  // The next unread byte (after padding for the next item is skipped, once it is read).
  const std::byte* position() const noexcept { return cur_; }

  // Consumes n bytes at the next address that is a multiple of align and returns them; the
  // mirror of serial_writer::place (n == 0 consumes nothing, not even padding).
  const std::byte* take(std::size_t align, std::size_t n) noexcept {
    if (n == 0) return cur_;
    auto addr = reinterpret_cast<std::uintptr_t>(cur_);
    std::size_t pad = (0 - addr) & (align - 1);
    const std::byte* at = cur_ + pad;
    cur_ = at + n;
    return at;
  }
  // The mirror of serial_writer::align_to.
  void align_to(std::size_t align) noexcept {
    auto addr = reinterpret_cast<std::uintptr_t>(cur_);
    cur_ += (0 - addr) & (align - 1);
  }

  // ---- the spec's Reader ----
  // Reads an object written as a T and returns its deserialized counterpart.
  template <typename T, std::enable_if_t<serializable_v<T>, int> = 0>
  deserialized_t<T> read();
  // Constructs it in storage (suitably sized and aligned for deserialized_type_t<T>); T may
  // be an array type, read whole.
  template <typename T, std::enable_if_t<serializable_or_array_v<T>, int> = 0>
  deserialized_t<T>* read_into(void* storage);
  // Reads num_items objects written as T into an array at storage.
  template <typename T, std::enable_if_t<serializable_v<T>, int> = 0>
  deserialized_t<T>* read_sequence_into(void* storage, std::size_t num_items);
  // UPC++ 2022.9: constructs the object in an optional (destroying the value it held, as
  // emplace does) and returns a pointer to it. Custom deserialize functions of the 2022.9
  // form and the class macros construct it in place (no move), others move it in once.
  template <typename T, std::enable_if_t<serializable_v<T>, int> = 0>
  deserialized_t<T>* read_into(std::optional<deserialized_t<T>>& storage);
  // UPC++ 2022.9: destroy the object(s) at storage, then read into the same place as
  // read_into / read_sequence_into do. For reading into members of an object deserialize
  // has already constructed. T may be an array type for read_overwrite.
  template <typename T, std::enable_if_t<serializable_or_array_v<T>, int> = 0>
  deserialized_t<T>* read_overwrite(deserialized_t<T>& storage);
  template <typename T, std::enable_if_t<serializable_v<T>, int> = 0>
  deserialized_t<T>* read_sequence_overwrite(deserialized_t<T>* storage, std::size_t num_items);
  // Gannet extension (as in later UPC++ revisions): pass over objects without keeping them.
  // Cheap for TriviallySerializable types, strings and containers of them; user-defined
  // custom serialization is deserialized and destroyed.
  template <typename T, std::enable_if_t<serializable_or_array_v<T>, int> = 0>
  void skip();
  template <typename T, std::enable_if_t<serializable_v<T>, int> = 0>
  void skip_sequence(std::size_t num_items);

 private:
  const std::byte* cur_;
};

// ---- helpers shared by the serializers ----

// A TriviallySerializable T rebuilt from its bytes: no constructor runs on the bytes (spec
// 6.1 ¶6), the result is moved out.
template <typename T>
T from_bytes(const std::byte* src) {
  alignas(T) unsigned char buf[sizeof(T)];
  std::memcpy(buf, src, sizeof(T));
  return static_cast<T&&>(*std::launder(reinterpret_cast<T*>(buf)));
}

inline void write_size(serial_writer& w, std::size_t n) {
  std::memcpy(w.place(alignof(std::size_t), sizeof n), &n, sizeof n);
}
inline std::size_t read_size(serial_reader& r) {
  std::size_t n;
  std::memcpy(&n, r.take(alignof(std::size_t), sizeof n), sizeof n);
  return n;
}
// A size written later (the byte length of a view): returns its offset in the writer.
inline std::size_t reserve_size(serial_writer& w) {
  return static_cast<std::size_t>(w.place(alignof(std::size_t), sizeof(std::size_t)) - w.data());
}
inline void commit_size(serial_writer& w, std::size_t offset, std::size_t n) {
  std::memcpy(w.data() + offset, &n, sizeof n);
}
// A bool, encoded as write(bool) would encode it.
inline void write_flag(serial_writer& w, bool b) { std::memcpy(w.place(1, sizeof b), &b, sizeof b); }
inline bool read_flag(serial_reader& r) {
  bool b;
  std::memcpy(&b, r.take(1, sizeof b), sizeof b);
  return b;
}

// Elements a container can copy-construct straight from the incoming bytes: trivially
// serializable, copied member-wise exactly as bytes would be, and aligned in the stream.
template <typename T>
inline constexpr bool in_place_v = serial_trivial_v<T> && std::is_trivially_copy_constructible_v<T> &&
                                   alignof(T) <= serial_max_align;
template <typename T>
const T* take_in_place(serial_reader& r, std::size_t n) {
  return reinterpret_cast<const T*>(r.take(serial_align<T>, n * sizeof(T)));
}

// Container parameters (allocator, comparator, hash, key_equal): serialized per spec 6.3
// ¶26, except that empty TriviallySerializable ones occupy no bytes.
template <typename A>
inline constexpr bool elided_param_v = std::is_empty_v<A> && serial_trivial_v<A>;
template <typename A>
void write_param(serial_writer& w, const A& a) {
  if constexpr (!elided_param_v<A>) w.write(a);
}
template <typename A>
deserialized_t<A> read_param(serial_reader& r) {
  if constexpr (elided_param_v<A>) {
    alignas(A) unsigned char buf[sizeof(A)] = {};  // an empty class: no value bits to copy
    return static_cast<A&&>(*std::launder(reinterpret_cast<A*>(buf)));
  } else {
    return r.read<A>();
  }
}
template <typename A>
void skip_param(serial_reader& r) {
  if constexpr (!elided_param_v<A>) r.skip<A>();
}

// Rebinds an allocator to the deserialized element type (needed when it differs, spec 6.3 ¶27).
template <typename A, typename U>
struct rebind_alloc {
  using type = A;
};
template <template <typename, typename...> class Alloc, typename X, typename... R, typename U>
struct rebind_alloc<Alloc<X, R...>, U> {
  using type = Alloc<U, R...>;
};
template <typename A, typename U>
using rebind_alloc_t =
    std::conditional_t<std::is_same_v<typename A::value_type, U>, A, typename rebind_alloc<A, U>::type>;

template <typename... T>
constexpr std::size_t sum_static_sizes() {
  std::size_t total = 0;
  for (std::size_t s : {std::size_t{1}, static_serialized_size<T>()...}) {
    if (s == 0) return 0;
    total += s;
  }
  return total - 1;
}

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
