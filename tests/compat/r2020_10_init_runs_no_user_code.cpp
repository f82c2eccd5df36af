// upcxx::init() runs no user code. Programs set up what their RPC handlers use right after
// init() returns (the programmer's guide's 1-D Jacobi allocates its array there, and
// neighbours push ghost cells into it with rpc_ff at once), so a call that reaches a rank
// still inside init() must wait for that rank's first user-level progress after it. Here the
// odd ranks enter init() late; every rank floods every other one as soon as its own init()
// returns, with rpc_ff, rpc, and rput with remote_cx::as_rpc, and each handler checks that
// the state set right after init() is there.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "compat_check.hpp"

namespace {
int* g_cells = nullptr;  // allocated right after init(), as the Jacobi example does
int g_ranks = 0;         // stored right after init(), as a quiescence detector does
int g_early = 0;         // handlers that ran before the program was ready
int g_ff = 0, g_calls = 0, g_signals = 0;

void arrived(int& counter, int from) {
  if (g_cells == nullptr || g_ranks == 0) {
    ++g_early;
    return;
  }
  ++g_cells[from];
  ++counter;
}
}  // namespace

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  constexpr int rounds = 64;
  // Odd ranks arrive late; with a single rank there is nobody to race with.
  const char* r = std::getenv("GANNET_RANK");  // gannet-run; under mpirun, Open MPI's
  if (!r) r = std::getenv("OMPI_COMM_WORLD_RANK");
  if (r && std::atoi(r) % 2 == 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  g_cells = new int[n]();
  g_ranks = n;

  upcxx::global_ptr<int> box = upcxx::new_array<int>(n * rounds);
  upcxx::dist_object<upcxx::global_ptr<int>> boxes(box);
  std::vector<upcxx::global_ptr<int>> targets(n);
  // Sent before fetching anything: the first messages leave the moment init() returns.
  upcxx::future<> all = upcxx::make_future();
  for (int i = 0; i < rounds; ++i)
    for (int k = 1; k < n; ++k) {
      const int to = (me + k) % n;
      upcxx::rpc_ff(to, [](int from) { arrived(g_ff, from); }, me);
      all = upcxx::when_all(all, upcxx::rpc(to, [](int from) {
                                   arrived(g_calls, from);
                                   return from;
                                 },
                                 me).then([to = to](int from) { COMPAT_CHECK(from >= 0 && from != to); }));
    }
  for (int k = 1; k < n; ++k) targets[(me + k) % n] = boxes.fetch((me + k) % n).wait();
  for (int i = 0; i < rounds; ++i)
    for (int k = 1; k < n; ++k) {
      const int to = (me + k) % n;
      all = upcxx::when_all(all, upcxx::rput(i, targets[to] + me * rounds + i,
                                             upcxx::operation_cx::as_future() |
                                                 upcxx::remote_cx::as_rpc([](int from) { arrived(g_signals, from); }, me)));
    }
  all.wait();
  upcxx::barrier();  // every call above has run at its target (the barrier delivers them)

  COMPAT_CHECK(g_early == 0);
  COMPAT_CHECK(g_ff == rounds * (n - 1));
  COMPAT_CHECK(g_calls == rounds * (n - 1));
  COMPAT_CHECK(g_signals == rounds * (n - 1));
  for (int r = 0; r < n; ++r) COMPAT_CHECK(g_cells[r] == (r == me ? 0 : 3 * rounds));
  for (int r = 0; r < n; ++r)
    if (r != me)
      for (int i = 0; i < rounds; ++i) COMPAT_CHECK(box.local()[r * rounds + i] == i);
  upcxx::barrier();
  upcxx::delete_array(box);
  delete[] g_cells;
  if (me == 0) std::printf("r2020_10_init_runs_no_user_code: OK\n");
  upcxx::finalize();
}
