// The hang report (runtime.hpp, blocked_scope): when every rank of the job has waited inside a
// blocking Gannet call (barrier, wait(), a collective, finalize, ...) for GANNET_HANG_SECONDS
// (60; 0 turns it off) with nothing happening in its progress passes, rank 0 prints where each
// rank waits and ends the job. A slow job that still moves (any rank computing, any message
// arriving) is never ended.
//
// How: a rank that has waited H seconds with idle progress passes tells rank 0 where it waits
// ("suspect"), and tells it again when it stops waiting or something happens ("resumed").
// Rank 0 keeps one entry per rank, made when the first report arrives (a job that never
// hangs costs nothing at any rank but its own timer); when it is itself suspect and every
// other rank is, it reports. A report that reaches rank 0 counts as progress there, so rank 0
// decides at most H after the last rank's report: 2H at worst. The messages are the rpc
// room's runtime messages (rpc_internal.hpp), the same path under gannet-run and mpirun, and
// across machines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "rpc/rpc_internal.hpp"
#include "upcxx/persona.hpp"
#include "util/log.hpp"

namespace gannet::runtime {

bool g_hang_on = false;

namespace {

std::uint64_t g_hang_ns = 60ull * 1000000000ull;
int g_me = 0, g_n = 1;

struct report {
  std::int32_t suspect;  // 1: waits, 0: moved again
  char where[116];
};
static_assert(sizeof(report) == 120);

// This thread's outermost blocking call, and its quiet time.
struct blocked_state {
  const char* what = nullptr;
  long number = -1;
  const char* on = nullptr;
  int depth = 0;
  unsigned idle_passes = 0;
  std::uint64_t quiet_since = 0;  // 0: not measuring yet
  bool suspect = false;
  bool final = false;
};
thread_local blocked_state t_blocked;

// Rank 0: what every rank said last (made at the first report).
struct entry {
  bool suspect = false;
  std::string where;
};
std::vector<entry> g_table;
int g_suspects = 0;  // other ranks whose last word is "suspect"

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::string describe(const blocked_state& b) {
  std::string s = b.what;
  if (b.number >= 0) s += " #" + std::to_string(b.number);
  if (b.on) s += std::string(" on ") + b.on;
  return s;
}

// "0-3, 5, 7-8"
std::string ranges(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(ranks[i]);
    if (j > i) s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

void note(int rank, bool suspect, const char* where) {
  if (g_table.empty()) g_table.resize(static_cast<std::size_t>(g_n));
  entry& e = g_table[static_cast<std::size_t>(rank)];
  if (rank != 0 && e.suspect != suspect) g_suspects += suspect ? 1 : -1;
  e.suspect = suspect;
  if (suspect) e.where = where;
}

[[noreturn]] void report_and_end() {
  // Ranks grouped by where they wait, in rank order of each group's first member.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int r = 0; r < g_n; ++r) {
    const std::string& w = g_table[static_cast<std::size_t>(r)].where;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == w; });
    if (it == groups.end()) {
      groups.push_back({w, {r}});
    } else {
      it->second.push_back(r);
    }
  }
  std::string msg = "every rank has waited in Gannet for " + std::to_string(g_hang_ns / 1000000000ull) +
                    " s with nothing arriving: the job is stuck (GANNET_HANG_SECONDS; 0 turns this off). Where the "
                    "ranks wait:\n";
  std::size_t shown = 0;
  for (const auto& g : groups) {
    if (++shown > 16) {
      msg += "  ... and " + std::to_string(groups.size() - 16) + " more places\n";
      break;
    }
    msg += std::string("  rank") + (g.second.size() > 1 ? "s " : " ") + ranges(g.second) + ": " + g.first + "\n";
  }
  msg += "Ranks that wait in different collectives or barriers (one rank skipped a call the others made, or called "
         "them in another order), or a wait() for something no rank will send, stop a job this way.";
  util::fatal_quiet("%s", msg.c_str());
}

void maybe_report() {
  if (g_me != 0 || !t_blocked.suspect || g_suspects != g_n - 1) return;
  report_and_end();
}

void on_message(int source, const std::byte* payload, std::size_t bytes) {
  report rp;
  if (bytes < sizeof rp) util::fatal("corrupt hang report from rank %d", source);
  std::memcpy(&rp, payload, sizeof rp);
  rp.where[sizeof rp.where - 1] = '\0';
  note(source, rp.suspect != 0, rp.where);
  maybe_report();
}

void tell_rank0(bool suspect) {
  if (g_me == 0) {
    runtime_lock lock;  // the table is also written by the message handler
    note(0, suspect, describe(t_blocked).c_str());
    if (suspect) maybe_report();
    return;
  }
  report rp{};
  rp.suspect = suspect ? 1 : 0;
  std::snprintf(rp.where, sizeof rp.where, "%s", describe(t_blocked).c_str());
  runtime_lock lock;
  internal_send(0, internal_id::hang, &rp, sizeof rp);
  rpc_flush_to(0);
}

}  // namespace

void hang_attach(int me, int n) {
  g_me = me;
  g_n = n;
  double seconds = 60;
  if (const char* v = std::getenv("GANNET_HANG_SECONDS"); v && *v) {
    char* end = nullptr;
    seconds = std::strtod(v, &end);
    if (end == v || *end || seconds < 0)
      util::fatal("GANNET_HANG_SECONDS=%s: expected a number of seconds (0 turns the hang report off)", v);
  }
  g_hang_ns = static_cast<std::uint64_t>(seconds * 1e9);
  g_hang_on = seconds > 0 && n > 1;
  internal_register(internal_id::hang, on_message);
}

void hang_detach() {
  g_hang_on = false;
  g_table.clear();
  g_suspects = 0;
}

blocked_scope::blocked_scope(const char* what, long number, const char* on, bool final) {
  blocked_state& b = t_blocked;
  if (b.depth++ > 0 || !g_hang_on) return;  // the outermost call says where the rank waits
  if (!upcxx::master_persona().active_with_caller()) return;  // the rank is where its master thread is
  b.final = final;
  b.what = what;
  b.number = number;
  b.on = on;
  b.idle_passes = 0;
  b.quiet_since = 0;
  b.suspect = false;
}

blocked_scope::~blocked_scope() {
  blocked_state& b = t_blocked;
  if (--b.depth > 0) return;
  if (b.suspect && g_hang_on && !b.final) tell_rank0(false);
  b.suspect = false;
  b.what = nullptr;
}

void hang_tick_slow(bool did) {
  blocked_state& b = t_blocked;
  if (!b.what) return;  // not inside a blocking call this thread announced
  if (did) {
    b.idle_passes = 0;
    b.quiet_since = 0;
    if (b.suspect) {
      b.suspect = false;
      tell_rank0(false);
    }
    return;
  }
  if (++b.idle_passes % 64 != 0) return;  // the clock every 64 idle passes
  const std::uint64_t now = steady_ns();
  if (!b.quiet_since) {
    b.quiet_since = now;
    return;
  }
  if (!b.suspect && now - b.quiet_since >= g_hang_ns) {
    b.suspect = true;
    tell_rank0(true);
  } else if (b.suspect) {
    runtime_lock lock;
    maybe_report();
  }
}

}  // namespace gannet::runtime
