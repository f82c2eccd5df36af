// UPC++ 2025.10: immediate-mode RPC. experimental::rpc_immediate and rpc_ff_immediate send
// the call without waiting for network resources, or throw experimental::network_busy having
// done nothing; programs retry after progress, or fall back to the waiting rpc.
//
// Part 1: rank 0 floods the last rank (itself at one rank) while that rank makes no progress
// at all, until a call is refused; refused calls (small and large, with completions) must
// leave no trace. The sleeper is then woken through a one-sided put and must have received
// exactly the calls that were accepted. Part 2: everyday use with a retry loop, every
// overload, a large argument and result.
#include <upcxx/upcxx.hpp>

#include <sched.h>

#include <cstdint>
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "compat_check.hpp"

using upcxx::experimental::network_busy;
using upcxx::experimental::rpc_ff_immediate;
using upcxx::experimental::rpc_immediate;

static std::int64_t received = 0;

// The usual retry loop of programs that use immediate mode.
template <typename Fn, typename... Args>
void inject_ff(int rank, Fn&& fn, Args&&... args) {
  for (;;) {
    try {
      rpc_ff_immediate(rank, fn, args...);
      return;
    } catch (network_busy&) {
      upcxx::progress();
    }
  }
}
template <typename Cx, typename Fn, typename... Args>
auto inject(int rank, Cx&& cxs, Fn&& fn, Args&&... args) -> decltype(upcxx::rpc(rank, cxs, fn, args...)) {
  for (;;) {
    try {
      return rpc_immediate(rank, cxs, fn, args...);
    } catch (network_busy&) {
      upcxx::progress();
    }
  }
}

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int sleeper = n - 1;

  // ---- part 1: a target that makes no progress ----
  upcxx::dist_object<upcxx::global_ptr<std::int64_t>> flag(upcxx::new_<std::int64_t>(0));
  upcxx::global_ptr<std::int64_t> wake = flag.fetch(sleeper).wait();
  // The sleeper says when it has stopped making progress: until it leaves the barrier it
  // still handles what reaches it (a barrier makes progress), which would make room for
  // calls rank 0 expects to be refused.
  upcxx::dist_object<upcxx::global_ptr<std::int64_t>> asleep(upcxx::new_<std::int64_t>(0));
  upcxx::global_ptr<std::int64_t> asleep0 = asleep.fetch(0).wait();
  upcxx::barrier();
  if (me == sleeper) upcxx::rput(std::int64_t{1}, asleep0).wait();
  if (me == 0)
    while (__atomic_load_n(asleep->local(), __ATOMIC_ACQUIRE) == 0) upcxx::progress();
  if (me == 0) {
    std::int64_t sent = 0;
    std::string what;
    for (std::int64_t attempt = 0; what.empty(); ++attempt) {
      COMPAT_CHECK(attempt < 100000000);  // a target that never drains must fill up
      try {
        rpc_ff_immediate(sleeper, [](std::int64_t) { ++received; }, attempt);
        ++sent;
      } catch (const network_busy& e) {
        what = e.what();
      }
    }
    COMPAT_CHECK(what.find("rpc_ff_immediate") != std::string::npos);
    // Refused again, in every form, with nothing left behind: no promise dependency, no
    // future, no call delivered later.
    upcxx::promise<> p;
    bool busy = false;
    try {
      rpc_immediate(sleeper, upcxx::operation_cx::as_promise(p), [] { ++received; });
    } catch (const std::exception&) {  // network_busy is a std::exception
      busy = true;
    }
    COMPAT_CHECK(busy);
    COMPAT_CHECK(p.finalize().is_ready());
    busy = false;
    std::vector<char> big(256 * 1024, 'x');  // above the inline size: through the shared heap
    try {
      rpc_ff_immediate(sleeper, [](const std::vector<char>& v) { received += 1000000 + v.size(); }, big);
    } catch (network_busy&) {
      busy = true;
    }
    COMPAT_CHECK(busy);
    busy = false;
    try {
      upcxx::future<std::int64_t> f = rpc_immediate(upcxx::world(), sleeper, [] { return ++received; });
      (void)f;
    } catch (network_busy&) {
      busy = true;
    }
    COMPAT_CHECK(busy);
    // Wake the sleeper with the count it must see (a put needs no progress at its target).
    upcxx::rput(sent + 1, wake).wait();
    // Calls from one rank run in order: once this one has run, every accepted one has.
    upcxx::rpc(sleeper, [] {}).wait();
    std::cout << "rank 0: " << sent << " immediate calls accepted before the first refusal" << std::endl;
  }
  if (me == sleeper) {
    // No UPC++ call at all until woken (at one rank, rank 0 is done flooding by now).
    std::int64_t* local = flag->local();
    std::int64_t v;
    while ((v = __atomic_load_n(local, __ATOMIC_ACQUIRE)) == 0) sched_yield();
    while (received < v - 1) upcxx::progress();
  }
  upcxx::barrier();
  if (me == sleeper) {
    std::int64_t expected = __atomic_load_n(flag->local(), __ATOMIC_ACQUIRE) - 1;
    COMPAT_CHECK(received == expected);
  }
  upcxx::barrier();

  // ---- part 2: everyday use ----
  // Both counters are reset before the barrier: a rank waiting for room makes progress, so
  // its peer's calls may run here before this rank's own sends are done.
  static std::int64_t summed = 0;
  received = 0;
  summed = 0;
  upcxx::barrier();
  const int peer = (me + 1) % n;
  constexpr int calls = 2000;
  for (int i = 0; i < calls; ++i) inject_ff(peer, [](int) { ++received; }, i);
  upcxx::promise<> done;
  for (int i = 0; i < calls; ++i) inject(peer, upcxx::operation_cx::as_promise(done), [](int x) { summed += x; }, i);
  done.finalize().wait();
  std::int64_t sum = 0;
  // Default completions (a future), the team forms, and source completion on rpc_ff_immediate.
  for (;;) {
    try {
      sum = rpc_immediate(upcxx::world(), peer, [](int a, int b) { return std::int64_t{a} + b; }, 40, 2).wait();
      break;
    } catch (network_busy&) {
      upcxx::progress();
    }
  }
  COMPAT_CHECK(sum == 42);
  for (;;) {
    try {
      upcxx::future<> src =
          rpc_ff_immediate(upcxx::world(), peer, upcxx::source_cx::as_future(), [] { ++received; });
      src.wait();
      break;
    } catch (network_busy&) {
      upcxx::progress();
    }
  }
  // A large argument and result (the shared-heap path).
  std::vector<std::uint32_t> payload(64 * 1024);
  std::iota(payload.begin(), payload.end(), static_cast<std::uint32_t>(me) << 20);
  std::vector<std::uint32_t> back;
  for (;;) {
    try {
      back = rpc_immediate(peer, [](const std::vector<std::uint32_t>& v) {
               return std::vector<std::uint32_t>(v.rbegin(), v.rend());
             }, payload).wait();
      break;
    } catch (network_busy&) {
      upcxx::progress();
    }
  }
  COMPAT_CHECK(back.size() == payload.size());
  for (std::size_t i = 0; i < back.size(); ++i) COMPAT_CHECK(back[i] == payload[payload.size() - 1 - i]);
  upcxx::barrier();
  COMPAT_CHECK(received == calls + 1);
  COMPAT_CHECK(summed == std::int64_t{calls} * (calls - 1) / 2);

  upcxx::delete_(*flag);
  upcxx::delete_(*asleep);
  upcxx::barrier();
  if (me == 0) std::cout << "r2025_10_rpc_immediate: OK" << std::endl;
  upcxx::finalize();
}
