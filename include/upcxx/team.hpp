// Teams and barrier (spec chapter 11 and §12.2), as far as the foundation needs them:
// world(), local_team(), their rank queries and translation, and barrier() over world().
// Team construction by split() and the other collectives come with the collectives work.
//
// barrier() is collective over the team and blocking; while it waits it makes user-level
// progress. Memory ordering: every store a rank made before entering the barrier is visible
// to every load any rank makes after leaving it.
#pragma once

#include "upcxx/version.hpp"

#include <cstdint>
#include <vector>

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/detail/state.hpp"
#include "upcxx/future.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/init.hpp"

namespace upcxx {

class team;
class team_id;

namespace detail {
team& team_from_id(std::uint32_t id);  // runtime.cpp
std::uint32_t team_id_of(const team& t);
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
  static team_id from_raw(std::uint32_t id) {
    team_id t;
    t.id_ = id;
    return t;
  }
  std::uint32_t raw() const { return id_; }

 private:
  std::uint32_t id_ = ~std::uint32_t{0};
};

class team {
 public:
  team(team&&) = default;
  team& operator=(team&&) = delete;
  team(const team&) = delete;
  team& operator=(const team&) = delete;

  intrank_t rank_me() const { return me_; }
  team_id id() const { return team_id::from_raw(detail::team_id_of(*this)); }
  intrank_t rank_n() const { return n_; }

  // World rank of this team's member `i`.
  intrank_t operator[](intrank_t i) const {
    detail::check_rank("upcxx::team::operator[]", i, n_, detail::source_loc::current());
    return members_.empty() ? i : members_[static_cast<std::size_t>(i)];
  }

  // This team's rank of world rank `r`, or `otherwise` if r is not a member.
  intrank_t from_world(intrank_t r, intrank_t otherwise) const;
  intrank_t from_world(intrank_t r) const;

  // Internal: builds world (empty member list = identity) or a team of listed world ranks.
  team(detail::gptr_raw_tag, std::vector<intrank_t> members, intrank_t world_me, intrank_t world_n);

 private:
  std::vector<intrank_t> members_;  // ascending world ranks; empty means "all, identity"
  intrank_t me_ = 0;
  intrank_t n_ = 0;
};

team& world();
team& local_team();

// The fundamental teams exist from init on, so their ids are always here.
inline future<team&> team_id::when_here() const { return make_future<team&>(here()); }

// Whether world rank r shares this process's local team (its memory is load/store reachable).
bool local_team_contains(intrank_t world_rank,
                         detail::source_loc loc = detail::source_loc::current());

void barrier(const team& t = world());

}  // namespace upcxx
