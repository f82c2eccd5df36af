// Two-level segregated-fit allocator with boundary tags (see heap_allocator.hpp).
//
// Block layout. The managed range, after rounding base up and the end down to 16, is a
// sequence of blocks tiling it exactly, followed by a 16-byte sentinel header:
//
//   block:  +0   prev_size   size of the physically previous block (0 for the first block)
//           +8   word        bits 48..63  check tag, a hash of (block address, size, free?)
//                            bits  4..47  block size in bytes, header included (multiple of 16)
//                            bit   1      the physically previous block is free
//                            bit   0      this block is free
//           +16  payload     the user pointer when allocated; when free, the first 16 bytes
//                            hold the free-list links (next_free, prev_free)
//
//   sentinel at end_: an allocated block of size 0, so every real block has a successor
//   header to keep prev_size and the prev-free bit in, and coalescing stops there.
//
// So the per-block overhead is the 16-byte header; the smallest block is 32 bytes (header
// plus the two links it needs once free), and payloads are 16-aligned because headers are.
// prev_size is kept up to date for every block, not only behind free ones, so that a free
// can cross-check its header against the successor's copy of the size.
//
// Invariants (check_invariants() verifies all of them):
//   1. Blocks tile [first_, end_) exactly; each size is a multiple of 16 and >= 32.
//   2. next(b)->prev_size == size(b), and next(b)'s prev-free bit == b's free bit.
//   3. No two physically adjacent blocks are both free (coalescing is immediate), hence the
//      block before a free block is always allocated, or absent.
//   4. Every free block is on exactly the list heads_[fl][sl] of its size class, and the bit
//      for a list is set in sl_bitmap_[fl] (and bit fl in fl_bitmap_) iff the list is
//      non-empty.
//   5. Every header's tag matches its address, size and free bit.
//
// Size classes. Sizes below small_limit (512) get one class per 16 bytes (fl 0). Above, fl
// is the power of two and sl splits it into 32 equal parts, so a class spans at most 1/32 of
// its sizes. allocate rounds the request up to the next class boundary before searching, so
// the head of any non-empty class it finds fits without walking a list (good fit: the block
// wastes less than ~3% of the request before the remainder is split off).
//
// The two fallbacks that are not O(1): (a) when the rounded search finds nothing, the list of
// the request's own class is walked for a block that fits exactly, so that a request for
// nearly everything, or for exactly largest_free(), still succeeds; this only runs when the
// O(1) path already failed. (b) largest_free() walks the top non-empty list.
//
// Alignment above 16 searches for size + alignment + 16 so that any block found has an
// aligned spot whose leading gap is either 0 or at least one minimum block; the gap is split
// off as a free block of its own and the tail beyond the request is split off too.
//
// Bad frees. deallocate checks that the header in front of p is an allocated block whose tag,
// size and successor agree. A freed block is marked free (with a matching tag) before it is
// merged into a free predecessor, so its now stale header still reads "free" and a second
// free of the same pointer is reported as a double free rather than corrupting the lists.
// The check is cheap (a few loads and a multiply), so it is always on.
#include "core/heap_allocator.hpp"

#include <bit>
#include <cstdio>
#include <cstdlib>

namespace gannet::runtime {

namespace {

constexpr std::size_t header_size = 16;
constexpr std::size_t granule = 16;  // minimum alignment and size granularity
constexpr unsigned granule_log2 = 4;
constexpr std::size_t min_block = 32;  // header + next_free + prev_free
constexpr std::uint64_t flag_free = 1;
constexpr std::uint64_t flag_prev_free = 2;
constexpr std::uint64_t size_mask = 0x0000'ffff'ffff'fff0ull;
constexpr std::uint64_t tag_mask = 0xffff'0000'0000'0000ull;
constexpr std::size_t max_block = size_mask;  // largest size the word can hold

constexpr std::uintptr_t align_up(std::uintptr_t v, std::uintptr_t a) { return (v + a - 1) & ~(a - 1); }

}  // namespace

struct heap_allocator::block {
  std::uint64_t prev_size;
  std::uint64_t word;
  block* next_free;  // valid only while free
  block* prev_free;  // valid only while free
};

// Header helpers. They are templates over the block type only because heap_allocator::block
// is private and these live outside the class; B is always heap_allocator::block.
namespace {

template <class B>
std::uint64_t tag_of(const B* b, std::uint64_t size, bool free) {
  // Mixing in the address means a header copied elsewhere (or user data that happens to
  // look like one) does not validate.
  std::uint64_t x = (reinterpret_cast<std::uintptr_t>(b) >> granule_log2) * 0x9e3779b97f4a7c15ull;
  x ^= size * 0xc2b2ae3d27d4eb4full;
  x ^= free ? 0x165667b19e3779f9ull : 0;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return x & tag_mask;
}

template <class B>
std::size_t size_of(const B* b) { return b->word & size_mask; }
template <class B>
bool is_free(const B* b) { return (b->word & flag_free) != 0; }
template <class B>
bool prev_is_free(const B* b) { return (b->word & flag_prev_free) != 0; }

template <class B>
void set_header(B* b, std::size_t size, bool free, bool prev_free) {
  b->word = tag_of(b, size, free) | size | (free ? flag_free : 0) | (prev_free ? flag_prev_free : 0);
}
template <class B>
void set_prev_free(B* b, bool prev_free) { set_header(b, size_of(b), is_free(b), prev_free); }

template <class B>
B* next_of(B* b) { return reinterpret_cast<B*>(reinterpret_cast<std::uintptr_t>(b) + size_of(b)); }
template <class B>
B* prev_of(B* b) { return reinterpret_cast<B*>(reinterpret_cast<std::uintptr_t>(b) - b->prev_size); }
template <class B>
B* block_at(std::uintptr_t a) { return reinterpret_cast<B*>(a); }

// Bytes to skip from b's payload to the first address aligned to `alignment` that leaves
// either no gap or a gap big enough to become a free block of its own.
template <class B>
std::size_t gap_for(const B* b, std::size_t alignment) {
  std::uintptr_t u = reinterpret_cast<std::uintptr_t>(b) + header_size;
  std::size_t gap = align_up(u, alignment) - u;
  if (gap != 0 && gap < min_block) gap += alignment;
  return gap;
}

// Size class of a block size (for insertion: the class whose range contains size).
void mapping(std::size_t size, unsigned& fl, unsigned& sl, unsigned sl_log2) {
  const std::size_t small_limit = std::size_t{1} << (sl_log2 + granule_log2);
  if (size < small_limit) {
    fl = 0;
    sl = static_cast<unsigned>(size >> granule_log2);
    return;
  }
  unsigned f = static_cast<unsigned>(std::bit_width(size)) - 1;
  fl = f - (sl_log2 + granule_log2) + 1;
  sl = static_cast<unsigned>(size >> (f - sl_log2)) - (1u << sl_log2);
}

}  // namespace

heap_allocator::heap_allocator(void* base, std::size_t bytes)
    : base_(reinterpret_cast<std::uintptr_t>(base)), bytes_(bytes) {
  std::uintptr_t start = align_up(base_, granule);
  std::uintptr_t stop = (base_ + bytes) & ~std::uintptr_t{granule - 1};
  if (stop < start || stop - start < min_block + header_size) return;  // nothing fits
  std::size_t total = stop - start - header_size;
  if (total > max_block) total = max_block;  // beyond 256 TiB the rest stays unused
  first_ = block_at<block>(start);
  end_ = block_at<block>(start + total);
  first_->prev_size = 0;
  set_header(first_, total, true, false);
  end_->prev_size = total;
  set_header(end_, 0, false, true);
  insert_free(first_);
}

void heap_allocator::insert_free(block* b) {
  unsigned fl, sl;
  mapping(size_of(b), fl, sl, sl_log2);
  block* head = heads_[fl][sl];
  b->next_free = head;
  b->prev_free = nullptr;
  if (head) head->prev_free = b;
  heads_[fl][sl] = b;
  sl_bitmap_[fl] |= 1u << sl;
  fl_bitmap_ |= std::uint64_t{1} << fl;
  ++free_count_;
}

void heap_allocator::remove_free(block* b) {
  unsigned fl, sl;
  mapping(size_of(b), fl, sl, sl_log2);
  if (b->next_free) b->next_free->prev_free = b->prev_free;
  if (b->prev_free) {
    b->prev_free->next_free = b->next_free;
  } else {
    heads_[fl][sl] = b->next_free;
    if (!b->next_free) {
      sl_bitmap_[fl] &= ~(1u << sl);
      if (!sl_bitmap_[fl]) fl_bitmap_ &= ~(std::uint64_t{1} << fl);
    }
  }
  --free_count_;
}

// Finds a free block of at least `need` bytes with room for the alignment gap and takes it
// off its list. `need` includes the header and is <= max_block.
heap_allocator::block* heap_allocator::find_free(std::size_t need, std::size_t alignment) {
  std::size_t search = need;
  if (alignment > granule) search += alignment + granule;
  if (search > max_block) return nullptr;

  // Good fit: round up to the next class boundary, so every block in the first non-empty
  // class at or above the result is big enough.
  std::size_t rounded = search;
  const std::size_t small_limit = std::size_t{1} << (sl_log2 + granule_log2);
  if (rounded >= small_limit) {
    unsigned f = static_cast<unsigned>(std::bit_width(rounded)) - 1;
    rounded += (std::size_t{1} << (f - sl_log2)) - 1;
  }
  unsigned fl, sl;
  mapping(rounded, fl, sl, sl_log2);
  if (fl < fl_count) {
    std::uint32_t sl_map = sl_bitmap_[fl] & (~0u << sl);
    if (!sl_map) {
      std::uint64_t fl_map = fl_bitmap_ & (~std::uint64_t{0} << (fl + 1));
      if (fl_map) {
        fl = static_cast<unsigned>(std::countr_zero(fl_map));
        sl_map = sl_bitmap_[fl];
      }
    }
    if (sl_map) {
      block* b = heads_[fl][static_cast<unsigned>(std::countr_zero(sl_map))];
      remove_free(b);
      return b;
    }
  }

  // Fallback (a): the blocks in the request's own class may be big enough one by one. Check
  // exactly, alignment gap included.
  mapping(search, fl, sl, sl_log2);
  for (block* b = heads_[fl][sl]; b; b = b->next_free) {
    if (gap_for(b, alignment) + need <= size_of(b)) {
      remove_free(b);
      return b;
    }
  }
  return nullptr;
}

void* heap_allocator::allocate(std::size_t size, std::size_t alignment) {
  if (alignment < granule) alignment = granule;
  if (!std::has_single_bit(alignment) || alignment > max_block) return nullptr;
  if (size == 0) size = 1;
  if (size > max_block) return nullptr;
  const std::size_t need = align_up(size, granule) + header_size;  // >= min_block

  std::lock_guard<std::mutex> lock(mutex_);
  if (!end_) return nullptr;
  block* b = find_free(need, alignment);
  if (!b) return nullptr;

  std::size_t bsize = size_of(b);
  bool prev_free = prev_is_free(b);  // false by invariant 3, kept for clarity
  if (std::size_t gap = gap_for(b, alignment); gap != 0) {
    // The leading gap stays behind as a free block; its predecessor is allocated
    // (invariant 3), so it needs no merging.
    block* a = block_at<block>(reinterpret_cast<std::uintptr_t>(b) + gap);
    set_header(b, gap, true, prev_free);
    insert_free(b);
    a->prev_size = gap;
    b = a;
    bsize -= gap;
    prev_free = true;
  }
  if (bsize - need >= min_block) {
    // Split off the tail. What follows b was next to a free block, so it is allocated
    // (invariant 3) and the tail needs no merging either.
    block* tail = block_at<block>(reinterpret_cast<std::uintptr_t>(b) + need);
    tail->prev_size = need;
    set_header(tail, bsize - need, true, false);
    block* after = next_of(tail);
    after->prev_size = size_of(tail);
    set_prev_free(after, true);
    insert_free(tail);
    bsize = need;
  } else {
    block* after = block_at<block>(reinterpret_cast<std::uintptr_t>(b) + bsize);
    after->prev_size = bsize;
    set_prev_free(after, false);
  }
  set_header(b, bsize, false, prev_free);
  used_ += bsize;
  ++live_;
  return reinterpret_cast<char*>(b) + header_size;
}

void heap_allocator::report_bad_free(const void* p, const char* what) const {
  std::fprintf(stderr, "gannet: heap_allocator::deallocate(%p): %s\n", p, what);
  std::abort();
}

void heap_allocator::deallocate(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(first_);
  const std::uintptr_t hi = reinterpret_cast<std::uintptr_t>(end_);
  if (!first_ || (addr & (granule - 1)) != 0 || addr < lo + header_size ||
      addr - header_size + min_block > hi) {
    report_bad_free(p, owns(p) ? "not the start of a live block" : "pointer outside the heap");
  }
  block* b = block_at<block>(addr - header_size);
  const std::uint64_t word = b->word;
  std::size_t size = word & size_mask;
  const bool live = (word & flag_free) == 0 && (word & tag_mask) == tag_of(b, size, false) &&
                    size >= min_block && size <= hi - (addr - header_size) &&
                    next_of(b)->prev_size == size && !prev_is_free(next_of(b));
  if (!live) {
    const bool freed = (word & flag_free) != 0 && (word & tag_mask) == tag_of(b, size, true);
    report_bad_free(p, freed ? "double free" : "not the start of a live block");
  }

  used_ -= size;
  --live_;
  // Mark it free before any merging: if b is absorbed into its predecessor, this stale
  // header is what a second free of p will find.
  set_header(b, size, true, prev_is_free(b));
  block* after = next_of(b);
  if (prev_is_free(b)) {
    block* before = prev_of(b);
    remove_free(before);
    size += size_of(before);
    b = before;
  }
  if (is_free(after)) {
    remove_free(after);
    size += size_of(after);
    after = next_of(after);
  }
  set_header(b, size, true, false);  // invariant 3: whatever precedes it is allocated
  after->prev_size = size;
  set_prev_free(after, true);
  insert_free(b);
}

std::size_t heap_allocator::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

std::size_t heap_allocator::live_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_;
}

std::size_t heap_allocator::free_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_count_;
}

std::size_t heap_allocator::largest_free() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fl_bitmap_) return 0;
  // The top non-empty class holds the largest block, but its members differ in size.
  unsigned fl = static_cast<unsigned>(std::bit_width(fl_bitmap_)) - 1;
  unsigned sl = static_cast<unsigned>(std::bit_width(sl_bitmap_[fl])) - 1;
  std::size_t best = 0;
  for (const block* b = heads_[fl][sl]; b; b = b->next_free) {
    if (size_of(b) > best) best = size_of(b);
  }
  return best - header_size;
}

const char* heap_allocator::check_invariants() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!first_) return (used_ || live_ || free_count_ || fl_bitmap_) ? "empty heap has state" : nullptr;

  std::size_t used = 0, live = 0, free_walk = 0;
  bool prev_free = false;
  std::size_t prev_size = 0;
  const block* b = first_;
  while (b != end_) {
    const std::size_t size = size_of(b);
    if (reinterpret_cast<std::uintptr_t>(b) > reinterpret_cast<std::uintptr_t>(end_))
      return "blocks overrun the sentinel";
    if (size < min_block || size % granule) return "bad block size";
    if ((b->word & tag_mask) != tag_of(b, size, is_free(b))) return "bad tag";
    if (b->prev_size != prev_size) return "prev_size mismatch";
    if (prev_is_free(b) != prev_free) return "prev-free bit mismatch";
    if (prev_free && is_free(b)) return "two adjacent free blocks";
    if (is_free(b)) {
      ++free_walk;
    } else {
      used += size;
      ++live;
    }
    prev_free = is_free(b);
    prev_size = size;
    b = next_of(b);
  }
  if (size_of(end_) != 0 || is_free(end_) || (end_->word & tag_mask) != tag_of(end_, 0, false))
    return "bad sentinel";
  if (end_->prev_size != prev_size || prev_is_free(end_) != prev_free) return "bad sentinel links";
  if (used != used_) return "used() disagrees with the blocks";
  if (live != live_) return "live_blocks() disagrees with the blocks";
  if (free_walk != free_count_) return "free count disagrees with the blocks";

  std::size_t listed = 0;
  for (unsigned fl = 0; fl < fl_count; ++fl) {
    if (((fl_bitmap_ >> fl) & 1) != (sl_bitmap_[fl] != 0)) return "fl bitmap mismatch";
    for (unsigned sl = 0; sl < sl_count; ++sl) {
      if (((sl_bitmap_[fl] >> sl) & 1) != (heads_[fl][sl] != nullptr)) return "sl bitmap mismatch";
      const block* prev = nullptr;
      for (const block* f = heads_[fl][sl]; f; f = f->next_free) {
        if (!is_free(f)) return "allocated block on a free list";
        if (f->prev_free != prev) return "broken free-list back link";
        unsigned efl, esl;
        mapping(size_of(f), efl, esl, sl_log2);
        if (efl != fl || esl != sl) return "free block on the wrong list";
        if (++listed > free_count_) return "free lists longer than the free block count";
        prev = f;
      }
    }
  }
  if (fl_bitmap_ >> fl_count) return "fl bitmap bits beyond fl_count";
  if (listed != free_count_) return "free lists miss some free blocks";
  return nullptr;
}

}  // namespace gannet::runtime
