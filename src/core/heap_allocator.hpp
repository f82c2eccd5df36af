// The allocator behind each rank's shared segment (upcxx::allocate, new_, new_array).
//
// A two-level segregated-fit allocator with boundary tags: deallocate is O(1), allocate is
// O(1) apart from a fallback taken only when the O(1) search fails (heap_allocator.cpp), and
// a freed block merges with its free neighbours at once, so a heap that has been emptied is
// one block again. All bookkeeping lives in block headers inside the managed range and in
// this object (free-list heads and bitmaps); allocate and deallocate never call malloc, so
// their cost is bounded and they fail only because the segment is full.
//
// The block layout and the invariants are described at the top of heap_allocator.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace gannet::runtime {

class heap_allocator {
 public:
  // Manages [base, base+bytes). base is normally 64-byte aligned; a less aligned base only
  // loses the bytes up to the next multiple of 16. Any bytes works (up to 256 TiB are
  // used); below 64 bytes nothing can ever be allocated.
  heap_allocator(void* base, std::size_t bytes);
  heap_allocator(const heap_allocator&) = delete;
  heap_allocator& operator=(const heap_allocator&) = delete;

  // Returns nullptr when no block fits. alignment is a power of two (values below 16 mean
  // 16). size 0 behaves as size 1, so every call that succeeds returns a distinct pointer.
  void* allocate(std::size_t size, std::size_t alignment);
  // p is null (no-op) or a live pointer from allocate. A pointer that is not the start of a
  // live block (double free, interior or foreign pointer) prints one line to stderr and
  // aborts.
  void deallocate(void* p);

  std::size_t capacity() const { return bytes_; }
  // Bytes in live blocks, headers and alignment/rounding slack included.
  std::size_t used() const;
  // Usable bytes of the largest free block: allocate(largest_free(), 16) succeeds.
  std::size_t largest_free() const;
  std::size_t live_blocks() const;
  std::size_t free_blocks() const;
  bool owns(const void* p) const {
    auto a = reinterpret_cast<std::uintptr_t>(p);
    return a >= base_ && a - base_ < bytes_;
  }
  // Fixed bytes every block spends on its header.
  static constexpr std::size_t block_overhead() { return 16; }

  // Walks every block and every free list and checks the invariants documented in
  // heap_allocator.cpp. Returns nullptr when they all hold, else a short description of the
  // first one that is broken. O(blocks): for tests and debugging.
  const char* check_invariants() const;

 private:
  struct block;

  // First level: one class per power of two (plus class 0 for sizes below small_limit);
  // second level: sl_count linear subdivisions of each power of two.
  static constexpr unsigned sl_log2 = 5;
  static constexpr unsigned sl_count = 1u << sl_log2;
  static constexpr unsigned fl_count = 40;  // block sizes below 2^48

  block* find_free(std::size_t need, std::size_t alignment);
  void insert_free(block* b);
  void remove_free(block* b);
  [[noreturn]] void report_bad_free(const void* p, const char* what) const;

  std::uintptr_t base_;
  std::size_t bytes_;
  block* first_ = nullptr;  // the lowest block header (base_ rounded up to 16)
  block* end_ = nullptr;    // the zero-size sentinel header after the last real block;
                            // both null when the range is too small to hold a block

  mutable std::mutex mutex_;
  std::size_t used_ = 0;
  std::size_t live_ = 0;
  std::size_t free_count_ = 0;
  std::uint64_t fl_bitmap_ = 0;
  std::uint32_t sl_bitmap_[fl_count] = {};
  block* heads_[fl_count][sl_count] = {};
};

}  // namespace gannet::runtime
