// Misbehaving ranks for the launcher tests (tests/spmd/launcher_test.sh):
//   crash MODE [RANK [CODE]] — rank RANK misbehaves after init, the others wait in a barrier.
//   MODE: abort | segv | exit (with CODE) | nofinalize | hang (every rank sleeps) |
//         return-without-finalize (every rank) | return-early (RANK returns while rank 0
//         waits for its RPC reply) |
//         heap (print the shared heap size) | before-init (rank_me() before init) |
//         bad-rank (world()[rank_n()]) | inattentive (rank RANK computes 3 s without progress
//         while the others wait for its RPC reply) | rpc-after-finalize |
//         wait-in-rpc (an RPC body waits) | barrier-in-lpc (an LPC calls barrier()) |
//         dist-object-off-master (a thread without the master persona constructs one) |
//         empty-op-set, inactive-dist-object, inactive-atomic-domain, dist-object-assign-active
//         (UPC++ 2022.3/2023.3 misuse) | team-assign-active (every rank) |
//         coll-root-mismatch, coll-count-mismatch, alltoallv-mismatch (every rank: a
//         gannet collective whose ranks disagree on the root or the counts) |
//         throw-in-rpc | throw-in-then | throw-in-lpc (an exception leaves the callback) |
//         discharge-in-rpc (an RPC body calls discharge()) |
//         collective-in-then (a then() callback run by progress starts reduce_all) |
//         dist-object-in-rpc (an RPC body constructs a dist_object, a collective) |
//         task-spawn-bad-rank, task-spawn-negative-rank (gannet::task_pool::spawn to rank 7,
//         to rank -1) | task-run-reentrant (a task calls run() on its own pool; every rank
//         calls run()) | user-segv (RANK dereferences a null pointer inside
//         user_function_that_crashes) | user-throw (an exception leaves main on RANK) |
//         rput-before-init, rpc-before-init (every rank, no init()) | rput-after-finalize
//         (RANK writes to its own heap after finalize()) |
//         skip-barrier (RANK skips the second of two barriers the others call) |
//         slow-barriers (RANK computes 3 s, without progress, before each of two barriers) | ok
// Every rank first writes its pid to $CRASH_PID_DIR/pid.RANK when that is set.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gannet/collectives.hpp>
#include <gannet/notify.hpp>
#include <gannet/overlap.hpp>
#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

// Not inlined, so that the crash report's backtrace has the name to show; not checked by
// UBSan, whose report would come before the fault.
[[gnu::noinline]] __attribute__((no_sanitize_undefined)) void user_function_that_crashes(volatile int* p) { *p = 42; }

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ok";
  int victim = argc > 2 ? std::atoi(argv[2]) : 0;
  int code = argc > 3 ? std::atoi(argv[3]) : 1;
  if (mode == "before-init") {
    return upcxx::rank_me();
  }
  if (mode == "rput-before-init") {  // a program that forgot init()
    upcxx::global_ptr<int> nowhere;
    upcxx::rput(1, nowhere).wait();
    return 0;
  }
  if (mode == "rpc-before-init") {
    upcxx::rpc_ff(0, [] {});
    return 0;
  }
  upcxx::init();
  const int me = upcxx::rank_me();
  if (const char* dir = std::getenv("CRASH_PID_DIR")) {
    std::string path = std::string(dir) + "/pid." + std::to_string(me);
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
      std::fclose(f);
    }
  }
  upcxx::barrier();
  // A world task pool on every rank (a collective construction) for the task-* modes.
  std::optional<gannet::task_pool> pool;
  if (mode.rfind("task-", 0) == 0) pool.emplace();
  if (mode == "hang") {
    for (;;) ::pause();
  }
  if (mode == "return-without-finalize") {
    // Every rank, as real programs do: the job ends normally and the output is all there.
    upcxx::barrier();
    std::printf("rank %d returns without finalize", me);  // no newline, no flush: exit flushes
    return 0;
  }
  if (mode == "return-early") {
    // RANK returns at once while rank 0 waits for its reply: the job must end, naming it.
    if (me == victim) return 0;
    if (me == 0) upcxx::rpc(victim, [] { return 1; }).wait();
    upcxx::barrier();
    upcxx::finalize();
    return 0;
  }
  if (mode == "inattentive") {
    // The others send only once the victim has stopped making progress: until it leaves
    // the barrier it would still handle their RPCs (a barrier makes progress and drains).
    upcxx::dist_object<upcxx::global_ptr<int>> asleep(upcxx::new_<int>(0));
    std::vector<upcxx::global_ptr<int>> flags;
    if (me == victim)
      for (int r = 0; r < upcxx::rank_n(); ++r) flags.push_back(asleep.fetch(r).wait());
    upcxx::barrier();
    if (me == victim) {
      for (auto& f : flags) upcxx::rput(1, f).wait();
      ::sleep(3);  // no progress: the RPCs sent to us wait
    } else {
      while (__atomic_load_n(asleep->local(), __ATOMIC_ACQUIRE) == 0) upcxx::progress();
      upcxx::rpc(victim, [] { return 1; }).wait();
    }
    upcxx::barrier();
    upcxx::delete_(*asleep);
  } else if (mode == "coll-root-mismatch") {  // every rank: ranks name different roots
    int v = me, out[8] = {};
    gannet::gather(&v, out, 1, me % 2).wait();
  } else if (mode == "coll-count-mismatch") {  // every rank: ranks pass different counts
    int v[8] = {}, out[64] = {};
    gannet::gather_all(v, out, static_cast<std::size_t>(me + 1)).wait();
  } else if (mode == "alltoallv-mismatch") {  // every rank: rank 0 expects 2 from rank 1, which sends 1
    const int n = upcxx::rank_n();
    std::vector<std::size_t> sc(n, 1), rc(n, 1);
    if (me == 0) rc[1] = 2;
    std::vector<int> src(n), dst(n + 1);
    gannet::alltoallv(src.data(), sc.data(), dst.data(), rc.data()).wait();
  } else if (mode == "team-assign-active") {
    upcxx::team t = upcxx::world().split(0, 0);
    t = upcxx::world().split(0, 0);
  } else if (mode == "task-run-reentrant") {
    if (me == victim) pool->spawn(me, [](gannet::task_pool& p) { p.run(); });
    pool->run();
  } else if (mode == "memget-in-rpc") {  // off-node only: on this machine memget is a plain copy
    upcxx::global_ptr<int> x = upcxx::new_<int>(0);
    upcxx::global_ptr<int> other = upcxx::broadcast(x, victim).wait();
    if (me != victim)
      upcxx::rpc(me, [other] {
        int v;
        gannet::overlap::memget(&v, other, 1);
      }).wait();
    upcxx::barrier();
  } else if (mode == "heap") {
    std::printf("rank %d heap %zu\n", me, upcxx::shared_segment_size());
  } else if (mode == "skip-barrier") {
    upcxx::barrier();
    if (me != victim) upcxx::barrier();
  } else if (mode == "slow-barriers") {
    for (int i = 0; i < 2; ++i) {
      if (me == victim) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        while (std::chrono::steady_clock::now() < until) {
        }
      }
      upcxx::barrier();
    }
    if (me == 0) std::printf("slow-barriers done\n");
  } else if (me == victim) {
    if (mode == "user-segv") user_function_that_crashes(nullptr);
    if (mode == "user-throw") throw std::runtime_error("the user's own error");
    if (mode == "abort") std::abort();
    if (mode == "segv") ::raise(SIGSEGV);
    if (mode == "exit") std::exit(code);
    if (mode == "nofinalize") return 0;
    if (mode == "bad-rank") return upcxx::world()[upcxx::rank_n()];
    if (mode == "wait-in-rpc") {
      upcxx::rpc(me, [] { return upcxx::make_future(1).wait(); }).wait();  // ready: allowed
      upcxx::rpc(me, [] { upcxx::rpc(upcxx::rank_me(), [] {}).wait(); }).wait();
    }
    if (mode == "barrier-in-lpc") {
      upcxx::current_persona().lpc_ff([] { upcxx::barrier(); });
      upcxx::progress();
    }
    if (mode == "dist-object-off-master") std::thread([] { upcxx::dist_object<int> d(1); }).join();
    if (mode == "collective-off-master")
      std::thread([] { upcxx::reduce_all(1, upcxx::op_fast_add).wait(); }).join();
    if (mode == "split-in-lpc") {
      upcxx::current_persona().lpc_ff([] { upcxx::world().split(0, 0); });
      upcxx::progress();
    }
    if (mode == "throw-in-rpc") upcxx::rpc(me, [] { throw std::runtime_error("thrown by the RPC body"); }).wait();
    if (mode == "throw-in-then")
      upcxx::rpc(me, [] { return 1; }).then([](int) { throw std::runtime_error("thrown by the then callback"); }).wait();
    if (mode == "throw-in-lpc") {
      upcxx::current_persona().lpc_ff([] { throw 42; });
      upcxx::progress();
    }
    if (mode == "discharge-in-rpc") {
      upcxx::discharge();  // allowed outside progress
      upcxx::rpc(me, [] { upcxx::discharge(); }).wait();
    }
    if (mode == "collective-in-then") {
      upcxx::rpc(me, [] {}).then([] { (void)upcxx::reduce_all(1, upcxx::op_fast_add); }).wait();
    }
    if (mode == "dist-object-in-rpc") {
      upcxx::rpc(me, [] { upcxx::dist_object<int> d(1); }).wait();
    }
    if (mode == "atomic-op-not-in-set") {
      upcxx::atomic_domain<int> ad({upcxx::atomic_op::load});
      auto p = upcxx::new_<int>(0);
      ad.fetch_add(p, 1, std::memory_order_relaxed).wait();
    }
    if (mode == "notify-negative-tag") gannet::rput_notify(1, upcxx::new_<int>(0), -3).wait();
    if (mode == "notify-bad-source") gannet::notify_request(upcxx::rank_n(), 0);
    if (mode == "notify-bad-rank") gannet::notify(upcxx::rank_n() + 5, 0);
    if (mode == "task-spawn-bad-rank") pool->spawn(7, [](gannet::task_pool&) {});
    if (mode == "task-spawn-negative-rank") pool->spawn(-1, [](gannet::task_pool&) {});
    if (mode == "empty-op-set") upcxx::atomic_domain<int> ad(std::vector<upcxx::atomic_op>{});
    if (mode == "inactive-dist-object") upcxx::dist_object<int>(upcxx::inactive, 1).fetch(0).wait();
    if (mode == "inactive-atomic-domain") upcxx::atomic_domain<int>().load(upcxx::new_<int>(0), std::memory_order_relaxed);
    if (mode == "dist-object-assign-active") {
      upcxx::dist_object<int> a(1), b(2);
      a = std::move(b);
    }
  }
  upcxx::barrier();
  pool.reset();
  upcxx::global_ptr<int> kept = mode == "rput-after-finalize" ? upcxx::new_<int>(0) : nullptr;
  upcxx::finalize();
  if (mode == "rpc-after-finalize" && me == victim) upcxx::rpc_ff(0, [] {});
  if (mode == "rput-after-finalize" && me == victim) upcxx::rput(2, kept).wait();
  return 0;
}
