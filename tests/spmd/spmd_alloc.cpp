// No heap allocation on either side for RPCs whose arguments are trivially serializable
// and under 256 bytes (issue 4), in steady state: rank 0 sends rpc_ff and rpc to rank 1;
// each rank counts its own operator new calls during the measured phase.
#include <atomic>
#include <cstdlib>
#include <new>

#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {
std::atomic<long> g_news{0};
long g_calls = 0;
bool g_done = false;
struct small_args {
  double a[20];
  int tag;
};
}  // namespace

void* operator new(std::size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();
  SPMD_CHECK(upcxx::rank_n() == 2);
  small_args args{};
  args.tag = 7;

  auto phase = [&](long iters) {
    upcxx::barrier();
    if (me == 0) {
      for (long i = 0; i < iters; ++i) upcxx::rpc_ff(1, [](long v, const small_args& s) { g_calls += v + s.tag - 7; }, 1L, args);
      for (long i = 0; i < iters; ++i) SPMD_CHECK(upcxx::rpc(1, [](int x) { return x + 1; }, int(i)).wait() == i + 1);
      upcxx::rpc_ff(1, [] { g_done = true; });
    } else {
      while (!g_done) upcxx::progress();
      g_done = false;
    }
    upcxx::barrier();
  };
  phase(2000);  // warm-up: pools, queues and thread-locals reach their steady size
  long before = g_news.load();
  phase(20000);
  long during = g_news.load() - before;
  if (me == 1) SPMD_CHECK(g_calls == 22000);
  if (during != 0) {
    std::fprintf(stderr, "[rank %d] %ld heap allocations in the measured RPC phase\n", me, during);
    return 4;
  }
  upcxx::say() << "spmd_alloc OK: no allocation in 20000 rpc_ff and 20000 rpc";
  upcxx::finalize();
  return 0;
}
