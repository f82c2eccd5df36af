#include "util/observe.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

#include "util/crash.hpp"
#include "util/log.hpp"
#include "util/traffic.hpp"

namespace gannet::observe {
namespace {

constexpr std::size_t k_kinds = static_cast<std::size_t>(kind::count_);
// Spans a thread keeps before it writes them out: 4096 of 56 bytes, 224 KiB per thread.
constexpr unsigned k_ring = 4096;

struct event {
  std::uint64_t t0, t1, bytes, flow;
  const char* name;  // a static string: valid until the process ends
  std::int32_t peer;
  std::int32_t tid;
  kind k;
  std::uint8_t flow_dir;  // 0 none, 1 the start of an arrow, 2 its end
};

struct ring {
  event ev[k_ring];
  unsigned n = 0;
  int tid = 0;
  // The last wait() of this thread, recorded later (wait_done): [wait_t0, wait_t1), 0: none.
  std::uint64_t wait_t0 = 0, wait_t1 = 0;
};

// The counts of spans: per thread, plain adds (summed at finalize; a relaxed atomic add per
// field would cost more than the rest of a span).
struct thread_counts {
  std::uint64_t count[k_kinds]{}, bytes[k_kinds]{}, ticks[k_kinds]{};
  std::uint64_t received = 0, received_bytes = 0;
};
struct stats {
  std::atomic<std::uint64_t> stalls{0}, heap_high{0}, heap_failed{0};
};

bool g_trace = false;
bool g_stats = false;
std::string g_trace_path, g_stats_path;
int g_rank = 0, g_ranks = 1;
std::int64_t g_offset = 0;
stats g_counts;

std::mutex g_mutex;  // the files, the rings' and the counts' lists
// While the program runs, full rings go to g_raw (binary, path + ".part": a few
// microseconds per 4096 spans); finish() turns it into the JSON file g_file.
std::FILE* g_raw = nullptr;
std::FILE* g_file = nullptr;
bool g_first_event = true;
// Every thread's ring and counts, which outlive their threads: the lists are never destroyed
// (a thread may record during static destruction), so they keep them reachable to the end.
std::vector<ring*>& g_rings = *new std::vector<ring*>;
std::vector<thread_counts*>& g_thread_counts = *new std::vector<thread_counts*>;  // under g_mutex
thread_local ring* t_ring = nullptr;
thread_local thread_counts* t_counts = nullptr;
// The arrows' counters: 2 per rank (sent, arrived), made when the first arrow is
// (tracing only), under a spin lock: sends and arrivals of several threads take it briefly.
std::vector<std::uint64_t> g_arrows;
std::atomic<bool> g_arrows_busy{false};
bool g_threaded = false;  // threadmode par: other threads may send and run calls

// ---- the clock: the time-stamp counter where it is invariant (x86-64: about 9 ns a read
// here, against 21 for clock_gettime), mapped onto CLOCK_MONOTONIC (the machine's one clock)
// by two readings of both, at start and when converting. -----------------------------------
bool g_tsc = false;
std::uint64_t g_tick0 = 0, g_ns0 = 0;
double g_ns_per_tick = 1.0;

std::uint64_t mono_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t ticks() {
#if defined(__x86_64__)
  if (g_tsc) return __builtin_ia32_rdtsc();
#endif
  return mono_ns();
}

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
  if (a < 0x80000007u) return false;
  __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
  return (d >> 8) & 1;  // invariant TSC: constant rate, counts in every state
#else
  return false;
#endif
}

void calibrate_start() {
  g_tsc = invariant_tsc() && !std::getenv("GANNET_TRACE_CLOCK_MONOTONIC");
  g_ns0 = mono_ns();
  g_tick0 = ticks();
  if (!g_tsc) return;
  // A first rate from 2 ms; convert() refines it over the whole run.
  const std::uint64_t until = g_ns0 + 2000000;
  std::uint64_t ns;
  while ((ns = mono_ns()) < until) {
  }
  g_ns_per_tick = static_cast<double>(ns - g_ns0) / static_cast<double>(ticks() - g_tick0);
}

void calibrate_now() {
  if (!g_tsc) return;
  const std::uint64_t ns = mono_ns(), t = ticks();
  if (t - g_tick0 > 100000000ull)  // beyond ~30 ms: better than the first 2 ms
    g_ns_per_tick = static_cast<double>(ns - g_ns0) / static_cast<double>(t - g_tick0);
}

double to_ns(std::uint64_t t) {
  return static_cast<double>(g_ns0) + static_cast<double>(static_cast<std::int64_t>(t - g_tick0)) * g_ns_per_tick;
}

const char* const k_names[k_kinds] = {
    "rput",    "rget",          "atomic",     "vis_put",    "vis_get",  "rpc",  "rpc_ff", "rpc body",
    "barrier", "collective",    "wait",       "notify_put", "notify",   "task_pool::run", "task", "overlap phase",
    "prefetch hit"};
const char* const k_categories[k_kinds] = {"rma",   "rma",    "rma",    "rma",   "rma",   "rpc",
                                           "rpc",   "rpc",    "sync",   "sync",  "sync",  "notify",
                                           "notify", "tasks", "tasks",  "overlap", "overlap"};

void write_event(const event& e, int tid) {
  // Chrome trace-event format: ts and dur in microseconds.
  const double ts = (to_ns(e.t0) + static_cast<double>(g_offset)) / 1000.0;
  const double dur = static_cast<double>(e.t1 >= e.t0 ? e.t1 - e.t0 : 0) * g_ns_per_tick / 1000.0;
  const char* name = e.name ? e.name : k_names[static_cast<int>(e.k)];
  const char* cat = k_categories[static_cast<int>(e.k)];
  // An RPC's arrow binds its send to the body it runs (flow events, version 2: "bind_id" on
  // the two slices, which Perfetto and chrome://tracing draw whatever the slices' lengths).
  char flow[64] = "";
  if (e.flow_dir)
    std::snprintf(flow, sizeof flow, ",\"bind_id\":%" PRIu64 ",\"%s\":true", e.flow,
                  e.flow_dir == 1 ? "flow_out" : "flow_in");
  std::fprintf(g_file,
               "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d%s,"
               "\"args\":{\"peer\":%d,\"bytes\":%" PRIu64 "}}",
               g_first_event ? "\n" : ",\n", name, cat, ts, dur, g_rank, tid, flow, e.peer, e.bytes);
  g_first_event = false;
}

// With g_mutex held.
void write_ring(ring& r) {
  if (g_raw && r.n) std::fwrite(r.ev, sizeof(event), r.n, g_raw);
  r.n = 0;
}

ring& my_ring() {
  if (!t_ring) [[unlikely]] {
    auto* r = new ring;
    std::lock_guard<std::mutex> lock(g_mutex);
    r->tid = static_cast<int>(std::min<std::size_t>(g_rings.size(), 65535));  // fits rma_op::observed_track
    g_rings.push_back(r);
    t_ring = r;
  }
  return *t_ring;
}

void add(kind k, std::uint64_t bytes, std::uint64_t dt);

// locked: g_mutex is held already.
void push(ring& r, const event& e, bool locked = false) {
  r.ev[r.n++] = e;
  if (r.n == k_ring) {
    if (locked) return write_ring(r);
    std::lock_guard<std::mutex> lock(g_mutex);
    write_ring(r);
  }
}

// A ring's pending wait() becomes a span (wait_done): by its thread, or at finalize.
void flush_wait(ring& r, bool locked = false) {
  add(kind::wait, 0, r.wait_t1 - r.wait_t0);
  const event e{r.wait_t0, r.wait_t1, 0, 0, nullptr, -1, r.tid, kind::wait, 0};
  r.wait_t0 = 0;
  push(r, e, locked);
}

void record(event e, int track = -1) {
  ring& r = my_ring();
  if (r.wait_t0) flush_wait(r);  // spans stay in the order they ended
  e.tid = track < 0 ? r.tid : track;
  push(r, e);
}

// With g_mutex held: the spans written so far become the JSON file.
void convert() {
  if (!g_file || !g_raw) return;
  calibrate_now();
  std::fflush(g_raw);
  std::rewind(g_raw);
  for (ring* r : g_rings)
    std::fprintf(g_file, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"thread %d\"}}",
                 g_rank, r->tid, r->tid);
  event chunk[256];
  std::size_t got;
  while ((got = std::fread(chunk, sizeof(event), 256, g_raw)) > 0)
    for (std::size_t i = 0; i < got; ++i) write_event(chunk[i], chunk[i].tid);
  std::fclose(g_raw);
  g_raw = nullptr;
  std::remove((g_trace_path + ".part").c_str());
  std::fprintf(g_file, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"rank\":%d,\"ranks\":%d}}\n", g_rank, g_ranks);
  if (std::fclose(g_file) != 0)
    util::warn("GANNET_TRACE: could not write %s: %s", g_trace_path.c_str(), std::strerror(errno));
  g_file = nullptr;
}

// A rank that crashes writes what its failing thread recorded, if no other thread holds the
// file (util/crash.hpp runs this from its signal handler).
void flush_on_crash() {
  if (!g_trace || !g_mutex.try_lock()) return;
  if (t_ring) write_ring(*t_ring);
  convert();
  g_mutex.unlock();
}

std::uint64_t arrow_id(int from, int to, std::uint64_t seq) {
  return (static_cast<std::uint64_t>(from) << 44) ^ (static_cast<std::uint64_t>(to) << 24) ^ seq;
}

std::uint64_t next_arrow(int peer, bool out) {
  const std::size_t key = 2 * static_cast<std::size_t>(peer) + (out ? 1 : 0);
  if (g_threaded)
    while (g_arrows_busy.exchange(true, std::memory_order_acquire)) {
    }
  if (g_arrows.empty()) g_arrows.resize(2 * static_cast<std::size_t>(g_ranks));
  const std::uint64_t seq = key < g_arrows.size() ? g_arrows[key]++ : 0;
  if (g_threaded) g_arrows_busy.store(false, std::memory_order_release);
  return seq;
}

thread_counts& my_counts() {
  if (!t_counts) [[unlikely]] {
    auto* c = new thread_counts;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_thread_counts.push_back(c);
    t_counts = c;
  }
  return *t_counts;
}

void add(kind k, std::uint64_t bytes, std::uint64_t dt) {
  const auto i = static_cast<std::size_t>(k);
  thread_counts& c = my_counts();
  ++c.count[i];
  c.bytes[i] += bytes;
  c.ticks[i] += dt;
}

void raise_max(std::atomic<std::uint64_t>& m, std::uint64_t v) {
  std::uint64_t cur = m.load(std::memory_order_relaxed);
  while (v > cur && !m.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

std::string env_or(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// ---- the statistics' report ----------------------------------------------------------

enum word : std::size_t {
  w_sent = 3 * k_kinds,
  w_sent_bytes,
  w_received,
  w_received_bytes,
  w_stalls,
  w_heap_high,
  w_heap_failed,
};

std::string human_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ull << 30));
  else if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ull << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  return buf;
}

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }

std::uint64_t ops_of(const std::uint64_t* w) {
  std::uint64_t ops = 0;
  for (kind k : {kind::rput, kind::rget, kind::atomic, kind::vis_put, kind::vis_get, kind::rpc, kind::rpc_ff,
                 kind::notify_put})
    ops += w[3 * static_cast<std::size_t>(k)];
  return ops;
}

std::uint64_t waited(const std::uint64_t* w, kind k) { return w[3 * static_cast<std::size_t>(k) + 2]; }

std::string summary_line(const char* who, const std::uint64_t* w) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: %" PRIu64 " communication ops; sent %" PRIu64 " messages (%s), received %" PRIu64
                " messages (%s); waiting %.2f ms in wait(), %.2f ms in barriers, %.2f ms in collectives; %" PRIu64
                " rpc stalls; heap peak %s",
                who, ops_of(w), w[w_sent], human_bytes(w[w_sent_bytes]).c_str(), w[w_received],
                human_bytes(w[w_received_bytes]).c_str(), ms(waited(w, kind::wait)), ms(waited(w, kind::barrier)),
                ms(waited(w, kind::collective)), w[w_stalls], human_bytes(w[w_heap_high]).c_str());
  return buf;
}

void report_stats(const std::uint64_t* all) {
  // Job-wide: sums, maxima for the heap.
  std::vector<std::uint64_t> job(stats_words, 0);
  for (int r = 0; r < g_ranks; ++r) {
    const std::uint64_t* w = all + static_cast<std::size_t>(r) * stats_words;
    for (std::size_t i = 0; i < stats_words; ++i)
      job[i] = (i == w_heap_high || i == w_heap_failed) ? std::max(job[i], w[i]) : job[i] + w[i];
  }
  std::FILE* f = std::fopen(g_stats_path.c_str(), "w");
  if (!f) util::warn("GANNET_STATS: could not write %s: %s", g_stats_path.c_str(), std::strerror(errno));
  // The terminal: the job in one line, then one line per rank (the first 16).
  std::fprintf(stderr, "gannet stats: %s\n", summary_line("job", job.data()).c_str());
  const int shown = g_ranks <= 16 ? g_ranks : 16;
  for (int r = 0; r < shown; ++r) {
    char who[32];
    std::snprintf(who, sizeof who, "rank %d", r);
    std::fprintf(stderr, "gannet stats: %s\n",
                 summary_line(who, all + static_cast<std::size_t>(r) * stats_words).c_str());
  }
  if (f) std::fprintf(stderr, "gannet stats: every rank's table in %s\n", g_stats_path.c_str());
  if (!f) return;
  std::fprintf(f, "# Gannet statistics, %d ranks (GANNET_STATS)\n", g_ranks);
  std::fprintf(f, "%-8s %-16s %12s %14s %12s\n", "rank", "operation", "count", "bytes", "time_ms");
  for (int r = -1; r < g_ranks; ++r) {
    const std::uint64_t* w = r < 0 ? job.data() : all + static_cast<std::size_t>(r) * stats_words;
    const std::string who = r < 0 ? "job" : std::to_string(r);
    for (std::size_t k = 0; k < k_kinds; ++k) {
      if (w[3 * k] == 0) continue;
      std::fprintf(f, "%-8s %-16s %12" PRIu64 " %14" PRIu64 " %12.3f\n", who.c_str(), k_names[k], w[3 * k], w[3 * k + 1],
                   ms(w[3 * k + 2]));
    }
  }
  std::fprintf(f, "\n%-8s %14s %14s %14s %14s %12s %12s %12s %14s %14s %14s\n", "rank", "messages_sent", "bytes_sent",
               "messages_recv", "bytes_recv", "wait_ms", "barrier_ms", "coll_ms", "rpc_stalls", "heap_peak_bytes",
               "failed_alloc_bytes");
  for (int r = -1; r < g_ranks; ++r) {
    const std::uint64_t* w = r < 0 ? job.data() : all + static_cast<std::size_t>(r) * stats_words;
    const std::string who = r < 0 ? "job" : std::to_string(r);
    std::fprintf(f,
                 "%-8s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %12.3f %12.3f %12.3f %14" PRIu64
                 " %14" PRIu64 " %14" PRIu64 "\n",
                 who.c_str(), w[w_sent], w[w_sent_bytes], w[w_received], w[w_received_bytes], ms(waited(w, kind::wait)),
                 ms(waited(w, kind::barrier)), ms(waited(w, kind::collective)), w[w_stalls], w[w_heap_high],
                 w[w_heap_failed]);
  }
  if (std::fclose(f) != 0) util::warn("GANNET_STATS: could not write %s", g_stats_path.c_str());
}

}  // namespace

const char* kind_name(kind k) { return k_names[static_cast<int>(k)]; }
bool tracing() { return g_trace; }
bool stats_on() { return g_stats; }

std::uint64_t now() { return ticks(); }

void pass_begins() {
  t_pass_stamp = t_last_pass_stamp = ticks();
  if (t_ring && t_ring->wait_t0) [[unlikely]] flush_wait(*t_ring);
}

void wait_done(std::uint64_t t0, std::uint64_t t1) {
  if (!g_trace) return add(kind::wait, 0, t1 - t0);
  ring& r = my_ring();
  if (r.wait_t0) flush_wait(r);
  r.wait_t0 = t0;
  r.wait_t1 = t1;
}
std::uint64_t now_ns() { return mono_ns(); }

void span(kind k, int peer, std::uint64_t bytes, std::uint64_t t0, std::uint64_t t1, const char* name, int track) {
  if (!t1) t1 = now();
  add(k, bytes, t1 - t0);
  if (g_trace) record(event{t0, t1, bytes, 0, name, peer, 0, k, 0}, track);
}

int track() { return g_trace ? my_ring().tid : 0; }

void rpc_sent(kind k, int target, std::uint64_t bytes, std::uint64_t t0, std::uint64_t t1) {
  add(k, bytes, t1 - t0);
  if (!g_trace) return;
  const std::uint64_t id = arrow_id(g_rank, target, next_arrow(target, true));
  record(event{t0, t1, bytes, id, nullptr, target, 0, k, 1});
}

void rpc_ran(int source, std::uint64_t bytes, std::uint64_t t0) {
  const std::uint64_t t1 = now();
  if (t_pass_stamp) t_pass_stamp = t_last_pass_stamp = t1;  // the next body in this pass starts here
  add(kind::rpc_body, bytes, t1 - t0);
  if (!g_trace) return;
  const std::uint64_t id = arrow_id(source, g_rank, next_arrow(source, false));
  record(event{t0, t1, bytes, id, nullptr, source, 0, kind::rpc_body, 2});
}

void count_stall() { g_counts.stalls.fetch_add(1, std::memory_order_relaxed); }
void heap_in_use(std::size_t bytes) { raise_max(g_counts.heap_high, bytes); }
void heap_failed(std::size_t bytes) { raise_max(g_counts.heap_failed, bytes); }
void received(std::size_t bytes) {
  thread_counts& c = my_counts();
  ++c.received;
  c.received_bytes += bytes;
}

void start(int rank, int ranks, bool threaded) {
  g_threaded = threaded;
  g_rank = rank;
  g_ranks = ranks;
  if (!g_tick0) calibrate_start();
  const std::string trace = env_or("GANNET_TRACE"), stats = env_or("GANNET_STATS");
  g_trace = !trace.empty() && trace != "0";
  g_stats = !stats.empty() && stats != "0";
  if (g_trace) {
    g_trace_path = trace + "." + std::to_string(rank) + ".json";
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_file) {
      g_file = std::fopen(g_trace_path.c_str(), "w");
      if (g_file) {
        g_raw = std::fopen((g_trace_path + ".part").c_str(), "w+b");
        if (!g_raw) {
          std::fclose(g_file);
          g_file = nullptr;
        }
      }
      if (!g_file) {
        util::warn("GANNET_TRACE: cannot write %s: %s; this rank records no trace", g_trace_path.c_str(),
                   std::strerror(errno));
        g_trace = false;
      } else {
        char host[256] = "?";
        ::gethostname(host, sizeof host - 1);
        std::fprintf(g_file,
                     "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank "
                     "%d (%s)\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}",
                     rank, rank, host, rank, rank);
        g_first_event = false;
        util::set_crash_flush(flush_on_crash);
      }
    }
  }
  if (g_stats) g_stats_path = (stats == "1" ? std::string("gannet-stats") : stats) + ".txt";
  upcxx::detail::g_state.observing.store(g_trace || g_stats, std::memory_order_relaxed);
}

void set_clock_offset(std::int64_t ns) { g_offset = ns; }

void stats_snapshot(std::uint64_t (&w)[stats_words]) {
  calibrate_now();
  {
    my_counts();  // made before the lock: flush_wait adds to this thread's counts
    std::lock_guard<std::mutex> lock(g_mutex);  // the waits not yet recorded count
    for (ring* r : g_rings)
      if (r->wait_t0) flush_wait(*r, true);
  }
  w[w_received] = w[w_received_bytes] = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const thread_counts* c : g_thread_counts) {
      w[w_received] += c->received;
      w[w_received_bytes] += c->received_bytes;
    }
  }
  for (std::size_t k = 0; k < k_kinds; ++k) {
    std::uint64_t count = 0, bytes = 0, dt = 0;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      for (const thread_counts* c : g_thread_counts) {
        count += c->count[k];
        bytes += c->bytes[k];
        dt += c->ticks[k];
      }
    }
    w[3 * k] = count;
    w[3 * k + 1] = bytes;
    w[3 * k + 2] = static_cast<std::uint64_t>(static_cast<double>(dt) * g_ns_per_tick);
  }
  w[w_sent] = util::g_traffic.messages.load(std::memory_order_relaxed);
  w[w_sent_bytes] = util::g_traffic.bytes.load(std::memory_order_relaxed);
  w[w_stalls] = g_counts.stalls.load(std::memory_order_relaxed);
  w[w_heap_high] = g_counts.heap_high.load(std::memory_order_relaxed);
  w[w_heap_failed] = g_counts.heap_failed.load(std::memory_order_relaxed);
  w[w_heap_failed + 1] = 0;
}

void finish(const std::uint64_t* all_ranks_stats) {
  upcxx::detail::g_state.observing.store(false, std::memory_order_relaxed);
  if (g_trace) {
    my_counts();  // made before the lock: flush_wait adds to this thread's counts
    std::lock_guard<std::mutex> lock(g_mutex);
    for (ring* r : g_rings) {
      if (r->wait_t0) flush_wait(*r, true);
      write_ring(*r);
    }
    convert();
    g_trace = false;
  }
  if (g_stats && all_ranks_stats) report_stats(all_ranks_stats);
  g_stats = false;
}

}  // namespace gannet::observe
