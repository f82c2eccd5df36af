// Token ring over rpc_ff, waited for with the commonest idiom of UPC++ programs:
//   while (!have_token) upcxx::progress();
// ns per hop at the job's rank count, against yield_handover (one context switch from one
// process to another on the same core, measured before init in the same run): with more
// ranks than cores the rank that holds the token can run only once a spinning rank has
// given up its core, so one handover per hop is the floor there (UPC++ 2020.10 takes about
// one per hop; a rank that spun through its time slice would take milliseconds).
// Run: gannet-run -n 4 gannet-bench-ring   (rank 0 prints; min and median of repeats)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

namespace {
int g_token = -1;  // the lap the token is on here, or -1
}

int main() {
  gb::stats handover{};
  const bool first = !std::getenv("GANNET_RANK") || std::atoi(std::getenv("GANNET_RANK")) == 0;
  if (first) {
    const gb::limits lim = gb::print_limits_header();
    (void)lim;
    handover = gb::yield_handover();
    gb::print_row("yield_handover", handover, "switch");
  }
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int next = (me + 1) % n;
  const int laps = n > 2 ? 500 : 20000, repeats = 9;
  std::vector<double> per_hop;
  for (int rep = 0; rep < repeats; ++rep) {
    upcxx::barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (int lap = 0; lap < laps; ++lap) {
      if (me == 0) upcxx::rpc_ff(next, [](int l) { g_token = l; }, lap);
      while (g_token != lap) upcxx::progress();
      g_token = -1;
      if (me != 0) upcxx::rpc_ff(next, [](int l) { g_token = l; }, lap);
    }
    const double ns = gb::detail::elapsed_ns(t0, std::chrono::steady_clock::now());
    per_hop.push_back(ns / (static_cast<double>(laps) * n));
  }
  upcxx::barrier();
  if (me == 0) {
    double lo = per_hop[0];
    for (double v : per_hop) lo = v < lo ? v : lo;
    gb::stats hop{lo, gb::detail::median_of(per_hop), repeats, static_cast<std::uint64_t>(laps) * n};
    const std::string name = "token_ring_hop_n" + std::to_string(n);
    gb::print_row(name, hop, "hop", "gannet");
    std::printf("ratio %s/yield_handover min=%.2f median=%.2f\n", name.c_str(), hop.min_ns / handover.min_ns,
                hop.median_ns / handover.median_ns);
  }
  upcxx::finalize();
}
