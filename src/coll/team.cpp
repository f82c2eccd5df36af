// Teams (spec chapter 11): construction by split() and create(), the registry behind
// team_id::here() and team arguments of RPCs, from_world, destroy, and barrier() over any
// team.
//
// Ids: world is 0 and the local team 1 (a rank belongs to one local team). A team made from
// a parent gets a 64-bit id mixed from the parent's id, the parent's collective sequence
// number at the split or create (the same on every member, spec §12.1) and the color or the
// member list: equal on every member, different for every team a rank can belong to, with
// no communication.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/atomic.hpp"
#include "upcxx/collectives.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/team.hpp"
#include "util/log.hpp"

namespace upcxx::detail {
void barrier_unchecked(const team& t);  // runtime.cpp: the transport's barrier over world
void drain_after_barrier();             // progress.cpp
bool debug_checks_enabled();            // runtime.cpp
void team_barrier(const team& t);
}  // namespace upcxx::detail

namespace gannet::coll {
std::size_t collectives_pending(std::uint64_t team);  // coll.cpp

namespace {

std::uint64_t mix64(std::uint64_t x) {
  // splitmix64's finalizer: every input bit affects every output bit.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

constexpr std::uint64_t invalid_id = ~std::uint64_t{0};

std::uint64_t derived_id(std::uint64_t parent, std::uint64_t seq, std::uint64_t what) {
  std::uint64_t id = mix64(parent ^ mix64(seq + 0x9e3779b97f4a7c15ull) ^ mix64(what * 0xc2b2ae3d27d4eb4full + 1));
  if (id <= 1 || id == invalid_id) id = 2;  // keep clear of world, local and invalid
  return id;
}

struct registry {
  std::unordered_map<std::uint64_t, upcxx::team*> teams;
  std::unordered_map<std::uint64_t, std::vector<upcxx::promise<upcxx::team&>>> waiting;
};
registry& reg() {
  static registry r;
  return r;
}

void enroll(std::uint64_t id, upcxx::team* t) {
  gannet::runtime::runtime_lock lock;
  auto& r = reg();
  r.teams[id] = t;
  auto w = r.waiting.find(id);
  if (w == r.waiting.end()) return;
  auto promises = std::move(w->second);
  r.waiting.erase(w);
  for (auto& p : promises) p.fulfill_result(*t);
}

void withdraw(std::uint64_t id, const upcxx::team* t) {
  gannet::runtime::runtime_lock lock;
  auto& r = reg();
  auto it = r.teams.find(id);
  if (it != r.teams.end() && it->second == t) r.teams.erase(it);
}

// Gathers every member's fixed-size record: a reduce_all whose operation concatenates.
class gather_client final : public upcxx::detail::coll_client {
 public:
  std::atomic<bool> done{false};
  void combine(upcxx::detail::coll_bytes& acc, const std::byte* in, std::size_t n, bool) override {
    acc.append(in, n);
  }
  // Owned by the waiting caller. Release: the caller reads `data` once it sees done.
  void finish() override { done.store(true, std::memory_order_release); }
};

// A barrier that waits with internal progress only (entry_barrier::internal).
class flag_client final : public upcxx::detail::coll_client {
 public:
  std::atomic<bool> done{false};
  void finish() override { done.store(true, std::memory_order_release); }
};

// Waits with progress at `level` until the blocking collective behind `done` completes (in
// threadmode par another thread's progress may complete it).
void wait_for(const std::atomic<bool>& done, upcxx::progress_level level = upcxx::progress_level::user) {
  gannet::runtime::wait_until_aborting_or(
      [](void* d) { return static_cast<const std::atomic<bool>*>(d)->load(std::memory_order_acquire); },
      const_cast<std::atomic<bool>*>(&done), level);
}

}  // namespace

// finalize(): a barrier of messages (runtime.cpp says why), never the transport's.
void finalize_barrier() {
  const upcxx::team& world = upcxx::world();
  if (world.rank_n() == 1) return;
  flag_client b;
  b.internal = true;  // start_on_world_barrier leaves it to messages
  upcxx::detail::coll_start(world, upcxx::detail::coll_kind::barrier, 0, &b);
  wait_for(b.done, upcxx::progress_level::internal);
}

}  // namespace gannet::coll

namespace upcxx {

namespace detail {

struct team_internal {
  static std::uint64_t next_collective(const team& t) { return t.coll_seq_++; }
  static std::uint64_t next_dist(const team& t) { return t.dist_seq_++; }
  static bool identity(const team& t) { return t.members_.empty(); }
  static team make(std::vector<intrank_t> members, intrank_t me, std::uint64_t id) {
    return team(gptr_raw_tag{}, std::move(members), me, -1, id);
  }
  static team invalid() { return team(); }
};

std::uint64_t team_next_collective(const team& t) { return team_internal::next_collective(t); }

std::uint64_t team_id_of(const team& t) { return t.id().raw(); }

team& team_from_id(std::uint64_t id) {
  gannet::runtime::runtime_lock lock;
  auto& r = gannet::coll::reg();
  auto it = r.teams.find(id);
  if (it == r.teams.end())
    gannet::util::fatal("team_id::here(): this rank has no team with that id (not a member, not constructed "
                        "yet, or destroyed)");
  return *it->second;
}

void team_when_here(std::uint64_t id, promise<team&> pro) {
  gannet::runtime::runtime_lock lock;
  auto& r = gannet::coll::reg();
  auto it = r.teams.find(id);
  if (it != r.teams.end()) {
    pro.fulfill_result(*it->second);
    return;
  }
  r.waiting[id].push_back(std::move(pro));
}

// Every rank of world, in world's order: such a team may use world's transport barrier and
// world's dist_object counter (every rank takes part in its collectives, in one order).
bool team_is_world(const team& t) { return team_internal::identity(t) && t.rank_n() == g_state.rank_n; }

// The dist_objects of other teams are named by their team and their position among its
// dist_objects (top bit set: apart from world's counter).
std::uint64_t team_next_dist_id(const team& t) {
  return gannet::coll::derived_id(t.id().raw(), team_internal::next_dist(t), 0xd157) | (std::uint64_t{1} << 63);
}

}  // namespace detail

// world_n < 0: `members` lists every member (a team made from a parent).
team::team(detail::gptr_raw_tag, std::vector<intrank_t> members, intrank_t me, intrank_t world_n, std::uint64_t id)
    : members_(std::move(members)), me_(me), id_(id), active_(true) {
  if (world_n < 0) world_n = detail::g_state.rank_n;
  n_ = members_.empty() ? world_n : static_cast<intrank_t>(members_.size());
  // A member list equal to 0..world_n-1 is the identity: store it as such.
  bool identity = static_cast<intrank_t>(members_.size()) == world_n;
  for (std::size_t i = 0; identity && i < members_.size(); ++i) identity = members_[i] == static_cast<intrank_t>(i);
  if (identity) members_.clear();
  by_world_.reserve(members_.size());
  for (std::size_t i = 0; i < members_.size(); ++i) by_world_.emplace_back(members_[i], static_cast<intrank_t>(i));
  std::sort(by_world_.begin(), by_world_.end());
  gannet::coll::enroll(id_, this);
}

// world() and local_team() live in the runtime for the whole run: they are never moved.
static void refuse_moving_builtin(const team& other, const char* what) {
  if (other.is_active() && other.id().raw() <= 1)
    gannet::util::fatal("%s: world() and local_team() cannot be moved from (UPC++ spec 11.3.1)", what);
}

team::team(team&& other) noexcept
    : members_(std::move(other.members_)),
      by_world_(std::move(other.by_world_)),
      me_(other.me_),
      n_(other.n_),
      id_(other.id_),
      active_(other.active_),
      coll_seq_(other.coll_seq_),
      dist_seq_(other.dist_seq_) {
  refuse_moving_builtin(*this, "upcxx::team move constructor");
  other.active_ = false;
  if (active_) gannet::coll::enroll(id_, this);
}

team& team::operator=(team&& other) {
  if (&other == this) return *this;  // UPC++ issue 547: a self-move leaves the team as it was
  if (active_)
    gannet::util::fatal("upcxx::team move assignment: the target team is active; UPC++ (2022.3) allows moving a "
                        "team only into an inactive one (default-constructed, moved from or destroyed)");
  refuse_moving_builtin(other, "upcxx::team move assignment");
  members_ = std::move(other.members_);
  by_world_ = std::move(other.by_world_);
  me_ = other.me_;
  n_ = other.n_;
  id_ = other.id_;
  active_ = std::exchange(other.active_, false);
  coll_seq_ = other.coll_seq_;
  dist_seq_ = other.dist_seq_;
  other.members_.clear();
  other.by_world_.clear();
  if (active_) gannet::coll::enroll(id_, this);  // team_id::here() now finds this object
  return *this;
}

team::~team() {
  if (active_) gannet::coll::withdraw(id_, this);
}

intrank_t team::member_of_world(intrank_t r, intrank_t otherwise) const {
  auto it = std::lower_bound(by_world_.begin(), by_world_.end(), std::make_pair(r, intrank_t{-1}));
  return (it != by_world_.end() && it->first == r) ? it->second : otherwise;
}

intrank_t team::from_world(intrank_t r) const {
  intrank_t t = from_world(r, -1);
  UPCXX_ASSERT_ALWAYS(t >= 0, "team::from_world(" << r << "): rank is not a member of this team");
  return t;
}

team team::split(intrank_t color, intrank_t key) const {
  if (color < 0 && color != color_none)
    gannet::util::fatal("upcxx::team::split: color %d is negative and not team::color_none (spec 11.3.1 ¶21)", color);
  if (detail::debug_checks_enabled()) {
    if (upcxx::in_progress()) detail::fail_restricted("upcxx::team::split()");  // it waits (spec 10.2)
    detail::check_master_persona("upcxx::team::split (collective)");
  }
  // Everyone learns everyone's (rank, color, key): one gather, O(log n) rounds.
  struct entry {
    intrank_t rank, color, key;
  };
  const std::uint64_t seq = coll_seq_;  // the gather takes this number
  gannet::coll::gather_client gather;
  entry mine{me_, color, key};
  gather.data.assign(reinterpret_cast<const std::byte*>(&mine), sizeof mine);
  if (n_ > 1) {
    detail::coll_start(*this, detail::coll_kind::reduce_all, 0, &gather);
    gannet::coll::wait_for(gather.done);
  } else {
    ++coll_seq_;
  }
  if (color == color_none) return detail::team_internal::invalid();
  std::vector<entry> all(gather.data.size() / sizeof(entry));
  std::memcpy(all.data(), gather.data.data(), all.size() * sizeof(entry));
  std::vector<entry> same;
  for (const auto& e : all)
    if (e.color == color) same.push_back(e);
  std::sort(same.begin(), same.end(),
            [](const entry& a, const entry& b) { return a.key != b.key ? a.key < b.key : a.rank < b.rank; });
  std::vector<intrank_t> members;
  intrank_t new_me = -1;
  for (const auto& e : same) {
    if (e.rank == me_) new_me = static_cast<intrank_t>(members.size());
    members.push_back((*this)[e.rank]);
  }
  return detail::team_internal::make(std::move(members), new_me,
                                     gannet::coll::derived_id(id_, seq, static_cast<std::uint32_t>(color)));
}

team team::create_from(std::vector<intrank_t> parent_ranks) const {
  if (detail::debug_checks_enabled()) detail::check_master_persona("upcxx::team::create (collective)");
  const std::uint64_t seq = coll_seq_++;  // every member of this team calls create here
  intrank_t new_me = -1;
  std::uint64_t digest = 0x7ea3;
  std::vector<intrank_t> members;
  members.reserve(parent_ranks.size());
  for (std::size_t i = 0; i < parent_ranks.size(); ++i) {
    intrank_t r = parent_ranks[i];
    if (r < 0 || r >= n_)
      gannet::util::fatal("upcxx::team::create: rank %d is not a rank of the parent team [0, %d)", r, n_);
    if (r == me_) new_me = static_cast<intrank_t>(i);
    digest = gannet::coll::mix64(digest ^ static_cast<std::uint64_t>(r));
    members.push_back((*this)[r]);
  }
  {
    // Duplicates, in O(m log m): sorted copies of the parent ranks, neighbours compared.
    std::vector<intrank_t> sorted(parent_ranks.begin(), parent_ranks.end());
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) gannet::util::fatal("upcxx::team::create: rank %d is listed twice", *dup);
  }
  upcxx::progress();  // spec: the call makes user-level progress
  if (new_me < 0) return detail::team_internal::invalid();
  return detail::team_internal::make(std::move(members), new_me, gannet::coll::derived_id(id_, seq, digest));
}

void team::destroy(entry_barrier lev) {
  if (!active_) return;  // UPC++ 2022.3: destroy() of an inactive team has no effect
  if (id_ <= 1) gannet::util::fatal("upcxx::team::destroy on world() or local_team() (spec 11.3.3)");
  detail::entry_barrier_wait(*this, lev);
  // Past a barrier every member has completed its collectives on the team (spec 11.3.1 ¶32),
  // so nothing may be left for it here: a leftover is a message no collective consumed.
  if (lev != entry_barrier::none) {
    if (std::size_t left = gannet::coll::collectives_pending(id_))
      gannet::util::fatal("upcxx::team::destroy: %zu collective(s) on this team still hold messages: collectives were "
                          "not matched across its members, or a message arrived twice",
                          left);
  }
  gannet::coll::withdraw(id_, this);
  active_ = false;
}

// Every transport places a machine's ranks consecutively in world() and local_team() is all
// of them (src/transport: smp puts the whole job on one machine, loopback is one process).
// The local teams are then consecutive blocks of world(): local_team() is the only one when
// it spans world(). A transport that splits a job across machines must number the local teams
// for this query (it knows the layout; one process alone cannot count the other blocks).
std::pair<intrank_t, intrank_t> local_team_position() {
  const team& local = local_team();
  if (local.rank_n() == detail::g_state.rank_n) return {0, 1};
  gannet::util::fatal("upcxx::local_team_position: this transport spreads the job over several machines but does "
                      "not number their local teams");
}

// The entry barrier of the collective destroy() calls (spec 12.2 ¶1).
void detail::entry_barrier_wait(const team& t, entry_barrier lev) {
  if (lev == entry_barrier::user) {
    upcxx::barrier(t);
  } else if (lev == entry_barrier::internal && t.rank_n() > 1) {
    gannet::coll::flag_client b;
    detail::coll_start(t, detail::coll_kind::barrier, 0, &b);
    gannet::coll::wait_for(b.done, progress_level::internal);
  }
}

void detail::team_barrier(const team& t) {
  if (t.rank_n() == 1) {
    // Calls to ourselves run before we return, as after any barrier (runtime.hpp).
    gannet::runtime::deliver_before_barrier();
    gannet::runtime::barrier_completed();
    upcxx::progress();
    return;
  }
  if (team_is_world(t)) {
    barrier_unchecked(t);
    return;
  }
  gannet::coll::flag_client b;
  coll_start(t, coll_kind::barrier, 0, &b);
  gannet::coll::wait_for(b.done);
  drain_after_barrier();  // when another thread's progress completed it, or internal progress
}

}  // namespace upcxx

namespace gannet::coll {
void coll_attach();
}
