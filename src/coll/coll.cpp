// Collectives over any team: the engine behind barrier_async, broadcast and the reductions
// (include/upcxx/collectives.hpp), and the blocking barrier of teams other than world.
//
// The coll room (src/coll). Owns: teams (team.cpp: ids, split/create, the registry behind
// team_id::here() and team arguments of RPCs, destroy, barrier() over any team) and this
// engine. May include: the core (core/runtime.hpp), the runtime-message service of src/rpc
// (rpc/rpc_internal.hpp), the transport contract (never a concrete transport), util/ and
// public headers; never src/ext/ (an extension that must hear of a collective gets the core's
// sync_point hook, run from coll_start). The core calls back into this room at init
// (coll_attach), for world() and local_team() (the team constructor) and for barrier() on a
// team (team_barrier).
// Threading: collectives are initiated by the thread holding the master persona (debug
// codemode checks it) and never from inside progress callbacks (spec §10.2); the engine's
// state is used under the runtime lock, and its message handlers run from any thread that
// polls. Progress: handlers run at any progress level (a collective needs only internal
// progress at the other members) and never poll or wait; completions are delivered like an
// off-node RMA's, to the initiating persona in its user-level progress (on a team of one
// too, as UPC++ does).
//
// A collective is named on every member by (team id, the team's collective sequence number):
// members issue a team's collectives in one order (spec §12.1), so each member's n-th
// collective on a team is the same operation. Members exchange messages carrying that name, a
// round number and the bytes of a partial result: small ones as the transport's own active
// messages (one cache line for a scalar), larger ones as runtime messages (rpc_internal
// records, rpc_internal.hpp), which carry any size; both handlers run at any progress level
// and read the message in place when the collective wants it at once. A message for a collective
// this rank has not started yet waits in the operation's entry, created by the message;
// the local start finds it there. Every algorithm takes O(log n) rounds of one message per
// rank (docs/scale.md):
//   barrier      dissemination: in round k, signal rank+2^k, wait for rank-2^k
//   broadcast    binomial tree rooted at the root
//   reduce_one   binomial tree towards the root
//   reduce_all   recursive doubling; with n not a power of two, the first 2*(n-p) ranks fold
//                pairwise into p (the largest power of two <= n) first and get the result last
//   gather       reduce_one's tree, concatenating: rank r's subtree is the relative ranks
//                r .. r+2^k-1, so the root ends with every contribution in relative order
//   gather_all   reduce_all's pattern, concatenating: a folded pair and each recursive
//                doubling group hold consecutive team ranks, so every rank ends in rank order
//   scan         dissemination (Hillis and Steele): in round k, send the combination of
//                ranks rank-2^k+1 .. rank to rank+2^k, fold in what rank-2^k sends
//   alltoall     blocks of one small size: Bruck (ceil(log2 n) rounds, each sending the
//                blocks whose index has bit k set to rank+2^k); otherwise pairwise: the n-1
//                blocks leave at once, to rank+1, rank+2, ... (no two senders start on one
//                target); a block over 32 KiB is offered by its address instead and copied
//                once by its receiver (RMA get from another machine): pairwise() below
//   (gather_all of blocks over 32 KiB runs as a pairwise alltoall of one block)
// Messages leave at once, after whatever was batched for their target (so a rank's messages
// to another keep their order); state for a collective is recycled, and a collective of a few
// scalars allocates nothing here.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/collectives.hpp"
#include "upcxx/team.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"

namespace upcxx::detail {
bool team_is_world(const team& t);  // team.cpp: world, or a team of all ranks in world's order
}

namespace gannet::coll {
namespace {

using upcxx::intrank_t;
using upcxx::detail::coll_client;
using upcxx::detail::coll_kind;

const char* observed_name(const coll_client& c) {
  switch (c.observed_kind) {
    case coll_kind::broadcast: return "broadcast";
    case coll_kind::reduce_one: return "reduce_one";
    case coll_kind::reduce_all: return "reduce_all";
    case coll_kind::gather: return "gather";
    case coll_kind::gather_all: return "gather_all";
    case coll_kind::scan: return c.scan_exclusive ? "exscan" : "scan";
    case coll_kind::alltoall: return "alltoall";
    default: return "collective";
  }
}

// Every path's end: the span of an observed collective, then the client's completion.
void finish_client(coll_client* c) {
  if (c->observed_t0) [[unlikely]]
    gannet::observe::span(gannet::observe::kind::collective, -1, c->data.size(), c->observed_t0, 0, observed_name(*c));
  c->finish();
}

// 16 bytes: with the transport's 32-byte message header and a scalar, one cache line.
struct coll_head {
  std::uint64_t team;
  std::uint32_t seq;  // the low bits: names a collective among the few in flight on a team
  std::uint32_t round;
};
static_assert(sizeof(coll_head) == 16);

// Small messages travel as the transport's own active messages (no RPC record around them);
// larger ones as runtime messages, which handle any size.
constexpr transport::am_handler_id am_coll = 9;
std::size_t g_am_max = 0;  // the transport's medium-message limit

constexpr std::uint32_t round_result = 63;  // reduce_all: the folded-out ranks' result

// Pairwise exchange: the round names the sending team rank, with these flags.
constexpr std::uint32_t a_read_here = 1u << 30;  // sender: the block is at this address{} in its segment
constexpr std::uint32_t a_read_done = 1u << 29;  // receiver: copied; the sender may reuse it
constexpr std::uint32_t a_exposed = 1u << 28;    // with a_read_here: a token of exposed private memory
constexpr std::uint32_t a_flags = a_read_here | a_read_done | a_exposed;
struct address {
  std::uint64_t owner_addr;
  std::uint64_t size;
};
// Blocks of more bytes than this go by direct copy between the ranks of a machine: beyond it
// the copy costs more than the extra round trip of asking where.
constexpr std::size_t direct_min_block = 32 * 1024;

struct coll_key {
  std::uint64_t team;
  std::uint32_t seq;
  bool operator==(const coll_key& o) const { return team == o.team && seq == o.seq; }
  bool operator!=(const coll_key& o) const { return !(*this == o); }
};

struct inbox_msg {
  std::uint32_t round;
  upcxx::detail::coll_bytes bytes;
};

// One collective at this rank, from its start or its first message, whichever comes first.
struct coll_state {
  coll_key key{};
  coll_client* client = nullptr;  // null until this rank starts the collective
  const upcxx::team* tm = nullptr;
  coll_kind kind = coll_kind::barrier;
  intrank_t root = 0;
  intrank_t n = 0;
  intrank_t me = 0;
  unsigned step = 0;
  bool sent = false;  // this step's message has left (set before sending: see drive())
  bool begun = false;  // alltoall: the blocks are laid out (Bruck) or have left (pairwise)
  unsigned served = 0;  // pairwise: the peers whose block from us has left or been read
  std::vector<void*> staged;  // pairwise: copies of our blocks in our segment, for peers to read
  const std::byte* staged_from = nullptr;
  std::size_t staged_bytes = 0;
  // pairwise: our private block that ranks of other machines read in place (transport
  // expose(); one per collective, the others are staged).
  const std::byte* exposed = nullptr;
  std::size_t exposed_bytes = 0;
  std::uint64_t exposed_token = 0;
  // Inside drive(): a send that waits for room polls, and messages for this collective that
  // arrive meanwhile only join the inbox; drive() looks again once the send returns.
  bool driving = false;
  bool arrived_while_driving = false;
  // Messages of rounds this rank has not consumed yet: every (collective, round) receives
  // exactly one message, so the round names it.
  std::vector<inbox_msg> inbox;  // keeps its capacity when the state is recycled
  // The message being delivered, read in place when the collective wants it at once (the
  // common case): no copy into the inbox.
  const std::byte* arriving = nullptr;
  std::size_t arriving_bytes = 0;
  std::uint32_t arriving_round = 0;
  upcxx::detail::coll_bytes taken;  // the last message taken out of the inbox
  upcxx::detail::coll_bytes packed;  // alltoall (Bruck): the blocks of this round's message
  upcxx::detail::coll_bytes aux;     // exscan: the combination of the lower ranks so far
  bool aux_set = false;
};

// A message's bytes, valid until the next take().
struct msg_view {
  const std::byte* data;
  std::size_t size;
};

// The collectives in flight at this rank, by name: an open-addressing table of states (a root
// that runs ahead may have started many at its peers), linear probing, deletion by backward
// shift. Finished states are kept for reuse with their inbox capacity, so a steady stream of
// small collectives allocates nothing here.
class state_table {
 public:
  coll_state* find(const coll_key& key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      coll_state* s = slots_[i];
      if (!s) return nullptr;
      if (s->key == key) return s;
    }
  }
  void insert(coll_state* s) {
    if ((used_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    std::size_t i = home(s->key);
    while (slots_[i]) i = (i + 1) & mask();
    slots_[i] = s;
    ++used_;
  }
  template <typename F>
  void for_each(F&& f) const {
    for (coll_state* s : slots_)
      if (s) f(*s);
  }
  void erase(const coll_key& key) {
    std::size_t i = home(key);
    while (slots_[i]->key != key) i = (i + 1) & mask();
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (std::size_t j = (i + 1) & mask(); slots_[j]; j = (j + 1) & mask()) {
      std::size_t h = home(slots_[j]->key);
      if (((j - h) & mask()) >= ((j - i) & mask())) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = nullptr;
    --used_;
  }

 private:
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(const coll_key& k) const {
    std::uint64_t x = (k.team ^ (k.seq * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;
    return static_cast<std::size_t>(x >> 32) & mask();
  }
  void rehash(std::size_t n) {
    std::vector<coll_state*> old;
    old.swap(slots_);
    slots_.assign(n, nullptr);
    used_ = 0;
    for (coll_state* s : old)
      if (s) insert(s);
  }
  std::vector<coll_state*> slots_;  // a power of two in size, at most half full
  std::size_t used_ = 0;
};

state_table g_active;
std::vector<std::unique_ptr<coll_state>> g_states;  // owns every state
std::vector<coll_state*> g_spare;

coll_state& state_for(const coll_key& key) {
  if (coll_state* found = g_active.find(key)) return *found;
  coll_state* s;
  if (!g_spare.empty()) {
    s = g_spare.back();
    g_spare.pop_back();
  } else {
    g_states.push_back(std::make_unique<coll_state>());
    s = g_states.back().get();
  }
  s->key = key;
  g_active.insert(s);
  return *s;
}

void retire(coll_state& s) {
  g_active.erase(s.key);
  s.client = nullptr;
  s.tm = nullptr;
  s.step = 0;
  s.sent = false;
  s.begun = false;
  s.served = 0;
  s.aux_set = false;
  s.inbox.clear();
  s.arriving = nullptr;
  s.driving = false;
  s.arrived_while_driving = false;
  g_spare.push_back(&s);
}

unsigned ceil_log2(intrank_t n) {
  unsigned r = 0;
  while ((intrank_t{1} << r) < n) ++r;
  return r;
}

class machine {
 public:
  machine(const coll_key& key, coll_state& s) : key_(key), s_(s) {}

  // A block offered by team rank `peer` has been copied to its place (block_fetch, for a
  // block of another machine).
  void fetched(intrank_t peer) {
    ++s_.step;
    send(peer, a_read_done | static_cast<std::uint32_t>(s_.me), nullptr, 0);
  }

  // Moves the collective as far as the messages so far allow; true once it is complete.
  bool advance() {
    switch (s_.kind) {
      case coll_kind::barrier: return barrier();
      case coll_kind::broadcast: return broadcast();
      case coll_kind::reduce_one: return reduce_one();
      case coll_kind::reduce_all: return reduce_all();
      case coll_kind::gather: return reduce_one();
      case coll_kind::gather_all: return s_.client->block_bytes ? pairwise() : reduce_all();
      case coll_kind::scan: return scan();
      case coll_kind::alltoall: return alltoall();
    }
    return false;
  }

 private:
  bool has(std::uint32_t round) const {
    if (s_.arriving && s_.arriving_round == round) return true;
    for (const auto& m : s_.inbox)
      if (m.round == round) return true;
    return false;
  }
  msg_view take(std::uint32_t round) {
    if (s_.arriving && s_.arriving_round == round) {
      msg_view v{s_.arriving, s_.arriving_bytes};
      s_.arriving = nullptr;
      return v;
    }
    for (std::size_t i = 0; i < s_.inbox.size(); ++i) {
      if (s_.inbox[i].round != round) continue;
      s_.taken = std::move(s_.inbox[i].bytes);
      s_.inbox.erase(s_.inbox.begin() + static_cast<std::ptrdiff_t>(i));
      return msg_view{s_.taken.data(), s_.taken.size()};
    }
    util::fatal("collective: round %u consumed before it arrived", round);
  }
  void send(intrank_t team_rank, std::uint32_t round, const upcxx::detail::coll_bytes& bytes) {
    send(team_rank, round, bytes.data(), bytes.size());
  }
  void send(intrank_t team_rank, std::uint32_t round, const std::byte* data, std::size_t size) {
    const coll_head h{key_.team, key_.seq, round};
    const intrank_t to = (*s_.tm)[team_rank];
    if (sizeof h + size <= g_am_max) {
      runtime::rpc_flush_to(to);  // after what we batched for that rank
      // A send that waits for room polls: internal progress, where no RPC body may run.
      runtime::rpc_direct_scope internal_only(false);
      auto& tp = runtime::the_transport();
      // Untracked: a barrier need not wait for the acknowledgement of the last one's messages.
      auto st = tp.am_send(to, am_coll, std::as_bytes(std::span(&h, 1)), std::span<const std::byte>(data, size),
                           transport::op_untracked);
      if (st != transport::status::ok) util::fatal("sending a collective's message to rank %d failed", to);
      return;
    }
    // Larger than one message: a runtime message, which leaves at once after the target's
    // batch (records over the batch limit travel alone).
    runtime::internal_send(to, runtime::internal_id::coll, &h, sizeof h, data, size);
  }
  // Folds a message into this rank's data: the client's operation, or for the gathers the
  // concatenation (`in_from_lower`: the message's ranks come first).
  void combine(msg_view in, bool in_from_lower) {
    auto& d = s_.client->data;
    if (s_.kind != coll_kind::gather && s_.kind != coll_kind::gather_all) {
      s_.client->combine(d, in.data, in.size, in_from_lower);
    } else if (!in_from_lower) {
      d.append(in.data, in.size);
    } else {
      const std::size_t mine = d.size();
      d.resize(in.size + mine);
      std::memmove(d.data() + in.size, d.data(), mine);
      std::memcpy(d.data(), in.data, in.size);
    }
  }
  void adopt(msg_view in) { s_.client->data.assign(in.data, in.size); }
  intrank_t relative() const { return (s_.me - s_.root + s_.n) % s_.n; }
  intrank_t absolute(intrank_t rel) const { return (rel + s_.root) % s_.n; }

  bool barrier() {
    static const upcxx::detail::coll_bytes nothing;
    const unsigned rounds = ceil_log2(s_.n);
    while (s_.step < rounds) {
      if (!s_.sent) {
        s_.sent = true;
        send((s_.me + (intrank_t{1} << s_.step)) % s_.n, s_.step, nothing);
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
      adopt(take(0));
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
          s_.sent = true;
          send(me + 1, 0, s_.client->data);
        }
        if (!has(round_result)) return false;
        adopt(take(round_result));
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
        s_.sent = true;
        send(partner, s_.step, s_.client->data);
      }
      if (!has(s_.step)) return false;
      combine(take(s_.step), partner_new < mine);
      ++s_.step;
      s_.sent = false;
    }
    if (folded) send(me - 1, round_result, s_.client->data);
    return true;
  }

  bool scan() {
    auto& c = *s_.client;
    const unsigned rounds = ceil_log2(s_.n);
    while (s_.step < rounds) {
      const intrank_t d = intrank_t{1} << s_.step;
      if (!s_.sent) {
        s_.sent = true;
        if (s_.me + d < s_.n) send(s_.me + d, s_.step, c.data);
      }
      if (s_.me >= d) {
        if (!has(s_.step)) return false;
        const msg_view in = take(s_.step);
        if (c.scan_exclusive) {
          if (s_.aux_set) c.combine(s_.aux, in.data, in.size, true);
          else s_.aux.assign(in.data, in.size);
          s_.aux_set = true;
        }
        c.combine(c.data, in.data, in.size, true);
      }
      ++s_.step;
      s_.sent = false;
    }
    if (c.scan_exclusive) {
      c.has_result = s_.aux_set;
      if (s_.aux_set) std::swap(c.data, s_.aux);  // the state keeps the other's capacity
    }
    return true;
  }

  bool alltoall() {
    auto& c = *s_.client;
    if (c.block_bytes && c.block_bytes <= upcxx::detail::alltoall_bruck_max_block) return bruck();
    return pairwise();
  }

  // Whether the block for team rank `peer` is offered for it to read rather than sent: large,
  // and the peer on this machine (it copies) or able to read our segment (RMA get).
  bool direct(intrank_t peer, std::size_t bytes) const {
    return bytes > direct_min_block &&
           (runtime::coll_scratch((*s_.tm)[peer]) != nullptr || runtime::the_transport().caps().rma);
  }

  static std::uint64_t in_my_segment(const void* p, std::size_t bytes) {
    auto& tp = runtime::the_transport();
    const auto seg = tp.segment(tp.rank_me());
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a >= seg.base && a + bytes <= seg.base + seg.size ? a : 0;
  }
  void* peer_address(intrank_t peer, std::uint64_t owner_addr) const {
    return runtime::the_transport().local_address((*s_.tm)[peer], static_cast<std::uintptr_t>(owner_addr));
  }

  // Pairwise exchange. Small blocks, and blocks for other machines, leave at once in
  // messages (round = the sender's team rank). A large block for a rank of this machine is
  // copied once, by its receiver, straight from the sender's buffer when that lies in the
  // sender's shared segment (else from a copy staged there: two copies in all): the sender
  // says a_read_here with the address, the receiver copies and says a_read_done. Every
  // block leaves (or is offered) before this rank copies its own, so that the peers start
  // at once. s_.step counts the blocks received, s_.served the blocks sent or read.
  bool pairwise() {
    auto& c = *s_.client;
    const intrank_t n = s_.n, me = s_.me;
    if (!s_.begun) {
      s_.begun = true;
      for (intrank_t k = 1; k < n; ++k) {
        const intrank_t to = (me + k) % n;
        const auto b = c.block_to(to);
        if (direct(to, b.size)) {
          std::uint64_t at = in_my_segment(b.data, b.size);
          std::uint32_t how = a_read_here;
          const bool same_machine = runtime::coll_scratch((*s_.tm)[to]) != nullptr;
          if (!at && !same_machine && (at = expose(b))) how |= a_exposed;
          if (!at) at = stage(b);
          if (at) {
            const address here{at, b.size};
            send(to, how | static_cast<std::uint32_t>(me), reinterpret_cast<const std::byte*>(&here), sizeof here);
            continue;
          }
        }
        send(to, static_cast<std::uint32_t>(me), b.data, b.size);  // or no room to stage it
        ++s_.served;
      }
      const auto own = c.block_to(me);
      c.place(me, own.data, own.size);
    }
    // Messages arrive in any order; each block is placed as it comes, in place when it can be.
    if (s_.arriving) {
      const msg_view m{s_.arriving, s_.arriving_bytes};
      s_.arriving = nullptr;
      pairwise_message(s_.arriving_round, m);
    }
    for (std::size_t i = 0; i < s_.inbox.size(); ++i) {
      auto& m = s_.inbox[i];
      pairwise_message(m.round, msg_view{m.bytes.data(), m.bytes.size()});
    }
    s_.inbox.clear();
    if (s_.step != static_cast<unsigned>(n - 1) || s_.served != static_cast<unsigned>(n - 1)) return false;
    for (void* p : s_.staged) upcxx::detail::heap_deallocate(p);  // every reader is done
    s_.staged.clear();
    if (s_.exposed) runtime::the_transport().unexpose(s_.exposed);
    s_.exposed = nullptr;
    return true;
  }

  void pairwise_message(std::uint32_t round, msg_view m) {
    auto& c = *s_.client;
    const auto peer = static_cast<intrank_t>(round & ~a_flags);
    if (round & a_read_here) {
      address a;
      std::memcpy(&a, m.data, sizeof a);
      if (round & a_exposed) {
        fetch(peer, a, true);
      } else if (const void* at = peer_address(peer, a.owner_addr)) {
        c.place(peer, static_cast<const std::byte*>(at), a.size);
        fetched(peer);
      } else {
        fetch(peer, a);
      }
    } else if (round & a_read_done) {
      ++s_.served;
    } else {
      c.place(peer, m.data, m.size);
      ++s_.step;
    }
  }

  // Reads a block offered by a rank of another machine straight into its place (from its
  // segment, or from its exposed private memory).
  void fetch(intrank_t peer, const address& a, bool exposed = false);

  // Our private block b exposed for ranks of other machines to read in place (no copy), or
  // 0 when the transport cannot (or another block of this collective is exposed already).
  std::uint64_t expose(upcxx::detail::coll_block b) {
    if (s_.exposed) return s_.exposed == b.data && s_.exposed_bytes == b.size ? s_.exposed_token : 0;
    const std::uint64_t token = runtime::the_transport().expose(b.data, b.size);
    if (token) {
      s_.exposed = b.data;
      s_.exposed_bytes = b.size;
      s_.exposed_token = token;
    }
    return token;
  }

  // A copy of block b in our segment for a peer to read, or 0 when the heap has no room. A
  // gather_all sends one block to every peer: it is staged once.
  std::uint64_t stage(upcxx::detail::coll_block b) {
    if (!s_.staged.empty() && s_.staged_from == b.data && s_.staged_bytes == b.size)
      return reinterpret_cast<std::uintptr_t>(s_.staged.back());
    void* buf = upcxx::detail::heap_allocate(b.size, 64);
    if (!buf) return 0;
    std::memcpy(buf, b.data, b.size);
    s_.staged.push_back(buf);
    s_.staged_from = b.data;
    s_.staged_bytes = b.size;
    return reinterpret_cast<std::uintptr_t>(buf);
  }

  // Bruck's algorithm on blocks of b bytes: after the local rotation, block i is bound for
  // rank me+i; round k moves every block whose index has bit k set 2^k ranks on, so after
  // ceil(log2 n) rounds block i holds what rank me-i sent us.
  bool bruck() {
    auto& c = *s_.client;
    const intrank_t n = s_.n, me = s_.me;
    const std::size_t b = c.block_bytes;
    auto& d = c.data;
    if (!s_.begun) {
      s_.begun = true;
      d.resize(static_cast<std::size_t>(n) * b);
      for (intrank_t i = 0; i < n; ++i) {
        const auto blk = c.block_to((me + i) % n);
        if (blk.size != b) util::fatal("alltoall: a block of %zu bytes where every block has %zu", blk.size, b);
        std::memcpy(d.data() + static_cast<std::size_t>(i) * b, blk.data, b);
      }
    }
    const unsigned rounds = ceil_log2(n);
    while (s_.step < rounds) {
      const intrank_t bit = intrank_t{1} << s_.step;
      if (!s_.sent) {
        s_.sent = true;
        s_.packed.resize(0);
        for (intrank_t i = bit; i < n; ++i)
          if (i & bit) s_.packed.append(d.data() + static_cast<std::size_t>(i) * b, b);
        send((me + bit) % n, s_.step, s_.packed);
      }
      if (!has(s_.step)) return false;
      const msg_view in = take(s_.step);
      std::size_t expected = 0;
      for (intrank_t i = bit; i < n; ++i) expected += (i & bit) ? b : 0;
      if (in.size != expected)
        util::fatal("alltoall: a message of %zu bytes where %zu were expected: the ranks' counts differ", in.size,
                    expected);
      std::size_t at = 0;
      for (intrank_t i = bit; i < n; ++i) {
        if (!(i & bit)) continue;
        std::memcpy(d.data() + static_cast<std::size_t>(i) * b, in.data + at, b);
        at += b;
      }
      ++s_.step;
      s_.sent = false;
    }
    for (intrank_t i = 0; i < n; ++i) c.place((me - i + n) % n, d.data() + static_cast<std::size_t>(i) * b, b);
    return true;
  }

  coll_key key_;
  coll_state& s_;
};

// A block of another machine's rank read by RMA get into the receiver's buffer; on
// completion (inside poll) it is counted and acknowledged, and the collective driven on.
class block_fetch final : public transport::completion_sink, public upcxx::detail::pooled {
 public:
  block_fetch(const coll_key& key, intrank_t peer) : key_(key), peer_(peer) {}
  void complete(transport::cx_bits which) override {
    if (!(which & transport::cx_remote)) return;
    const coll_key key = key_;
    const intrank_t peer = peer_;
    delete this;
    landed(key, peer);
  }
  static void landed(const coll_key& key, intrank_t peer);

 private:
  coll_key key_;
  intrank_t peer_;
};

void machine::fetch(intrank_t peer, const address& a, bool exposed) {
  const auto d = s_.client->dest_from(peer);
  if (d.size != a.size) s_.client->place(peer, nullptr, a.size);  // reports the sizes
  auto* f = new block_fetch(key_, peer);
  auto& tp = runtime::the_transport();
  auto r = exposed ? tp.get_exposed((*s_.tm)[peer], a.owner_addr, d.data, a.size, f)
                   : tp.get((*s_.tm)[peer], static_cast<std::uintptr_t>(a.owner_addr), d.data, a.size, f,
                            transport::op_none);
  if (r.st != transport::status::ok) util::fatal("collective: reading a block from rank %d failed", (*s_.tm)[peer]);
  if (r.done & transport::cx_remote) {  // complete() will not run
    delete f;
    fetched(peer);
  }
}

bool drive(const coll_key& key, coll_state& s);

void block_fetch::landed(const coll_key& key, intrank_t peer) {
  runtime::runtime_handler_scope in_handler;  // what we send from here must not poll
  coll_state* s = g_active.find(key);
  if (!s) util::fatal("collective: a block landed for a collective that is not in flight");
  machine(key, *s).fetched(peer);
  if (s->driving) s->arrived_while_driving = true;  // the drive() below us looks again
  else drive(key, *s);
}

// Runs the collective as far as it goes; completes it (outside the table) when it is done.
// Returns whether it completed (the state is then recycled).
bool drive(const coll_key& key, coll_state& s) {
  if (s.driving) {
    s.arrived_while_driving = true;  // the drive() below us on the stack looks again
    return false;
  }
  s.driving = true;
  bool done;
  do {
    s.arrived_while_driving = false;
    done = machine(key, s).advance();
  } while (!done && s.arrived_while_driving);
  s.driving = false;
  if (!done) return false;
  coll_client* client = s.client;
  if (!s.inbox.empty() || s.arriving)
    util::fatal("collective on team %llx: unexpected messages", static_cast<unsigned long long>(key.team));
  // Calls sent to us before the others arrived run before this completion is seen
  // (runtime.hpp, barriers deliver; progress drains them before any callback).
  if (s.kind == coll_kind::barrier) runtime::barrier_completed(/*through_queue=*/s.n > 1);
  retire(s);
  finish_client(client);
  return true;
}

void deliver(const coll_head& h, const std::byte* body, std::size_t bytes) {
  const coll_key key{h.team, h.seq};
  auto& s = state_for(key);
  if (s.client && !s.driving) {
    // Started here: offer the message in place; keep it only if this step does not want it.
    s.arriving = body;
    s.arriving_bytes = bytes;
    s.arriving_round = h.round;
    if (drive(key, s) || !s.arriving) return;
    s.arriving = nullptr;
  }
  s.inbox.emplace_back();
  s.inbox.back().round = h.round;
  s.inbox.back().bytes.assign(body, bytes);
  if (s.driving) s.arrived_while_driving = true;
}

void on_coll(int, const std::byte* payload, std::size_t bytes) {
  coll_head h;
  std::memcpy(&h, payload, sizeof h);
  const std::size_t at = runtime::internal_body_offset(sizeof h);
  deliver(h, payload + at, bytes - at);
}

void on_coll_am(const transport::am_message& m) {
  runtime::runtime_handler_scope in_handler;  // what we send from here must not poll
  coll_head h;
  std::memcpy(&h, m.header.data(), sizeof h);
  deliver(h, m.payload.data(), m.payload.size());
}

// ---- world collectives through the transport's barrier ----
// When every rank of world is load/store addressable (one machine), barrier_async, and a
// reduce_all, gather_all or alltoall of a few scalars on world ride the transport's own
// barrier (runtime.hpp, world_barrier_*): each rank publishes its contribution in its
// scratch slot just before it arrives, and once the barrier completes every rank reads all
// slots and combines them in rank order (so every rank computes the same value). One round instead of log2(n), and with
// more ranks than cores, the transport's CPU-aware wait instead of a context switch per round.
// A slot is written again two such collectives later, which arrive only after the one in
// between completed, and every rank reads its slots before arriving there.
constexpr std::size_t slot_bytes = runtime::coll_scratch_bytes / 2;
constexpr std::size_t slot_payload = slot_bytes - sizeof(std::uint64_t);

struct shm_op : upcxx::detail::pooled {
  coll_client* client;
  intrank_t n;
  unsigned slot;
};
unsigned g_shm_slot = 0;
int g_world_local = -1;  // whether every rank of world is addressable here (computed once)

bool world_is_local() {
  if (g_world_local < 0) {
    g_world_local = 1;
    for (intrank_t r = 0; r < upcxx::detail::g_state.rank_n && g_world_local; ++r)
      if (!runtime::coll_scratch(r)) g_world_local = 0;
  }
  return g_world_local == 1;
}

std::byte* slot_of(intrank_t rank, unsigned slot) { return runtime::coll_scratch(rank) + slot * slot_bytes; }

void shm_arrive(void* ctx) {
  auto* op = static_cast<shm_op*>(ctx);
  std::byte* mine = slot_of(upcxx::detail::g_state.rank_me, op->slot);
  const std::uint64_t n = op->client->data.size();
  std::memcpy(mine, &n, sizeof n);
  if (n) std::memcpy(mine + sizeof n, op->client->data.data(), n);
}

void shm_reduce_done(void* ctx) {
  auto* op = static_cast<shm_op*>(ctx);
  coll_client* c = op->client;
  for (intrank_t r = 0; r < op->n; ++r) {
    const std::byte* slot = slot_of(r, op->slot);
    std::uint64_t n;
    std::memcpy(&n, slot, sizeof n);
    if (r == 0) c->data.assign(slot + sizeof n, n);
    else c->combine(c->data, slot + sizeof n, n, false);
  }
  delete op;
  finish_client(c);
}

// The gannet collectives on the world barrier: every rank's slot holds its contribution
// (alltoall: its n blocks in rank order), all of one size.
msg_view slot_view(intrank_t rank, unsigned slot) {
  const std::byte* p = slot_of(rank, slot);
  std::uint64_t n;
  std::memcpy(&n, p, sizeof n);
  return {p + sizeof n, static_cast<std::size_t>(n)};
}

void shm_gather_all_done(void* ctx) {
  auto* op = static_cast<shm_op*>(ctx);
  coll_client* c = op->client;
  c->data.resize(0);
  for (intrank_t r = 0; r < op->n; ++r) {
    const msg_view v = slot_view(r, op->slot);
    c->data.append(v.data, v.size);
  }
  delete op;
  finish_client(c);
}

void shm_alltoall_done(void* ctx) {
  auto* op = static_cast<shm_op*>(ctx);
  coll_client* c = op->client;
  const intrank_t me = upcxx::detail::g_state.rank_me;
  const std::size_t b = c->block_bytes;
  for (intrank_t r = 0; r < op->n; ++r) c->place(r, slot_view(r, op->slot).data + static_cast<std::size_t>(me) * b, b);
  delete op;
  finish_client(c);
}

void shm_barrier_done(void* ctx) {
  runtime::barrier_completed();  // as drive() does
  auto* op = static_cast<shm_op*>(ctx);
  coll_client* c = op->client;
  delete op;
  finish_client(c);
}

// Every rank reads every rank's slot after the barrier: O(P) reads (and, the first time, a
// page fault per peer) per rank, P^2 for the job. Beyond this size the message path's
// O(log P) rounds win even oversubscribed (1024 ranks on 2 cores: 2 million page faults).
constexpr intrank_t shm_reduce_max_ranks = 64;

// Starts `kind` through the world barrier when it can; returns whether it did.
// Only when ranks outnumber cores (the transport's job-wide answer: every rank must take the
// same path): there every round costs a context switch and one round with
// the CPU-aware wait wins (4 ranks on 2 cores: reduce_all 5.3 -> 3.0 us); with a core per
// rank the message path is faster (2 ranks: 154 ns against 420). 4 ranks on 2 cores,
// gather_all and alltoall of one int64_t: 3.0 -> 2.3 us; scan and gather stay on messages,
// where a rank waits for fewer than all (0.15-0.25 us against 2.2).
bool start_on_world_barrier(const upcxx::team& t, coll_kind kind, coll_client* client) {
  if (client->internal) return false;  // the library's own: messages (finalize's barrier must be one)
  if (!upcxx::detail::team_is_world(t) || !runtime::the_transport().ranks_outnumber_cores() || !world_is_local()) return false;
  if (kind == coll_kind::barrier) {
    runtime::world_barrier_enqueue({nullptr, shm_barrier_done, new shm_op{{}, client, t.rank_n(), 0}});
    runtime::world_barrier_poll();
    return true;
  }
  const intrank_t n = t.rank_n();
  if (n > shm_reduce_max_ranks) return false;
  void (*done)(void*) = nullptr;
  if (kind == coll_kind::alltoall) {
    // Bruck-sized blocks whose n fit one slot: the slot holds this rank's blocks in order.
    const std::size_t b = client->block_bytes;
    if (!b || b > upcxx::detail::alltoall_bruck_max_block || b * static_cast<std::size_t>(n) > slot_payload) return false;
    client->data.resize(0);
    for (intrank_t r = 0; r < n; ++r) {
      const auto blk = client->block_to(r);
      client->data.append(blk.data, blk.size);
    }
    done = shm_alltoall_done;
  } else if (kind == coll_kind::reduce_all || kind == coll_kind::gather_all) {
    if (!client->same_size_everywhere || client->data.size() > slot_payload || client->block_bytes) return false;
    done = kind == coll_kind::reduce_all ? shm_reduce_done : shm_gather_all_done;
  } else {
    return false;  // scan and the rooted ones: a rank waits for fewer than all, which messages do better
  }
  auto* op = new shm_op{{}, client, n, g_shm_slot};
  g_shm_slot ^= 1;
  runtime::world_barrier_enqueue({shm_arrive, done, op});
  runtime::world_barrier_poll();
  return true;
}

}  // namespace

std::size_t collectives_pending(std::uint64_t team) {
  runtime::runtime_lock lock;
  std::size_t n = 0;
  g_active.for_each([&](const coll_state& s) { n += s.key.team == team; });
  return n;
}

void coll_attach() {
  runtime::internal_register(runtime::internal_id::coll, on_coll);
  auto& tp = runtime::the_transport();
  g_am_max = tp.caps().am_max_medium;
  tp.am_register(am_coll, on_coll_am);
}

}  // namespace gannet::coll

namespace upcxx::detail {

std::uint64_t team_next_collective(const team& t);  // team.cpp

std::size_t coll_direct_min_block() { return gannet::coll::direct_min_block; }

void fail_collective_restricted(const char* what) {
  gannet::util::fatal("%s initiated inside the restricted context: a callback that UPC++ progress is running (an RPC "
                      "body, a then() callback, an LPC or completion). Initiating a collective there is an error "
                      "since UPC++ 2022.9 (spec 10.2, spec issues 169 and 185; deprecated since 2020.10), whatever its "
                      "progress level; initiate it from outside progress, e.g. after wait() returns.",
                      what);
}

void coll_start(const team& t, coll_kind kind, intrank_t root, coll_client* client) {
  using namespace gannet::coll;
  if (gannet::observe::on() && kind != coll_kind::barrier && !client->internal) [[unlikely]] {  // barrier(): the core records it
    client->observed_t0 = gannet::observe::now();
    client->observed_kind = kind;
  }
  // Our calls are delivered before we arrive (runtime.hpp, barriers deliver), and memputs
  // are complete before any collective takes effect (gannet::overlap).
  if (kind == coll_kind::barrier) {
    gannet::runtime::deliver_before_barrier();
  } else if (gannet::runtime::sync_hooks_live()) {
    gannet::runtime::run_sync_point_hooks();
  }
  gannet::runtime::runtime_lock lock;
  const auto seq = static_cast<std::uint32_t>(team_next_collective(t));
  if (start_on_world_barrier(t, kind, client)) return;
  const coll_key key{team_id_of(t), seq};
  auto& s = state_for(key);
  s.client = client;
  s.tm = &t;
  s.kind = kind;
  s.root = root;
  s.n = t.rank_n();
  s.me = t.rank_me();
  drive(key, s);
}


}  // namespace upcxx::detail
