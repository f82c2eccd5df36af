// Teams (spec chapter 11) and the blocking barrier (§12.2).
//
// A team is an ordered set of ranks. world() and local_team() exist from init on; new teams
// come from split() and create(), both collective over the parent team and called by the
// thread with the master persona. Every member names a team by the same team_id, so ids
// travel in RPCs and team_id::here() finds the member's own team object.
//
// barrier() is collective over the team and blocking; while it waits it makes user-level
// progress. Memory ordering: every store a rank made before entering the barrier is visible
// to every load any rank makes after leaving it. The other collectives are in
// collectives.hpp.
#pragma once

#include "upcxx/version.hpp"

#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <utility>
#include <vector>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/detail/state.hpp"
#include "upcxx/future.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/init.hpp"
#include "upcxx/promise.hpp"

namespace upcxx {

class team;
class team_id;

// The entry barrier of team::destroy and atomic_domain::destroy (spec §12.2 ¶1).
enum class entry_barrier { none, internal, user };

namespace detail {
// Debug codemode: a collective (team, dist_object and atomic_domain construction and
// destruction included) initiated inside the restricted context reports it and aborts; an
// error since UPC++ 2022.9 (UPC++ specification issues 169 and 185). src/coll/coll.cpp.
[[noreturn]] void fail_collective_restricted(const char* what);
inline void check_collective_context([[maybe_unused]] const char* what) {
#if UPCXX_ASSERT_ENABLED
  if (in_progress()) fail_collective_restricted(what);
#endif
}
}  // namespace detail

namespace detail {
team& team_from_id(std::uint64_t id);  // runtime.cpp
std::uint64_t team_id_of(const team& t);
void team_when_here(std::uint64_t id, promise<team&> pro);
// The entry barrier of the collective destroy() calls (spec 12.2 ¶1): src/coll/team.cpp.
void entry_barrier_wait(const team& t, entry_barrier lev);
struct team_internal;  // the runtime's access to a team's private state (team.cpp)
}  // namespace detail

// The universal name of a team (spec §11.3.2): equal on every member, trivially
// serializable, so it can travel in RPCs and be turned back into the local team object.
class team_id {
 public:
  team_id() = default;  // the invalid id
  team& here() const { return detail::team_from_id(id_); }
  future<team&> when_here() const;

  friend bool operator==(team_id a, team_id b) { return a.id_ == b.id_; }
  friend bool operator!=(team_id a, team_id b) { return a.id_ != b.id_; }
  friend bool operator<(team_id a, team_id b) { return a.id_ < b.id_; }
  friend bool operator<=(team_id a, team_id b) { return a.id_ <= b.id_; }
  friend bool operator>(team_id a, team_id b) { return a.id_ > b.id_; }
  friend bool operator>=(team_id a, team_id b) { return a.id_ >= b.id_; }

  // Internal.
  static team_id from_raw(std::uint64_t id) {
    team_id t;
    t.id_ = id;
    return t;
  }
  std::uint64_t raw() const { return id_; }

 private:
  std::uint64_t id_ = ~std::uint64_t{0};
};

// Prints a team_id (as the reference implementation does, for logs): equal ids print alike,
// different ids differently; the invalid id prints as "team_id(invalid)". Local.
template <typename CharT, typename Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, team_id id) {
  if (id == team_id()) return os << "team_id(invalid)";
  return os << "team_id(" << id.raw() << ')';
}

// `final` since UPC++ 2022.3.
class team final {
 public:
  // A color that leaves the caller out of every subteam (spec §11.3.1 ¶3).
  static constexpr intrank_t color_none = -0xbad;

  // An inactive team (UPC++ 2022.3): it represents no team until a team is moved into it.
  // Touches no runtime state, so it may be built before init() (a global, a class member).
  team() noexcept = default;
  // Precondition (spec §11.3.1 ¶27): no operation on `other` since its creation; `other` is
  // not world() or local_team(). The moved-to object takes over the team's registration
  // (team_id::here() finds it); `other` becomes inactive.
  team(team&& other) noexcept;
  // UPC++ 2022.3: the same, into an existing object, which must be inactive (default-built,
  // moved from or destroyed): assigning over an active team is an error. Assigning an object
  // to itself does nothing (UPC++ issue 547).
  team& operator=(team&& other);
  team(const team&) = delete;
  team& operator=(const team&) = delete;
  ~team();

  intrank_t rank_me() const { return me_; }
  intrank_t rank_n() const { return n_; }
  team_id id() const { return team_id::from_raw(id_); }

  // World rank of this team's member `i`.
  intrank_t operator[](intrank_t i) const {
    detail::check_rank("upcxx::team::operator[]", i, n_, detail::source_loc::current());
    return members_.empty() ? i : members_[static_cast<std::size_t>(i)];
  }

  // This team's rank of world rank `r`, or `otherwise` if r is not a member. Inline for
  // world and its copies (the identity), which notified access asks at every match.
  intrank_t from_world(intrank_t r, intrank_t otherwise) const {
    if (members_.empty()) return (r >= 0 && r < n_) ? r : otherwise;
    return member_of_world(r, otherwise);
  }
  intrank_t from_world(intrank_t r) const;

  // Collective over this team (spec §11.3.1 ¶19): the callers with one color form a new team,
  // ordered by key and then by rank in this team. color_none returns an invalid team.
  // User-level progress.
  team split(intrank_t color, intrank_t key) const;

  // Collective over this team (UPC++ 2021.9): every caller passes the ranks, in this team, of
  // the new team it joins, in the order they take in it; all members of one new team pass the
  // same sequence. A caller whose sequence does not contain its own rank (an empty one, say)
  // gets an invalid team. User-level progress.
  template <typename Iterable>
  team create(const Iterable& ranks) const {
    std::vector<intrank_t> list;
    for (const auto& r : ranks) list.push_back(static_cast<intrank_t>(r));
    return create_from(std::move(list));
  }

  // Collective over this team (spec §11.3.1 ¶30): after the entry barrier, the team's state
  // on this rank is released and the object is inactive (it may be destroyed or assigned
  // to). On an inactive team it does nothing, without a barrier (UPC++ 2022.3).
  void destroy(entry_barrier lev = entry_barrier::user);

  // Whether this object represents a team: false when default-constructed, moved from,
  // destroyed, or made by split() with color_none or a create() that leaves the caller out.
  // UPC++ 2022.3.
  bool is_active() const { return active_; }

  // Internal: builds world (empty member list = identity) or a team of listed world ranks.
  team(detail::gptr_raw_tag, std::vector<intrank_t> members, intrank_t world_me, intrank_t world_n,
       std::uint64_t id);

 private:
  friend struct detail::team_internal;
  team create_from(std::vector<intrank_t> parent_ranks) const;
  intrank_t member_of_world(intrank_t r, intrank_t otherwise) const;  // not the identity

  std::vector<intrank_t> members_;  // team rank -> world rank; empty means "all, identity"
  // (world rank, team rank), sorted by world rank, for from_world (empty for the identity).
  std::vector<std::pair<intrank_t, intrank_t>> by_world_;
  intrank_t me_ = 0;
  intrank_t n_ = 0;
  std::uint64_t id_ = ~std::uint64_t{0};
  bool active_ = false;
  // Collectives issued on this team so far, in the order every member issues them (spec
  // §12.1): (id, sequence number) names one collective on every member.
  mutable std::uint64_t coll_seq_ = 0;
  mutable std::uint64_t dist_seq_ = 0;  // dist_objects constructed over this team
};

team& world();
team& local_team();

// UPC++ 2022.3: where this process's local team sits among the local teams that partition
// world(): .first is its index in [0, .second), .second how many there are. Equal on every
// member of one local team, stable for the whole run. Non-collective, progress level none.
// local_team()'s members are consecutive ranks of world() (guaranteed since UPC++ 2023.3),
// so the local teams are numbered in world's order.
std::pair<intrank_t, intrank_t> local_team_position();

inline future<team&> team_id::when_here() const {
  promise<team&> pro;
  future<team&> f = pro.get_future();
  detail::team_when_here(id_, std::move(pro));
  return f;
}

// Whether world rank r shares this process's local team (its memory is load/store reachable).
bool local_team_contains(intrank_t world_rank,
                         detail::source_loc loc = detail::source_loc::current());

void barrier(const team& t = world());

}  // namespace upcxx

namespace std {
template <>
struct hash<upcxx::team_id> {
  std::size_t operator()(const upcxx::team_id& t) const noexcept { return std::hash<std::uint64_t>{}(t.raw()); }
};
}  // namespace std
