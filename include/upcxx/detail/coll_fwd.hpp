// Internal: the non-template side of the collectives (src/coll/coll.cpp), declared for the
// templates in collectives.hpp and atomic.hpp. Not API.
//
// A collective is a small state machine per rank, driven by runtime messages between team
// members (rpc_internal records, so it works on every transport). The template side hands
// over the rank's contribution as bytes and two type-erased hooks: combine (reductions) and
// finish (completion). Everything travels as bytes, so one engine serves every type.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

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
};

class coll_client {
 public:
  // In: this rank's contribution (broadcast: the root's value; others may leave it empty).
  // Out, when finish() runs: the result (reduce_one: meaningful at the root only).
  std::vector<std::byte> data;

  // acc = op(acc, in) for reductions; `in_from_lower` says whether `in` combines the values of
  // lower team ranks than acc's, for operations that care about order.
  virtual void combine(std::vector<std::byte>& acc, const std::byte* in, std::size_t n, bool in_from_lower) {
    (void)acc, (void)in, (void)n, (void)in_from_lower;
  }
  // Runs once, from inside coll_start or a later progress call of any thread, when the
  // collective has completed at this rank; it owns the client and frees it.
  virtual void finish() = 0;

 protected:
  virtual ~coll_client() = default;
};

// Starts collective `kind` on team `t` (the next in its collective order) with this rank's
// client. Progress level internal; messages leave with the next progress call.
void coll_start(const team& t, coll_kind kind, intrank_t root, coll_client* client);

// Waits, with user-level progress, for *done to become true (the blocking collectives).
void coll_wait_user(const bool* done);

}  // namespace upcxx::detail
