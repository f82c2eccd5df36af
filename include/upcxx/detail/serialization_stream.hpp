// Internals of upcxx/serialization.hpp, part 2 of 6: the byte stream. Not API.
//
// serial_writer (the spec's Writer) and serial_reader (the Reader), their placement and
// padding primitives (place/take, align_to), the debug-codemode check, and the helpers the
// serializers share: sizes, flags, in-place element runs, elided container parameters,
// allocator rebinding, sums of static sizes. The members write, write_sequence, read,
// read_into, skip... are only declared here; serialization_dispatch.hpp defines them, after
// the serializers they dispatch to. The byte format is described in serialization_impl.hpp.
//
// Depends on: serialization_classify.hpp.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <optional>
#include <type_traits>

#include "upcxx/detail/serialization_classify.hpp"

namespace upcxx {
namespace detail {

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

// The largest alignment the stream honours (see the format note in serialization_impl.hpp).
// Types aligned more strictly are still read correctly (by copy), but cannot be viewed in
// place.
inline constexpr std::size_t serial_max_align = 16;
template <typename T>
inline constexpr std::size_t serial_align = alignof(T) < serial_max_align ? alignof(T) : serial_max_align;

template <typename T>
constexpr T* addr_of(T& x) noexcept {
  return __builtin_addressof(x);  // std::addressof without <memory>
}

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
  // What is not Serializable gets a message that names the rule, before anything else.
  template <typename T, std::enable_if_t<!serializable_or_array_v<T>, int> = 0>
  void write(const T&) {
    static_assert(serializable_or_array_v<T>,
                  "upcxx: Writer::write(object): the object's type must be Serializable (spec 6.8.2): trivially "
                  "copyable, a standard container of Serializable elements, or a class with UPCXX_SERIALIZED_FIELDS "
                  "/ UPCXX_SERIALIZED_VALUES or its own serialization");
  }

  // Writes the elements of [begin, end) as separate write() calls would; returns how many.
  // TriviallySerializable elements behind contiguous iterators are one memcpy.
  template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
  std::size_t write_sequence(Iter begin, Iter end);
  template <typename Iter, std::enable_if_t<serializable_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
  std::size_t write_sequence(Iter begin, Iter end, std::size_t num_items);
  template <typename Iter, std::enable_if_t<!serializable_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
  std::size_t write_sequence(Iter, Iter, std::size_t = 0) {
    static_assert(serializable_v<typename std::iterator_traits<Iter>::value_type>,
                  "upcxx: Writer::write_sequence(begin, end): the elements' type must be Serializable (spec 6.8.2)");
    return 0;
  }

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
  // (The result type is instantiated where the call is, so its static_assert comes before
  // any error in the statement that uses the result.)
  template <typename T>
  struct not_serializable_read {
    static_assert(serializable_v<T>,
                  "upcxx: Reader::read<T>(): T must be Serializable (spec 6.8.2), and not an array type "
                  "(read_into<T[N]>(storage) reads an array)");
  };
  template <typename T, std::enable_if_t<!serializable_v<T>, int> = 0>
  not_serializable_read<T> read() {
    return {};
  }
  // Constructs it in storage (suitably sized and aligned for deserialized_type_t<T>); T may
  // be an array type, read whole.
  template <typename T, std::enable_if_t<serializable_or_array_v<T>, int> = 0>
  deserialized_t<T>* read_into(void* storage);
  template <typename T, typename Storage, std::enable_if_t<!serializable_or_array_v<T>, int> = 0>
  void* read_into(Storage&&) {
    static_assert(serializable_or_array_v<T>,
                  "upcxx: Reader::read_into<T>(storage): T must be Serializable, or an array of Serializable "
                  "elements (spec 6.8.2)");
    return nullptr;
  }
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
  template <typename T, typename Storage, std::enable_if_t<!serializable_or_array_v<T>, int> = 0>
  void* read_overwrite(Storage&&) {
    static_assert(serializable_or_array_v<T>,
                  "upcxx: Reader::read_overwrite<T>(object): T must be Serializable, or an array of Serializable "
                  "elements (spec 6.8.2)");
    return nullptr;
  }
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

}  // namespace detail
}  // namespace upcxx
