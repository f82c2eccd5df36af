// RPC figures next to the limits measured in the same run:
//   round trip of rpc(peer, fn).wait() with no argument, 1 KiB and 64 KiB;
//   rpc_ff message rate, 1-to-1 and all-to-all, at 8 B and 1 KiB;
//   the same 1-to-1 rates through experimental::rpc_ff_immediate (UPC++ 2025.10) with the
//   usual retry loop, next to rpc_ff's, and how often it was refused;
//   barrier() latency.
// Run: gannet-run -n 2 gannet-bench-rpc   (rank 0 measures the 1-to-1 figures)
#include <array>
#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "limits.hpp"
#include "timed.hpp"

namespace gb = gannet::bench;

namespace {
bool g_stop = false;
long g_count = 0;
long g_refused = 0;

// Immediate mode as programs use it: retry after progress while the network is busy.
template <typename Fn, typename... Args>
void ff_immediate(int rank, Fn fn, const Args&... args) {
  for (;;) {
    try {
      upcxx::experimental::rpc_ff_immediate(rank, fn, args...);
      return;
    } catch (const upcxx::experimental::network_busy&) {
      ++g_refused;
      upcxx::progress();
    }
  }
}

}  // namespace

int main() {
  const gb::limits lim = gb::print_limits_on_first_rank();
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const double rtt = 2 * lim.pingpong_half_rtt.min_ns;
  auto row = [&](const char* name, gb::stats s, double limit, const char* limit_name) {
    if (me != 0) return;
    gb::print_row(name, s, "op", "gannet");
    std::printf("ratio %s/%s min=%.2f\n", name, limit_name, s.min_ns / limit);
  };

  // ---- round trips: rank 0 calls, the others serve ----
  auto serve_while = [&](auto&& measure) {
    upcxx::barrier();
    if (me == 0) {
      measure();
      for (int r = 1; r < n; ++r) upcxx::rpc_ff(r, [] { g_stop = true; });
    } else {
      while (!g_stop) upcxx::progress();
      g_stop = false;
    }
    upcxx::barrier();
  };
  gb::stats empty{}, kib{}, kib64{};
  std::array<char, 1024> one_k{};
  std::vector<char> sixty_four_k(64 * 1024, 'x');
  serve_while([&] {
    empty = gb::measure([&](std::uint64_t k) {
      for (std::uint64_t i = 0; i < k; ++i) upcxx::rpc(1, [] {}).wait();
      return k;
    });
    kib = gb::measure([&](std::uint64_t k) {
      for (std::uint64_t i = 0; i < k; ++i) upcxx::rpc(1, [](const std::array<char, 1024>& a) { return a[7]; }, one_k).wait();
      return k;
    });
    kib64 = gb::measure([&](std::uint64_t k) {
      for (std::uint64_t i = 0; i < k; ++i)
        upcxx::rpc(1, [](upcxx::view<char> v) { return v.size(); }, upcxx::make_view(sixty_four_k)).wait();
      return k;
    });
  });
  row("rpc_roundtrip_empty", empty, rtt, "pingpong_rtt");
  row("rpc_roundtrip_1k", kib, rtt, "pingpong_rtt");
  row("rpc_roundtrip_64k", kib64, rtt, "pingpong_rtt");

  // ---- rpc_ff rate 1-to-1: rank 0 sends, rank 1 counts and answers when all arrived ----
  auto one_to_one = [&](auto send_one, long iters) {
    return gb::timed(7, iters, [&](long k) {
      if (me == 0) {
        for (long i = 0; i < k; ++i) send_one();
        upcxx::rpc(1, [k] {
          while (g_count < k) upcxx::progress();  // serve the tail, then answer
          g_count = 0;
        }).wait();
      } else if (me == 1) {
        while (!g_stop) upcxx::progress();
        g_stop = false;
      }
      if (me == 0) upcxx::rpc_ff(1, [] { g_stop = true; });
      upcxx::barrier();
    });
  };
  long value = 0;
  auto ff8 = one_to_one([&] { upcxx::rpc_ff(1, [](long) { ++g_count; }, value); }, 1000000);
  auto ff1k = one_to_one([&] { upcxx::rpc_ff(1, [](const std::array<char, 1024>&) { ++g_count; }, one_k); }, 200000);
  g_refused = 0;
  auto ffi8 = one_to_one([&] { ff_immediate(1, [](long) { ++g_count; }, value); }, 1000000);
  const long refused8 = std::exchange(g_refused, 0);
  auto ffi1k = one_to_one([&] { ff_immediate(1, [](const std::array<char, 1024>&) { ++g_count; }, one_k); }, 200000);
  const long refused1k = std::exchange(g_refused, 0);
  row("rpc_ff_1to1_8b", ff8, 1, "ns");
  row("rpc_ff_1to1_1k", ff1k, 1, "ns");
  if (me == 0)
    std::printf("rate rpc_ff_1to1_8b=%.1f Mmsg/s rpc_ff_1to1_1k=%.1f Mmsg/s\n", 1e3 / ff8.min_ns, 1e3 / ff1k.min_ns);
  row("rpc_ff_immediate_1to1_8b", ffi8, ff8.min_ns, "rpc_ff_1to1_8b");
  row("rpc_ff_immediate_1to1_1k", ffi1k, ff1k.min_ns, "rpc_ff_1to1_1k");
  if (me == 0)
    std::printf("refused rpc_ff_immediate_1to1_8b=%ld of %d calls, rpc_ff_immediate_1to1_1k=%ld of %d calls\n",
                refused8, 7 * 1000000, refused1k, 7 * 200000);

  // ---- all-to-all: every rank sends to every other, then waits for all it should get ----
  auto all_to_all = [&](auto send_one, long per_peer) {
    return gb::timed(5, per_peer * (n - 1), [&](long total) {
      long per = total / (n - 1);
      for (long i = 0; i < per; ++i)
        for (int k = 1; k < n; ++k) send_one((me + k) % n);
      while (g_count < per * (n - 1)) upcxx::progress();
      upcxx::barrier();
      g_count = 0;
    });
  };
  auto a2a8 = all_to_all([&](int to) { upcxx::rpc_ff(to, [](long) { ++g_count; }, value); }, 200000);
  auto a2a1k = all_to_all([&](int to) { upcxx::rpc_ff(to, [](const std::array<char, 1024>&) { ++g_count; }, one_k); },
                          50000);
  row("rpc_ff_all2all_8b_per_rank", a2a8, 1, "ns");
  row("rpc_ff_all2all_1k_per_rank", a2a1k, 1, "ns");

  // ---- barrier ----
  auto bar = gb::timed(15, 20000, [](long k) {
    for (long i = 0; i < k; ++i) upcxx::barrier();
  });
  row("barrier", bar, rtt, "pingpong_rtt");

  upcxx::finalize();
  return 0;
}
