// Where the time of one RPC goes, from timestamps (steady_clock is the TSC here, one clock for
// every process of the machine), next to the floor measured between the same two ranks in
// the same run: a cache-line flag passed back and forth through their shared heaps with
// plain loads and stores, no library call in the loop.
//
//   rpc round trip, target polling progress():  initiation (rpc() returns), out (rpc() called
//     -> body runs at the target; a call that leaves at once may run before rpc() returns),
//     back (body -> the initiator's wait() returns), total;
//   the same with the target waiting in barrier();
//   one-way rpc_ff (a token passed between the two ranks: stamp before rpc_ff, stamp when the
//     body runs): the hop.
// Each figure is the minimum and median over many single operations (one sample each), so a
// preempted sample does not hide the typical cost. Ratios: to the flag round trip (rtt) or
// its half (half_rtt).
// Run: gannet-run -n 2 gannet-bench-rpc-latency
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct sampled {
  double min = 0, median = 0;
};
sampled summarize(const std::vector<double>& v) {
  return {*std::min_element(v.begin(), v.end()), gb::detail::median_of(v)};
}

void row(const char* name, sampled s, std::size_t n, double limit, const char* limit_name) {
  std::printf("gannet %s min_ns=%.1f median_ns=%.1f samples=%zu unit=op\n", name, s.min, s.median, n);
  std::printf("ratio %s/%s min=%.2f median=%.2f\n", name, limit_name, s.min / limit, s.median / limit);
}

// The token's arrival stamp and lap (rank 1's body writes them, rank 0 reads after the lap).
std::int64_t g_hop_recv = 0;
int g_lap = -1;
bool g_stop = false;

}  // namespace

int main() {
  const bool first = gb::is_first_rank();
  if (first) gb::print_limits_header();
  upcxx::init();
  const int me = upcxx::rank_me();
  if (upcxx::rank_n() != 2) {
    if (me == 0) std::fprintf(stderr, "rpc_latency: run on 2 ranks\n");
    upcxx::finalize();
    return 1;
  }
  const int peer = 1 - me;

  // ---- the floor: a flag passed between the two ranks through shared memory ----
  // Each rank owns one cache line in its heap; a rank writes the lap into the peer's line and
  // spins on its own. Same processes, same placement as the RPCs below.
  auto line = upcxx::new_array<std::atomic<std::int64_t>>(16);  // 128 B: its own cache lines
  line.local()->store(-1, std::memory_order_relaxed);
  upcxx::dist_object<upcxx::global_ptr<std::atomic<std::int64_t>>> lines(line);
  auto peer_line = lines.fetch(peer).wait();
  std::atomic<std::int64_t>* mine = line.local();
  std::atomic<std::int64_t>* theirs = peer_line.local();
  constexpr int laps = 20000;
  std::vector<double> flag_rtt;
  upcxx::barrier();
  for (int lap = 0; lap < laps; ++lap) {
    if (me == 0) {
      const std::int64_t t0 = now_ns();
      theirs->store(lap, std::memory_order_release);
      while (mine->load(std::memory_order_acquire) != lap) {
      }
      flag_rtt.push_back(double(now_ns() - t0));
    } else {
      while (mine->load(std::memory_order_acquire) != lap) {
      }
      theirs->store(lap, std::memory_order_release);
    }
  }
  upcxx::barrier();

  // ---- the clock itself ----
  std::vector<double> clock_cost;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t a = now_ns(), b = now_ns();
    clock_cost.push_back(double(b - a));
  }

  // ---- rpc round trip, target polling ----
  constexpr int trips = 20000;
  std::vector<double> init, out, back, total;
  auto round_trips = [&](bool target_in_barrier, std::vector<double>* tot, std::vector<double>* ini,
                         std::vector<double>* o, std::vector<double>* b) {
    upcxx::barrier();
    if (me == 0) {
      for (int i = 0; i < 200; ++i) upcxx::rpc(1, [] { return now_ns(); }).wait();  // warm
      for (int i = 0; i < trips; ++i) {
        const std::int64_t t0 = now_ns();
        upcxx::future<std::int64_t> f = upcxx::rpc(1, [] { return now_ns(); });
        const std::int64_t t1 = now_ns();
        const std::int64_t body = f.wait();
        const std::int64_t t3 = now_ns();
        tot->push_back(double(t3 - t0));
        if (ini) ini->push_back(double(t1 - t0));
        if (o) o->push_back(double(body - t0));
        if (b) b->push_back(double(t3 - body));
      }
      if (!target_in_barrier) upcxx::rpc_ff(1, [] { g_stop = true; });
    } else if (!target_in_barrier) {
      while (!g_stop) upcxx::progress();
      g_stop = false;
    }
    upcxx::barrier();  // with target_in_barrier, rank 1 waits here all along
  };
  round_trips(false, &total, &init, &out, &back);
  std::vector<double> total_barrier;
  round_trips(true, &total_barrier, nullptr, nullptr, nullptr);

  // ---- one-way rpc_ff: the token ring of two ----
  std::vector<double> hop;
  upcxx::barrier();
  for (int lap = 0; lap < laps; ++lap) {
    if (me == 0) {
      const std::int64_t t0 = now_ns();
      upcxx::rpc_ff(1, [](int l) { g_hop_recv = now_ns(); g_lap = l; }, lap);
      // The token comes back with rank 1's arrival stamp of this lap.
      while (g_lap != lap) upcxx::progress();
      hop.push_back(double(g_hop_recv - t0));
    } else {
      while (g_lap != lap) upcxx::progress();
      upcxx::rpc_ff(0, [](int l, std::int64_t recv) { g_hop_recv = recv; g_lap = l; }, lap, g_hop_recv);
    }
  }
  upcxx::barrier();

  if (me == 0) {
    const sampled rtt = summarize(flag_rtt);
    std::printf("limit flag_rtt_between_ranks min_ns=%.1f median_ns=%.1f samples=%zu unit=rtt\n", rtt.min, rtt.median,
                flag_rtt.size());
    const sampled clk = summarize(clock_cost);
    std::printf("limit steady_clock_now min_ns=%.1f median_ns=%.1f samples=%zu unit=call\n", clk.min, clk.median,
                clock_cost.size());
    row("rpc_roundtrip_polling", summarize(total), total.size(), rtt.min, "flag_rtt");
    row("rpc_roundtrip_polling.initiation", summarize(init), init.size(), rtt.min, "flag_rtt");
    row("rpc_roundtrip_polling.out", summarize(out), out.size(), rtt.min / 2, "flag_half_rtt");  // from rpc() called
    row("rpc_roundtrip_polling.back", summarize(back), back.size(), rtt.min / 2, "flag_half_rtt");
    row("rpc_roundtrip_barrier", summarize(total_barrier), total_barrier.size(), rtt.min, "flag_rtt");
    row("rpc_ff_hop", summarize(hop), hop.size(), rtt.min / 2, "flag_half_rtt");
  }
  upcxx::barrier();
  upcxx::delete_array(line);
  upcxx::finalize();
}
