// The dist_object registry: ids for new dist_objects, the objects that exist here by id,
// when_here() waiters, and calls parked until the dist_object they name exists (run_call
// parks them, incoming.cpp; registration moves them to the backlog).
#include <cstdint>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "rpc/rpc_state.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/rpc_fwd.hpp"

namespace upcxx::detail {

bool team_is_world(const team& t);           // src/coll/team.cpp
std::uint64_t team_next_dist_id(const team& t);  // src/coll/team.cpp

// World's dist_objects (and those of teams equal to it) keep the plain counter; others are
// named by their team (src/coll/team.cpp).
std::uint64_t dist_next_id(const team& t) {
  return team_is_world(t) ? gannet::runtime::rpc_impl::st().next_dist_id++ : team_next_dist_id(t);
}

void dist_register(std::uint64_t id, void* object) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::rpc_impl::st();
  s.dist_objects[id] = object;
  // when_here() futures are readied inside the constructor (spec §14.4 ¶6).
  if (auto w = s.when_here.find(id); w != s.when_here.end()) {
    auto waiters = std::move(w->second);
    s.when_here.erase(w);
    for (auto& x : waiters) x.fire(x.ctx, object);
  }
  auto it = s.parked.find(id);
  if (it == s.parked.end()) return;
  // Parked calls run in the next user-level progress (never inside the constructor); a
  // call naming several dist ids may park again on the next missing one.
  for (auto& m : it->second) s.backlog.push_back(std::move(m));
  s.parked.erase(it);
}

void dist_when_here(std::uint64_t id, void (*fire)(void* ctx, void* object), void* ctx) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::rpc_impl::st();
  if (auto it = s.dist_objects.find(id); it != s.dist_objects.end()) {
    fire(ctx, it->second);
    return;
  }
  s.when_here[id].push_back({fire, ctx});
}

void dist_unregister(std::uint64_t id) {
  gannet::runtime::runtime_lock lock;
  gannet::runtime::rpc_impl::st().dist_objects.erase(id);
}

void* dist_lookup(std::uint64_t id) {
  gannet::runtime::runtime_lock lock;
  auto& s = gannet::runtime::rpc_impl::st();
  auto it = s.dist_objects.find(id);
  return it == s.dist_objects.end() ? nullptr : it->second;
}

}  // namespace upcxx::detail
