// UPC++ 2023.3: a dist_object can be built inactive, without a team and before init(), with
// or without a value; it is given a value with emplace() and joined to a team later with
// activate(). dist_object is move-assignable, and local_team() is consecutive in world().
#include <upcxx/upcxx.hpp>

#include <iostream>
#include <string>
#include <unordered_map>
#include <utility>

#include "compat_check.hpp"

// A registry that lives for the whole program: its members are built before init().
class registry {
 public:
  registry() = default;

  void start(const upcxx::team& tm) {
    COMPAT_CHECK(!names_.is_active() && !names_.has_value());
    names_.emplace();  // an empty map
    COMPAT_CHECK(names_.has_value() && !names_.is_active());
    (*names_)[upcxx::rank_me()] = "rank " + std::to_string(upcxx::rank_me());
    names_.activate(tm);
    COMPAT_CHECK(names_.is_active());
  }

  std::string lookup(upcxx::intrank_t owner, int key) {
    return upcxx::rpc(
               owner,
               [](upcxx::dist_object<std::unordered_map<int, std::string>>& n, int k) {
                 auto it = n->find(k);
                 return it == n->end() ? std::string("?") : it->second;
               },
               names_, key)
        .wait();
  }

  // Hands the distributed map to another owner (a move into an inactive dist_object).
  upcxx::dist_object<std::unordered_map<int, std::string>> release() {
    upcxx::dist_object<std::unordered_map<int, std::string>> out;
    out = std::move(names_);
    return out;
  }

 private:
  upcxx::dist_object<std::unordered_map<int, std::string>> names_;
};

registry global_registry;                               // constructed before main
upcxx::dist_object<long> global_counter(upcxx::inactive, 40);  // inactive, with a value

int main() {
  // Before init: the queries and emplace work, nothing is collective.
  COMPAT_CHECK(!global_counter.is_active() && global_counter.has_value() && *global_counter == 40);
  upcxx::dist_object<int> early;
  COMPAT_CHECK(!early.is_active() && !early.has_value());
  early.emplace(7);
  COMPAT_CHECK(early.has_value() && *early == 7);

  upcxx::init();
  const upcxx::intrank_t me = upcxx::rank_me(), n = upcxx::rank_n();
  const upcxx::intrank_t right = (me + 1) % n;

  // Activation, in the same order on every rank, like the constructors it stands for.
  global_registry.start(upcxx::world());
  *global_counter += me;
  global_counter.activate(upcxx::world());
  early.emplace(100 + me);
  early.activate(upcxx::world());

  COMPAT_CHECK(global_counter.fetch(right).wait() == 40 + right);
  COMPAT_CHECK(early.fetch(right).wait() == 100 + right);
  COMPAT_CHECK(global_registry.lookup(right, right) == "rank " + std::to_string(right));
  COMPAT_CHECK(global_registry.lookup(right, me) == "?" || n == 1);

  // Move-assignment: the receiver becomes the rank's member, the source inactive.
  upcxx::dist_object<int> later;
  later = std::move(early);
  COMPAT_CHECK(later.is_active() && !early.is_active());
  COMPAT_CHECK(later.fetch(right).wait() == 100 + right);
  later = std::move(later);  // a self-move changes nothing
  COMPAT_CHECK(later.is_active() && *later == 100 + me);
  upcxx::dist_id<int> id = later.id();
  COMPAT_CHECK(&id.here() == &later);

  auto names = global_registry.release();
  COMPAT_CHECK(names.is_active());
  COMPAT_CHECK(upcxx::rpc(right, [](upcxx::dist_object<std::unordered_map<int, std::string>>& m) { return m->size(); },
                          names)
                   .wait() == 1);

  // Emplacing into an active object replaces this rank's value; the name stays.
  upcxx::barrier();  // the neighbour has read the old value
  later.emplace(200 + me);
  upcxx::barrier();
  COMPAT_CHECK(later.fetch(right).wait() == 200 + right);

  // Over a subteam, inactive until its team exists.
  upcxx::dist_object<int> per_half(upcxx::inactive, me);
  upcxx::team half = upcxx::world().split(me % 2, me);
  per_half.activate(half);
  COMPAT_CHECK(&per_half.team() == &half);
  const upcxx::intrank_t half_right = half[(half.rank_me() + 1) % half.rank_n()];
  COMPAT_CHECK(per_half.fetch((half.rank_me() + 1) % half.rank_n()).wait() == half_right);

  // local_team(): consecutive ranks of world(), the caller among them.
  const upcxx::team& local = upcxx::local_team();
  for (upcxx::intrank_t i = 0; i < local.rank_n(); ++i) COMPAT_CHECK(local[i] == local[0] + i);
  COMPAT_CHECK(local[local.rank_me()] == me);

  upcxx::barrier();  // every rank's fetches are done before the objects go
  half.destroy();
  if (me == 0) std::cout << "r2023_3_dist_object_inactive: OK" << std::endl;
  upcxx::finalize();
}
