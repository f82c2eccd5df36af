// Unit tests for the shared-heap allocator (src/core/heap_allocator.*).
//
// Every block a test allocates is filled with a pattern unique to that block and verified
// before it is freed, so an allocator that hands out overlapping blocks or writes its own
// metadata into a live payload fails here rather than in a distant upcxx test.
#include "core/heap_allocator.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace {

using gannet::runtime::heap_allocator;

constexpr std::size_t kib = 1024;
constexpr std::size_t mib = 1024 * kib;
constexpr std::size_t gib = 1024 * mib;

// Backing memory for a heap: 64-byte aligned like a real segment.
class arena {
 public:
  explicit arena(std::size_t bytes) : bytes_(bytes) {
    mem_ = static_cast<char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  }
  ~arena() { std::free(mem_); }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  char* data() const { return mem_; }
  std::size_t size() const { return bytes_; }

 private:
  char* mem_;
  std::size_t bytes_;
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Word i of a block holds mix(seed) ^ i; the tail bytes come from the next such word.
void fill(void* p, std::size_t n, std::uint64_t seed) {
  const std::uint64_t w = mix(seed);
  auto* words = static_cast<std::uint64_t*>(p);
  const std::size_t nw = n / 8;
  for (std::size_t i = 0; i < nw; ++i) words[i] = w ^ i;
  const std::uint64_t last = w ^ nw;
  std::memcpy(static_cast<char*>(p) + nw * 8, &last, n % 8);
}

bool verify(const void* p, std::size_t n, std::uint64_t seed) {
  const std::uint64_t w = mix(seed);
  const auto* words = static_cast<const std::uint64_t*>(p);
  const std::size_t nw = n / 8;
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < nw; ++i) bad |= words[i] ^ (w ^ i);
  const std::uint64_t last = w ^ nw;
  return bad == 0 && std::memcmp(static_cast<const char*>(p) + nw * 8, &last, n % 8) == 0;
}

bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

struct live_block {
  void* p;
  std::size_t size;
  std::uint64_t seed;
};

// Deterministic across standard libraries, unlike the <random> distributions.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
std::size_t log_uniform(std::mt19937_64& rng, std::size_t max) {
  auto v = static_cast<std::size_t>(std::exp2(unit(rng) * std::log2(static_cast<double>(max))));
  return std::clamp<std::size_t>(v, 1, max);
}

TEST(HeapAllocator, BasicAllocFree) {
  arena mem(1 * mib);
  heap_allocator heap(mem.data(), mem.size());
  EXPECT_EQ(heap.capacity(), mem.size());
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_GE(heap.largest_free(), mem.size() - 4 * kib);
  EXPECT_TRUE(heap.owns(mem.data()));
  EXPECT_TRUE(heap.owns(mem.data() + mem.size() - 1));
  EXPECT_FALSE(heap.owns(mem.data() + mem.size()));
  EXPECT_FALSE(heap.owns(mem.data() - 1));

  void* p = heap.allocate(100, 8);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(heap.owns(p));
  EXPECT_TRUE(aligned(p, 16));
  EXPECT_EQ(heap.live_blocks(), 1u);
  EXPECT_GE(heap.used(), 100u + heap_allocator::block_overhead());
  EXPECT_LE(heap.used(), 100u + heap_allocator::block_overhead() + 32);
  fill(p, 100, 1);

  void* q = heap.allocate(5000, 16);
  ASSERT_NE(q, nullptr);
  fill(q, 5000, 2);
  EXPECT_EQ(heap.live_blocks(), 2u);
  EXPECT_TRUE(verify(p, 100, 1));
  EXPECT_TRUE(verify(q, 5000, 2));
  EXPECT_EQ(heap.check_invariants(), nullptr);

  heap.deallocate(p);
  heap.deallocate(nullptr);  // no-op
  EXPECT_EQ(heap.live_blocks(), 1u);
  EXPECT_TRUE(verify(q, 5000, 2));
  heap.deallocate(q);
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
}

TEST(HeapAllocator, SizeZeroGivesDistinctPointers) {
  arena mem(64 * kib);
  heap_allocator heap(mem.data(), mem.size());
  std::set<void*> seen;
  for (int i = 0; i < 200; ++i) {
    void* p = heap.allocate(0, 1);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p, 16));
    EXPECT_TRUE(seen.insert(p).second) << "pointer handed out twice: " << p;
    *static_cast<char*>(p) = 'x';  // one byte is usable, as for size 1
  }
  EXPECT_EQ(heap.live_blocks(), 200u);
  for (void* p : seen) heap.deallocate(p);
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
}

TEST(HeapAllocator, AlignmentsFromOneByteToOneMiB) {
  arena mem(32 * mib);
  heap_allocator heap(mem.data(), mem.size());
  std::vector<live_block> blocks;
  std::uint64_t seed = 0;
  for (std::size_t align = 1; align <= 1 * mib; align *= 2) {
    for (std::size_t size : {std::size_t{1}, std::size_t{24}, std::size_t{100}, 4 * kib + 7, align}) {
      void* p = heap.allocate(size, align);
      ASSERT_NE(p, nullptr) << "size " << size << " align " << align;
      EXPECT_TRUE(aligned(p, std::max<std::size_t>(align, 16))) << p << " align " << align;
      fill(p, size, ++seed);
      blocks.push_back({p, size, seed});
    }
  }
  ASSERT_EQ(heap.check_invariants(), nullptr);
  for (const auto& b : blocks) EXPECT_TRUE(verify(b.p, b.size, b.seed));
  for (const auto& b : blocks) heap.deallocate(b.p);
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);

  // Alignments larger than the heap's own alignment still work on a full-size request.
  void* big = heap.allocate(8 * mib, 8 * mib);
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(aligned(big, 8 * mib));
  heap.deallocate(big);
  EXPECT_EQ(heap.free_blocks(), 1u);
}

TEST(HeapAllocator, PatternsSurviveInterleavedAllocFree) {
  arena mem(8 * mib);
  heap_allocator heap(mem.data(), mem.size());
  std::mt19937_64 rng(7);
  std::vector<live_block> blocks;
  std::uint64_t seed = 0;
  auto alloc_some = [&](int n) {
    for (int i = 0; i < n; ++i) {
      std::size_t size = log_uniform(rng, 16 * kib);
      std::size_t align = std::size_t{1} << (rng() % 10);
      void* p = heap.allocate(size, align);
      ASSERT_NE(p, nullptr);
      ASSERT_TRUE(aligned(p, std::max<std::size_t>(align, 16)));
      fill(p, size, ++seed);
      blocks.push_back({p, size, seed});
    }
  };
  alloc_some(600);
  for (const auto& b : blocks) ASSERT_TRUE(verify(b.p, b.size, b.seed));
  std::shuffle(blocks.begin(), blocks.end(), rng);
  for (std::size_t i = 0; i < blocks.size() / 2; ++i) {
    ASSERT_TRUE(verify(blocks.back().p, blocks.back().size, blocks.back().seed));
    heap.deallocate(blocks.back().p);
    blocks.pop_back();
  }
  ASSERT_EQ(heap.check_invariants(), nullptr);
  alloc_some(300);
  for (const auto& b : blocks) ASSERT_TRUE(verify(b.p, b.size, b.seed));
  ASSERT_EQ(heap.check_invariants(), nullptr);
  for (const auto& b : blocks) heap.deallocate(b.p);
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
}

TEST(HeapAllocator, ExhaustionThenFullCoalescing) {
  arena mem(1 * mib);
  heap_allocator heap(mem.data(), mem.size());
  std::vector<live_block> blocks;
  std::uint64_t seed = 0;
  for (;;) {
    void* p = heap.allocate(1000, 16);
    if (!p) break;
    fill(p, 1000, ++seed);
    blocks.push_back({p, 1000, seed});
  }
  ASSERT_GT(blocks.size(), 900u);
  EXPECT_EQ(heap.live_blocks(), blocks.size());
  EXPECT_LE(heap.used(), heap.capacity());
  EXPECT_GE(heap.used(), heap.capacity() - 2 * kib);
  EXPECT_GE(heap.used(), blocks.size() * (1000 + heap_allocator::block_overhead()));
  EXPECT_LT(heap.largest_free(), 1000u);  // else the last allocate would have succeeded
  EXPECT_EQ(heap.allocate(1000, 16), nullptr);
  EXPECT_EQ(heap.allocate(1 * mib, 16), nullptr);
  EXPECT_EQ(heap.allocate(std::size_t(-1), 16), nullptr);
  EXPECT_EQ(heap.allocate(std::size_t(-1) - 100, 1 * mib), nullptr);
  if (std::size_t rest = heap.largest_free(); rest > 0) {
    void* p = heap.allocate(rest, 16);
    EXPECT_NE(p, nullptr);
    heap.deallocate(p);
  }

  std::mt19937_64 rng(3);
  std::shuffle(blocks.begin(), blocks.end(), rng);
  for (const auto& b : blocks) {
    ASSERT_TRUE(verify(b.p, b.size, b.seed));
    heap.deallocate(b.p);
  }
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
  EXPECT_GE(heap.largest_free(), heap.capacity() - 4 * kib);

  // Everything merged back into one block: nearly the whole capacity fits in one go.
  void* all = heap.allocate(heap.capacity() - 4 * kib, 16);
  ASSERT_NE(all, nullptr);
  fill(all, heap.capacity() - 4 * kib, 99);
  EXPECT_TRUE(verify(all, heap.capacity() - 4 * kib, 99));
  heap.deallocate(all);

  // largest_free() is exact: it fits, one byte more does not.
  const std::size_t largest = heap.largest_free();
  EXPECT_EQ(heap.allocate(largest + 1, 16), nullptr);
  void* exact = heap.allocate(largest, 16);
  ASSERT_NE(exact, nullptr);
  EXPECT_EQ(heap.largest_free(), 0u);
  EXPECT_EQ(heap.allocate(1, 16), nullptr);
  heap.deallocate(exact);
  EXPECT_EQ(heap.largest_free(), largest);
}

TEST(HeapAllocator, NeighboursMergeOnFree) {
  arena mem(64 * kib);
  heap_allocator heap(mem.data(), mem.size());
  void* a = heap.allocate(1000, 16);
  void* b = heap.allocate(1000, 16);
  void* c = heap.allocate(1000, 16);
  void* d = heap.allocate(1000, 16);
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(heap.free_blocks(), 1u);  // the untouched tail
  heap.deallocate(a);
  EXPECT_EQ(heap.free_blocks(), 2u);
  heap.deallocate(c);
  EXPECT_EQ(heap.free_blocks(), 3u);
  heap.deallocate(b);  // merges with a on one side and c on the other
  EXPECT_EQ(heap.free_blocks(), 2u);
  EXPECT_GE(heap.largest_free(), 3000u);
  void* abc = heap.allocate(3000, 16);  // fits in the merged hole
  EXPECT_EQ(abc, a);
  heap.deallocate(abc);
  heap.deallocate(d);  // merges with the hole and with the tail
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
}

TEST(HeapAllocator, SmallOddAndMisalignedRanges) {
  {
    arena mem(4 * kib);
    heap_allocator heap(mem.data(), mem.size());
    std::vector<void*> ps;
    while (void* p = heap.allocate(1, 1)) ps.push_back(p);
    EXPECT_GT(ps.size(), 100u);
    for (void* p : ps) heap.deallocate(p);
    void* all = heap.allocate(4 * kib - 64, 16);
    EXPECT_NE(all, nullptr);
    heap.deallocate(all);
    EXPECT_EQ(heap.check_invariants(), nullptr);
  }
  {
    // Misaligned base and odd length: the allocator trims to 16-byte boundaries.
    arena mem(8 * kib);
    heap_allocator heap(mem.data() + 8, 4 * kib + 5);
    EXPECT_EQ(heap.capacity(), 4 * kib + 5);
    void* p = heap.allocate(1000, 64);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p, 64));
    EXPECT_TRUE(heap.owns(p));
    heap.deallocate(p);
    void* all = heap.allocate(4 * kib - 64, 16);
    EXPECT_NE(all, nullptr);
    EXPECT_TRUE(heap.owns(static_cast<char*>(all) + 4 * kib - 65));
    heap.deallocate(all);
    EXPECT_EQ(heap.check_invariants(), nullptr);
  }
  {
    // Too small for any block: everything fails cleanly.
    alignas(64) char tiny[32];
    heap_allocator heap(tiny, sizeof tiny);
    EXPECT_EQ(heap.allocate(1, 16), nullptr);
    EXPECT_EQ(heap.largest_free(), 0u);
    EXPECT_EQ(heap.used(), 0u);
    EXPECT_EQ(heap.check_invariants(), nullptr);
  }
}

TEST(HeapAllocator, ManyGiBHeapTouchesOnlyHeaders) {
  const std::size_t bytes = 64 * gib;
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (mem == MAP_FAILED) GTEST_SKIP() << "cannot reserve 64 GiB of address space";
  {
    heap_allocator heap(mem, bytes);
    EXPECT_GE(heap.largest_free(), bytes - 4 * kib);
    std::vector<void*> ps;
    for (std::size_t size : {1 * gib, 16 * gib, 3 * gib + 5, std::size_t{100}, 40 * gib}) {
      void* p = heap.allocate(size, 1 * mib);
      ASSERT_NE(p, nullptr) << size;
      EXPECT_TRUE(aligned(p, 1 * mib));
      static_cast<char*>(p)[0] = 1;
      static_cast<char*>(p)[size - 1] = 2;
      ps.push_back(p);
    }
    EXPECT_EQ(heap.allocate(8 * gib, 16), nullptr);
    EXPECT_EQ(heap.check_invariants(), nullptr);
    for (void* p : ps) heap.deallocate(p);
    EXPECT_EQ(heap.used(), 0u);
    EXPECT_EQ(heap.free_blocks(), 1u);
    EXPECT_NE(heap.allocate(bytes - 4 * kib, 16), nullptr);
  }
  munmap(mem, bytes);
}

// 200,000 random operations on a 64 MiB heap with at most 40% of it requested at any time:
// a good-fit allocator with immediate coalescing never fails here.
TEST(HeapAllocator, Churn) {
  const std::size_t heap_bytes = 64 * mib;
  const std::size_t live_limit = heap_bytes * 4 / 10;
  arena mem(heap_bytes);
  heap_allocator heap(mem.data(), mem.size());
  std::mt19937_64 rng(20240601);
  std::vector<live_block> blocks;
  std::size_t live_bytes = 0;
  std::uint64_t seed = 0;
  std::size_t frees = 0, max_live = 0;

  auto free_random = [&] {
    std::size_t i = rng() % blocks.size();
    live_block b = blocks[i];
    blocks[i] = blocks.back();
    blocks.pop_back();
    ASSERT_TRUE(verify(b.p, b.size, b.seed)) << "block " << b.p << " of " << b.size << " corrupted";
    heap.deallocate(b.p);
    live_bytes -= b.size;
    ++frees;
  };

  for (int op = 0; op < 200'000; ++op) {
    if (blocks.empty() || rng() % 100 < 55) {
      const std::size_t size = log_uniform(rng, 1 * mib);
      // One allocation in eight asks for an alignment between 1 and 4 KiB.
      const std::size_t align = rng() % 8 == 0 ? std::size_t{1} << (rng() % 13) : 16;
      while (live_bytes + size > live_limit) {
        free_random();
        if (HasFatalFailure()) return;
      }
      void* p = heap.allocate(size, align);
      ASSERT_NE(p, nullptr) << "op " << op << ": size " << size << " align " << align << " failed with "
                            << live_bytes << " bytes live, used " << heap.used() << ", largest free "
                            << heap.largest_free();
      ASSERT_TRUE(aligned(p, std::max<std::size_t>(align, 16)));
      fill(p, size, ++seed);
      blocks.push_back({p, size, seed});
      live_bytes += size;
      max_live = std::max(max_live, live_bytes);
    } else {
      free_random();
      if (HasFatalFailure()) return;
    }
    if (op % 20'000 == 0) {
      ASSERT_EQ(heap.check_invariants(), nullptr) << "op " << op;
      ASSERT_EQ(heap.live_blocks(), blocks.size());
      ASSERT_GE(heap.used(), live_bytes + blocks.size() * heap_allocator::block_overhead());
    }
  }
  EXPECT_GT(max_live, live_limit * 9 / 10);  // the test really ran near its limit
  EXPECT_GT(frees, 50'000u);
  while (!blocks.empty()) {
    free_random();
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
  EXPECT_GE(heap.largest_free(), heap_bytes - 4 * kib);
}

// Four threads churn on one heap; some blocks are handed to another thread to free, as
// happens when a rank frees memory allocated by a different persona.
TEST(HeapAllocator, MultiThreadedChurn) {
  constexpr int n_threads = 4;
  constexpr int ops_per_thread = 20'000;
  const std::size_t heap_bytes = 16 * mib;
  const std::size_t per_thread_limit = heap_bytes * 4 / 10 / n_threads;
  arena mem(heap_bytes);
  heap_allocator heap(mem.data(), mem.size());

  std::mutex mailbox_mutex;
  std::vector<live_block> mailbox;  // blocks waiting for some other thread to free them
  std::atomic<std::size_t> mailbox_bytes{0};
  std::atomic<int> failed_allocs{0}, corrupt_blocks{0};

  auto worker = [&](int id) {
    std::mt19937_64 rng(1000 + static_cast<std::uint64_t>(id));
    std::vector<live_block> blocks;
    std::size_t live_bytes = 0;
    std::uint64_t seed = static_cast<std::uint64_t>(id) << 40;
    auto release = [&](const live_block& b) {
      if (!verify(b.p, b.size, b.seed)) ++corrupt_blocks;
      heap.deallocate(b.p);
    };
    auto free_random = [&] {
      std::size_t i = rng() % blocks.size();
      live_block b = blocks[i];
      blocks[i] = blocks.back();
      blocks.pop_back();
      live_bytes -= b.size;
      if (rng() % 4 == 0 && mailbox_bytes.load() < per_thread_limit / 2) {
        std::lock_guard<std::mutex> lock(mailbox_mutex);
        mailbox.push_back(b);
        mailbox_bytes += b.size;
      } else {
        release(b);
      }
    };
    for (int op = 0; op < ops_per_thread; ++op) {
      if (op % 16 == 0) {
        std::vector<live_block> taken;
        {
          std::lock_guard<std::mutex> lock(mailbox_mutex);
          taken.swap(mailbox);
          for (const auto& b : taken) mailbox_bytes -= b.size;
        }
        for (const auto& b : taken) release(b);
      }
      if (blocks.empty() || rng() % 100 < 55) {
        const std::size_t size = log_uniform(rng, 64 * kib);
        const std::size_t align = rng() % 8 == 0 ? std::size_t{1} << (rng() % 10) : 16;
        while (live_bytes + size > per_thread_limit) free_random();
        void* p = heap.allocate(size, align);
        if (!p || !aligned(p, std::max<std::size_t>(align, 16))) {
          ++failed_allocs;
          continue;
        }
        fill(p, size, ++seed);
        blocks.push_back({p, size, seed});
        live_bytes += size;
      } else {
        free_random();
      }
    }
    for (const auto& b : blocks) release(b);
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < n_threads; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();
  for (const auto& b : mailbox) {
    if (!verify(b.p, b.size, b.seed)) ++corrupt_blocks;
    heap.deallocate(b.p);
  }

  EXPECT_EQ(failed_allocs.load(), 0);
  EXPECT_EQ(corrupt_blocks.load(), 0);
  EXPECT_EQ(heap.used(), 0u);
  EXPECT_EQ(heap.live_blocks(), 0u);
  EXPECT_EQ(heap.free_blocks(), 1u);
  EXPECT_EQ(heap.check_invariants(), nullptr);
}

class HeapAllocatorDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  arena mem_{256 * kib};
  heap_allocator heap_{mem_.data(), mem_.size()};
};

TEST_F(HeapAllocatorDeathTest, DoubleFree) {
  void* p = heap_.allocate(100, 16);
  void* q = heap_.allocate(100, 16);  // keeps p from merging into the free tail
  ASSERT_TRUE(p && q);
  heap_.deallocate(p);
  EXPECT_DEATH(heap_.deallocate(p), "deallocate\\(.*\\): double free");
}

TEST_F(HeapAllocatorDeathTest, DoubleFreeAfterMerge) {
  // b merges into the free a, leaving its own header stale; freeing b again must still be
  // recognised, not corrupt the free lists.
  void* a = heap_.allocate(100, 16);
  void* b = heap_.allocate(100, 16);
  void* c = heap_.allocate(100, 16);
  ASSERT_TRUE(a && b && c);
  heap_.deallocate(a);
  heap_.deallocate(b);
  EXPECT_DEATH(heap_.deallocate(b), "double free");
  heap_.deallocate(c);
  EXPECT_DEATH(heap_.deallocate(c), "double free");  // merged into the tail this time
}

TEST_F(HeapAllocatorDeathTest, InteriorPointer) {
  auto* p = static_cast<char*>(heap_.allocate(256, 16));
  ASSERT_NE(p, nullptr);
  fill(p, 256, 5);
  EXPECT_DEATH(heap_.deallocate(p + 16), "not the start of a live block");
  EXPECT_DEATH(heap_.deallocate(p + 1), "not the start of a live block");
  std::memset(p, 0, 256);
  EXPECT_DEATH(heap_.deallocate(p + 32), "not the start of a live block");
  heap_.deallocate(p);  // the real block is still fine
  EXPECT_EQ(heap_.check_invariants(), nullptr);
}

TEST_F(HeapAllocatorDeathTest, ForeignPointer) {
  int on_stack = 0;
  EXPECT_DEATH(heap_.deallocate(&on_stack), "pointer outside the heap");
  EXPECT_DEATH(heap_.deallocate(mem_.data()), "not the start of a live block");
}

TEST_F(HeapAllocatorDeathTest, MessageNamesThePointer) {
  // Only a forked child (not a re-executed one) sees the heap at the same address.
  GTEST_FLAG_SET(death_test_style, "fast");
  void* p = heap_.allocate(100, 16);
  ASSERT_NE(p, nullptr);
  heap_.deallocate(p);
  char expected[64];
  std::snprintf(expected, sizeof expected, "%p", p);
  EXPECT_DEATH(heap_.deallocate(p), expected);
}

}  // namespace
