// Collectives over any team: the engine behind barrier_async, broadcast and the reductions
// (include/upcxx/collectives.hpp), and the blocking barrier of teams other than world.
//
// A collective is named on every member by (team id, the team's collective sequence number):
// members issue a team's collectives in one order (spec §12.1), so each member's n-th
// collective on a team is the same operation. Members exchange runtime messages
// (rpc_internal records, rpc_internal.hpp) carrying that name, a round number and the bytes
// of a partial result; the handler runs at any progress level. A message for a collective
// this rank has not started yet waits in the operation's entry, created by the message;
// the local start finds it there. Every algorithm takes O(log n) rounds of one message per
// rank (DESIGN.md, Scale):
//   barrier      dissemination: in round k, signal rank+2^k, wait for rank-2^k
//   broadcast    binomial tree rooted at the root
//   reduce_one   binomial tree towards the root
//   reduce_all   recursive doubling; with n not a power of two, the first 2*(n-p) ranks fold
//                pairwise into p (the largest power of two <= n) first and get the result last
// Messages leave with the next progress call (they share the RPC batches); a rank waiting for
// a collective makes progress, which sends them.
#include <sched.h>

#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/rpc_internal.hpp"
#include "runtime/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/collectives.hpp"
#include "upcxx/team.hpp"
#include "util/log.hpp"

namespace gannet::coll {
namespace {

using upcxx::intrank_t;
using upcxx::detail::coll_client;
using upcxx::detail::coll_kind;

struct coll_head {
  std::uint64_t team;
  std::uint64_t seq;
  std::uint32_t round;
  std::uint32_t unused;
};

constexpr std::uint32_t round_result = 63;  // reduce_all: the folded-out ranks' result

struct coll_key {
  std::uint64_t team;
  std::uint64_t seq;
  bool operator==(const coll_key& o) const { return team == o.team && seq == o.seq; }
};
struct coll_key_hash {
  std::size_t operator()(const coll_key& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.team * 0x9e3779b97f4a7c15ull ^ k.seq);
  }
};

// One collective at this rank, from its start or its first message, whichever comes first.
struct coll_state {
  coll_client* client = nullptr;  // null until this rank starts the collective
  const upcxx::team* tm = nullptr;
  coll_kind kind = coll_kind::barrier;
  intrank_t root = 0;
  intrank_t n = 0;
  intrank_t me = 0;
  unsigned step = 0;
  bool sent = false;  // this step's message has left
  // Messages of rounds this rank has not consumed yet: every (collective, round) receives
  // exactly one message, so the round names it.
  std::vector<std::pair<std::uint32_t, std::vector<std::byte>>> inbox;
};

std::unordered_map<coll_key, coll_state, coll_key_hash> g_colls;

unsigned ceil_log2(intrank_t n) {
  unsigned r = 0;
  while ((intrank_t{1} << r) < n) ++r;
  return r;
}

class machine {
 public:
  machine(const coll_key& key, coll_state& s) : key_(key), s_(s) {}

  // Moves the collective as far as the messages so far allow; true once it is complete.
  bool advance() {
    switch (s_.kind) {
      case coll_kind::barrier: return barrier();
      case coll_kind::broadcast: return broadcast();
      case coll_kind::reduce_one: return reduce_one();
      case coll_kind::reduce_all: return reduce_all();
    }
    return false;
  }

 private:
  bool has(std::uint32_t round) const {
    for (const auto& m : s_.inbox)
      if (m.first == round) return true;
    return false;
  }
  std::vector<std::byte> take(std::uint32_t round) {
    for (std::size_t i = 0; i < s_.inbox.size(); ++i) {
      if (s_.inbox[i].first != round) continue;
      std::vector<std::byte> bytes = std::move(s_.inbox[i].second);
      s_.inbox.erase(s_.inbox.begin() + static_cast<std::ptrdiff_t>(i));
      return bytes;
    }
    util::fatal("collective: round %u consumed before it arrived", round);
  }
  void send(intrank_t team_rank, std::uint32_t round, const std::vector<std::byte>& bytes) {
    coll_head h{key_.team, key_.seq, round, 0};
    runtime::internal_send((*s_.tm)[team_rank], runtime::internal_id::coll, &h, sizeof h, bytes.data(), bytes.size());
  }
  void combine(const std::vector<std::byte>& in, bool in_from_lower) {
    s_.client->combine(s_.client->data, in.data(), in.size(), in_from_lower);
  }
  intrank_t relative() const { return (s_.me - s_.root + s_.n) % s_.n; }
  intrank_t absolute(intrank_t rel) const { return (rel + s_.root) % s_.n; }

  bool barrier() {
    static const std::vector<std::byte> nothing;
    const unsigned rounds = ceil_log2(s_.n);
    while (s_.step < rounds) {
      if (!s_.sent) {
        send((s_.me + (intrank_t{1} << s_.step)) % s_.n, s_.step, nothing);
        s_.sent = true;
      }
      if (!has(s_.step)) return false;
      take(s_.step);
      ++s_.step;
      s_.sent = false;
    }
    return true;
  }

  bool broadcast() {
    const intrank_t r = relative();
    if (r != 0) {
      if (!has(0)) return false;
      s_.client->data = take(0);
    }
    // Children: r + m for every power of two m below r's lowest set bit (every m for the
    // root), largest subtree first.
    intrank_t low = r == 0 ? (intrank_t{1} << ceil_log2(s_.n)) : (r & -r);
    for (intrank_t m = low >> 1; m >= 1; m >>= 1)
      if (r + m < s_.n) send(absolute(r + m), 0, s_.client->data);
    return true;
  }

  bool reduce_one() {
    const intrank_t r = relative();
    for (;;) {
      const intrank_t m = intrank_t{1} << s_.step;
      if (m >= s_.n) return true;  // the root: everything is combined
      if (r & m) {
        send(absolute(r - m), s_.step, s_.client->data);
        return true;  // a non-root's part is done once its subtree's value has left
      }
      if (r + m < s_.n) {
        if (!has(s_.step)) return false;
        combine(take(s_.step), false);
      }
      ++s_.step;
    }
  }

  bool reduce_all() {
    const intrank_t n = s_.n, me = s_.me;
    const intrank_t p = intrank_t{1} << (ceil_log2(n + 1) - 1);  // largest power of two <= n
    const intrank_t rem = n - p;
    const bool folded = me < 2 * rem;
    if (s_.step == 0) {
      if (folded && me % 2 == 0) {
        // Hand our value to our odd neighbour; it brings back the result.
        if (!s_.sent) {
          send(me + 1, 0, s_.client->data);
          s_.sent = true;
        }
        if (!has(round_result)) return false;
        s_.client->data = take(round_result);
        return true;
      }
      if (folded) {
        if (!has(0)) return false;
        combine(take(0), true);
      }
      s_.step = 1;
      s_.sent = false;
    }
    const intrank_t mine = folded ? me / 2 : me - rem;
    const unsigned rounds = ceil_log2(p);
    while (s_.step <= rounds) {
      const intrank_t partner_new = mine ^ (intrank_t{1} << (s_.step - 1));
      const intrank_t partner = partner_new < rem ? partner_new * 2 + 1 : partner_new + rem;
      if (!s_.sent) {
        send(partner, s_.step, s_.client->data);
        s_.sent = true;
      }
      if (!has(s_.step)) return false;
      combine(take(s_.step), partner_new < mine);
      ++s_.step;
      s_.sent = false;
    }
    if (folded) send(me - 1, round_result, s_.client->data);
    return true;
  }

  coll_key key_;
  coll_state& s_;
};

// Runs the collective as far as it goes; completes it (outside the table) when it is done.
void drive(const coll_key& key, coll_state& s) {
  if (!machine(key, s).advance()) return;
  coll_client* client = s.client;
  if (!s.inbox.empty()) util::fatal("collective on team %llx: %zu unexpected messages", (unsigned long long)key.team,
                                    s.inbox.size());
  g_colls.erase(key);
  client->finish();
}

void on_coll(int source, const std::byte* payload, std::size_t bytes) {
  (void)source;
  coll_head h;
  std::memcpy(&h, payload, sizeof h);
  const std::size_t at = runtime::internal_body_offset(sizeof h);
  const coll_key key{h.team, h.seq};
  auto& s = g_colls[key];
  s.inbox.emplace_back(h.round, std::vector<std::byte>(payload + at, payload + bytes));
  if (s.client) drive(key, s);
}

}  // namespace

void coll_attach() { runtime::internal_register(runtime::internal_id::coll, on_coll); }

}  // namespace gannet::coll

namespace upcxx::detail {

std::uint64_t team_next_collective(const team& t);  // team.cpp

void coll_start(const team& t, coll_kind kind, intrank_t root, coll_client* client) {
  using namespace gannet::coll;
  gannet::runtime::runtime_lock lock;
  const coll_key key{team_id_of(t), team_next_collective(t)};
  auto& s = g_colls[key];
  s.client = client;
  s.tm = &t;
  s.kind = kind;
  s.root = root;
  s.n = t.rank_n();
  s.me = t.rank_me();
  drive(key, s);
}

void coll_wait_user(const bool* done) {
  gannet::runtime::wait_until_aborting_or([](void* d) { return *static_cast<const bool*>(d); },
                                          const_cast<bool*>(done));
}

}  // namespace upcxx::detail
