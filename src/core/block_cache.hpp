// Per-thread free lists of small blocks (internal): size classes of 32 bytes, blocks from
// operator new (16-byte aligned), kept on free for the next allocation of their class.
// Instantiations are independent caches with their own policy:
//   Classes    how many classes (blocks up to Classes * 32 bytes; larger ones go to the heap)
//   MaxCached  blocks kept per class and thread; beyond it a freed block goes to the heap
// Each thread's lists are released when the thread exits; blocks freed after that (static
// destructors at process exit) go straight back to the heap.
#pragma once

#include <cstddef>
#include <new>

namespace gannet::runtime {

template <std::size_t Classes, std::size_t MaxCached>
class block_cache {
 public:
  static constexpr std::size_t class_bytes = 32;

  static void* allocate(std::size_t bytes) {
    const std::size_t c = (bytes - 1) / class_bytes;
    if (c >= Classes || gone_) return ::operator new(c < Classes ? (c + 1) * class_bytes : bytes);
    lists& l = mine();
    if (block* b = l.heads[c]) {
      l.heads[c] = b->next;
      --l.counts[c];
      return b;
    }
    return ::operator new((c + 1) * class_bytes);
  }

  static void free(void* p, std::size_t bytes) noexcept {
    const std::size_t c = (bytes - 1) / class_bytes;
    if (c >= Classes || gone_) {
      ::operator delete(p);
      return;
    }
    lists& l = mine();
    if (l.counts[c] >= MaxCached) {
      ::operator delete(p);
      return;
    }
    auto* b = static_cast<block*>(p);
    b->next = l.heads[c];
    l.heads[c] = b;
    ++l.counts[c];
  }

  // Gives this thread's blocks beyond `keep` per class back to the heap.
  static void trim(std::size_t keep) noexcept {
    if (!gone_) mine().trim(keep);
  }

 private:
  struct block {
    block* next;
  };
  struct lists {
    block* heads[Classes] = {};
    std::size_t counts[Classes] = {};
    ~lists() {
      gone_ = true;
      trim(0);
    }
    void trim(std::size_t keep) noexcept {
      for (std::size_t c = 0; c < Classes; ++c)
        for (; counts[c] > keep; --counts[c]) {
          block* b = heads[c];
          heads[c] = b->next;
          ::operator delete(b);
        }
    }
  };
  static lists& mine() {
    thread_local lists l;
    return l;
  }
  // A plain bool needs no destruction, so it stays readable after `lists` is gone.
  static inline thread_local bool gone_ = false;
};

}  // namespace gannet::runtime
