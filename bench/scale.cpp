// The scale job: init, one barrier, one reduce_all, finalize, which bench/scale.sh
// times from outside at 16 to 1024 ranks. Every rank reports its resident memory, private
// and shared, after the reduce_all (the maximum over ranks, two more reduce_alls). With
// `--idle` (a separate launch: it takes long when ranks outnumber cores), rank 0 first
// measures the cost of an idle progress pass while the other ranks wait in the barrier.
//
// Idle progress with ranks outnumbering cores: upcxx::progress() gives its core away after
// 16 idle calls in a row (progress.cpp), so the timed windows are runs of 14 calls that
// follow such a yield and one untimed call; the minimum over many windows is the cost of
// the pass itself, the rest is the machine's scheduling of a thousand processes on two cores.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <upcxx/upcxx.hpp>

namespace {

// kB of one line of /proc/self/status ("RssAnon:", "RssShmem:"), 0 if absent.
long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t k = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, k, key) == 0) return std::stol(line.substr(k));
  return 0;
}

double idle_progress_ns() {
  using clock = std::chrono::steady_clock;
  constexpr int window = 14, windows = 300;
  double best = 1e300;
  for (int w = 0; w < windows; ++w) {
    for (int i = 0; i < 16; ++i) upcxx::progress();  // ends on the yield (when oversubscribed)
    upcxx::progress();  // untimed: the first pass after a context switch finds cold caches
    auto t0 = clock::now();
    for (int i = 0; i < window; ++i) upcxx::progress();
    best = std::min(best, std::chrono::duration<double, std::nano>(clock::now() - t0).count() / window);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const bool measure_idle = argc > 1 && std::strcmp(argv[1], "--idle") == 0;
  double idle = -1;  // not measured
  if (me == 0 && measure_idle) idle = idle_progress_ns();
  upcxx::barrier();
  long sum = upcxx::reduce_all(long{me}, upcxx::op_fast_add).wait();
  long anon = upcxx::reduce_all(status_kb("RssAnon:"), upcxx::op_fast_max).wait();
  long shmem = upcxx::reduce_all(status_kb("RssShmem:"), upcxx::op_fast_max).wait();
  if (me == 0) {
    std::printf("scale ranks=%d idle_progress_ns=%.1f rss_private_kb_max=%ld rss_shared_kb_max=%ld reduce_ok=%d\n", n,
                idle, anon, shmem, sum == static_cast<long>(n) * (n - 1) / 2);
  }
  upcxx::finalize();
  return sum == static_cast<long>(n) * (n - 1) / 2 ? 0 : 1;
}
