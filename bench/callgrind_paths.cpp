// Instructions per operation on the hot paths, counted by callgrind at one rank (deterministic:
// no waiting on another process): rput(...).wait(), rpc_ff send, rpc_ff dispatch, an idle
// progress() and an empty rpc round trip. Run by bench/callgrind.sh, with notified access linked or not (GANNET_LINK_NOTIFY=1).
#include <upcxx/upcxx.hpp>
#include <valgrind/callgrind.h>
#if GANNET_LINK_NOTIFY
#include <gannet/notify.hpp>
#endif
#include <cstdio>
int g_got = 0;
int main() {
  upcxx::init();
  constexpr int N = 20000;
  upcxx::global_ptr<long> mine = upcxx::new_<long>(0);
  for (int i = 0; i < 100; ++i) upcxx::rput(long(i), mine).wait();
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < N; ++i) upcxx::rput(long(i), mine).wait();
  CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("rput_wait");
  for (int r = 0; r < 5; ++r) {
    g_got = 0;
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < 200; ++i) upcxx::rpc_ff(0, [] { ++g_got; });
    CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("rpc_ff_send");
    CALLGRIND_TOGGLE_COLLECT;
    while (g_got < 200) upcxx::progress();
    CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("rpc_ff_dispatch");
  }
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < N; ++i) upcxx::progress();  // nothing to do: what every idle poll costs
  CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("progress_idle");
  for (int i = 0; i < 100; ++i) upcxx::rpc(0, [] {}).wait();
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < N / 10; ++i) upcxx::rpc(0, [] {}).wait();
  CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("rpc_roundtrip");
#if GANNET_LINK_NOTIFY
  if (upcxx::rank_n() > 1) gannet::notify(1, 7);  // links notified access (never runs at one rank)
#endif
  upcxx::delete_(mine);
  upcxx::finalize();
}
