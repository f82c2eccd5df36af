// UPC++ 2022.3: local_team_position() tells which of the job's local teams the caller is in
// and how many there are; teams can be placeholders (globals built before init) that are
// filled by moving a team in, destroyed (a no-op on an inactive one) and filled again.
#include <upcxx/upcxx.hpp>

#include <iostream>
#include <utility>

#include "compat_check.hpp"

upcxx::team node_leaders;  // set up after init

int main() {
  COMPAT_CHECK(!node_leaders.is_active());
  upcxx::init();
  const upcxx::intrank_t me = upcxx::rank_me();

  std::pair<upcxx::intrank_t, upcxx::intrank_t> pos = upcxx::local_team_position();
  COMPAT_CHECK(pos.second >= 1 && pos.second <= upcxx::rank_n());
  COMPAT_CHECK(pos.first >= 0 && pos.first < pos.second);
  COMPAT_CHECK(upcxx::local_team_position() == pos);  // stable
  // Every member of a local team gets the same answer; there are as many local teams as
  // ranks that are first in theirs.
  const upcxx::team& local = upcxx::local_team();
  COMPAT_CHECK(upcxx::broadcast(pos, 0, local).wait() == pos);
  const bool leader = local.rank_me() == 0;
  COMPAT_CHECK(upcxx::reduce_all(leader ? 1 : 0, upcxx::op_fast_add).wait() == pos.second);

  // One rank per local team, numbered by local team.
  node_leaders = upcxx::world().split(leader ? 0 : upcxx::team::color_none, pos.first);
  COMPAT_CHECK(node_leaders.is_active() == leader);
  if (leader) {
    COMPAT_CHECK(node_leaders.rank_n() == pos.second && node_leaders.rank_me() == pos.first);
    COMPAT_CHECK(&node_leaders.id().here() == &node_leaders);  // the registry follows the move
    node_leaders = std::move(node_leaders);  // a self-move changes nothing
    COMPAT_CHECK(node_leaders.is_active());
  }
  node_leaders.destroy();  // collective over the leaders; nothing on the others
  COMPAT_CHECK(!node_leaders.is_active());
  node_leaders.destroy();  // inactive: allowed, does nothing

  // The placeholder is filled again, with a team of every rank.
  node_leaders = upcxx::world().split(0, -me);
  COMPAT_CHECK(node_leaders.rank_n() == upcxx::rank_n() && node_leaders[0] == upcxx::rank_n() - 1);
  upcxx::team other;
  other = std::move(node_leaders);
  COMPAT_CHECK(other.is_active() && !node_leaders.is_active());
  COMPAT_CHECK(upcxx::reduce_all(1, upcxx::op_fast_add, other).wait() == upcxx::rank_n());
  other.destroy();

  upcxx::barrier();
  if (me == 0) std::cout << "r2022_3_local_team_position: OK" << std::endl;
  upcxx::finalize();
}
