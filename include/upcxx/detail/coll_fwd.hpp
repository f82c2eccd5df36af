// Internal: the non-template side of the collectives (src/coll/coll.cpp), declared for the
// templates in collectives.hpp and atomic.hpp. Not API.
//
// A collective is a small state machine per rank, driven by runtime messages between team
// members (rpc_internal records, so it works on every transport). The template side hands
// over the rank's contribution as bytes and two type-erased hooks: combine (reductions) and
// finish (completion). Everything travels as bytes, so one engine serves every type.
#pragma once

#include "upcxx/version.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "upcxx/detail/future_cell.hpp"
#include "upcxx/detail/state.hpp"

namespace upcxx {
class team;
}

namespace upcxx::detail {

enum class coll_kind : std::uint8_t {
  barrier,     // dissemination: ceil(log2 n) rounds
  broadcast,   // binomial tree from the root: data of the root reaches everyone
  reduce_one,  // binomial tree to the root: combine, the root's data is the result
  reduce_all,  // recursive doubling (with a fold step when n is not a power of two)
  // The gannet collectives (include/gannet/collectives.hpp):
  gather,      // reduce_one's tree, contributions concatenated (the root's in root-relative order)
  gather_all,  // reduce_all's pattern, contributions concatenated in team rank order
  scan,        // dissemination: data ends as the inclusive prefix, or the exclusive one
  alltoall,    // Bruck for small blocks of one size, pairwise exchange otherwise
};

// alltoall with blocks of one size up to this many bytes takes Bruck's algorithm: ceil(log2 n)
// messages per rank, each of about n/2 blocks. Larger blocks go pairwise: n-1 messages, each
// block moved once.
inline constexpr std::size_t alltoall_bruck_max_block = 256;

// A block of a caller's buffer (coll_client::block_to), and where a block lands (dest_from).
struct coll_block {
  const std::byte* data;
  std::size_t size;
};
struct coll_dest {
  std::byte* data;
  std::size_t size;
};

// Blocks of more bytes than this travel between ranks of one machine by one copy from the
// sender's buffer to the receiver's (src/coll/coll.cpp, pairwise()), not in messages.
std::size_t coll_direct_min_block();

// Bytes with room for small values inline: a collective of a few scalars allocates nothing
// for its contribution or for the messages it receives. 16-byte aligned, as the serialization
// reader expects.
class coll_bytes {
 public:
  coll_bytes() noexcept {}
  coll_bytes(const coll_bytes&) = delete;
  coll_bytes& operator=(const coll_bytes&) = delete;
  coll_bytes(coll_bytes&& o) noexcept { take_from(o); }
  coll_bytes& operator=(coll_bytes&& o) noexcept {
    if (this != &o) {
      release();
      take_from(o);
    }
    return *this;
  }
  ~coll_bytes() { release(); }

  std::byte* data() noexcept { return heap_ ? heap_ : inline_; }
  const std::byte* data() const noexcept { return heap_ ? heap_ : inline_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Keeps the first min(size(), n) bytes.
  void resize(std::size_t n) {
    if (n > cap_) grow(n);
    size_ = n;
  }
  void assign(const std::byte* first, std::size_t n) {
    resize(n);
    if (n) std::memcpy(data(), first, n);
  }
  void append(const std::byte* first, std::size_t n) {
    const std::size_t at = size_;
    resize(size_ + n);
    if (n) std::memcpy(data() + at, first, n);
  }

 private:
  static constexpr std::size_t inline_bytes = 48;
  void grow(std::size_t n) {
    std::size_t cap = cap_ * 2 > n ? cap_ * 2 : n;
    auto* p = static_cast<std::byte*>(::operator new(cap));  // 16-byte aligned
    if (size_) std::memcpy(p, data(), size_);
    release();
    heap_ = p;
    cap_ = cap;
  }
  void release() noexcept {
    if (heap_) ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = inline_bytes;
  }
  void take_from(coll_bytes& o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      o.heap_ = nullptr;
      o.cap_ = inline_bytes;
    } else if (size_) {
      std::memcpy(inline_, o.inline_, size_);
    }
    o.size_ = 0;
  }

  alignas(16) std::byte inline_[inline_bytes];
  std::byte* heap_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = inline_bytes;
};

class coll_client : public pooled {
 public:
  // In: this rank's contribution (broadcast: the root's value; others may leave it empty).
  // Out, when finish() runs: the result (reduce_one: meaningful at the root only).
  coll_bytes data;
  // Whether every member's contribution has the same size (trivially serializable values and
  // bulk counts, which the specification makes single-valued): lets the engine choose a path
  // by size that every member chooses alike.
  bool same_size_everywhere = false;
  // scan: whether the result is the exclusive prefix (the combination of every lower team
  // rank's contribution); there is none at team rank 0, and the engine clears has_result.
  bool scan_exclusive = false;
  bool has_result = true;
  // alltoall: the bytes of every block when all blocks of all members have one size (0 for
  // the v-form, whose blocks differ). gather_all: the bytes of every member's contribution
  // when they are all alike and large enough for direct copies, which the engine then runs as
  // an alltoall of one block (0 otherwise).
  std::size_t block_bytes = 0;
  // GANNET_TRACE/GANNET_STATS: when coll_start began (0: not observed), for the span the
  // engine records before finish().
  std::uint64_t observed_t0 = 0;
  coll_kind observed_kind = coll_kind::barrier;
  bool internal = false;  // the library's own (a debug-codemode argument check): not recorded

  // acc = op(acc, in) for reductions; `in_from_lower` says whether `in` combines the values of
  // lower team ranks than acc's, for operations that care about order.
  virtual void combine(coll_bytes& acc, const std::byte* in, std::size_t n, bool in_from_lower) {
    (void)acc, (void)in, (void)n, (void)in_from_lower;
  }
  // alltoall (and gather_all of large blocks, which the engine runs as one): this rank's
  // block for team rank `to`; where the block from team rank `from` lands; and placing it
  // there from a message (called once per member, this rank included, before finish(),
  // unless the block was copied to dest_from directly).
  virtual coll_block block_to(intrank_t to) {
    (void)to;
    return {nullptr, 0};
  }
  virtual coll_dest dest_from(intrank_t from) {
    (void)from;
    return {nullptr, 0};
  }
  virtual void place(intrank_t from, const std::byte* in, std::size_t n) { (void)from, (void)in, (void)n; }
  // Runs once, from inside coll_start or a later progress call of any thread, when the
  // collective has completed at this rank; it owns the client and frees it.
  virtual void finish() = 0;

 protected:
  virtual ~coll_client() = default;
};

// Starts collective `kind` on team `t` (the next in its collective order) with this rank's
// client. Progress level internal; messages leave with the next progress call.
void coll_start(const team& t, coll_kind kind, intrank_t root, coll_client* client);

}  // namespace upcxx::detail
