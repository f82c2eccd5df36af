// Shared-heap behaviour at several ranks at once: every rank churns its own heap (mixed
// sizes from bytes to 1 MiB, live data under 40% of the heap) from several threads, and
// the contents of every block survive; then exhaustion throws with the heap's numbers.
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "check.hpp"

namespace {

struct block {
  upcxx::global_ptr<unsigned char> g;
  std::size_t size;
  unsigned char tag;
};

void churn(unsigned seed, std::size_t budget, int ops) {
  std::mt19937_64 rng(seed);
  std::vector<block> live;
  std::size_t live_bytes = 0;
  auto free_one = [&] {
    std::size_t i = rng() % live.size();
    block b = live[i];
    const unsigned char* p = b.g.local();
    for (std::size_t k = 0; k < b.size; k += 61)
      if (p[k] != b.tag) std::abort();
    upcxx::deallocate(b.g);
    live_bytes -= b.size;
    live[i] = live.back();
    live.pop_back();
  };
  std::uniform_real_distribution<double> log_size(0.0, 20.0);  // 1 B .. 1 MiB
  for (int op = 0; op < ops; ++op) {
    if (!live.empty() && rng() % 2 == 0) {
      free_one();
      continue;
    }
    std::size_t size = static_cast<std::size_t>(std::exp2(log_size(rng)));
    while (!live.empty() && live_bytes + size > budget) free_one();
    auto g = upcxx::allocate<unsigned char>(size);
    if (g.is_null()) {
      std::fprintf(stderr, "[rank %d] allocation of %zu failed with %zu live of budget %zu\n",
                   upcxx::rank_me(), size, live_bytes, budget);
      std::exit(4);
    }
    unsigned char tag = static_cast<unsigned char>(rng());
    unsigned char* p = g.local();
    for (std::size_t k = 0; k < size; k += 61) p[k] = tag;
    live.push_back({g, size, tag});
    live_bytes += size;
  }
  while (!live.empty()) free_one();
}

}  // namespace

int main() {
  upcxx::init();
  const std::size_t heap = upcxx::shared_segment_size();
  constexpr int threads = 3;
  // 40% of the heap, split between the threads.
  const std::size_t budget = heap * 2 / 5 / threads;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(churn, 1000u * static_cast<unsigned>(upcxx::rank_me()) + t, budget, 20000);
  for (auto& th : pool) th.join();
  SPMD_CHECK(upcxx::shared_segment_used() == 0);
  upcxx::barrier();

  bool threw = false;
  try {
    upcxx::new_array<char>(heap + 1);
  } catch (const upcxx::bad_shared_alloc& e) {
    threw = true;
    std::string what = e.what();
    SPMD_CHECK(what.find("rank " + std::to_string(upcxx::rank_me())) != std::string::npos);
    SPMD_CHECK(what.find("--shared-heap") != std::string::npos);
  }
  SPMD_CHECK(threw);
  upcxx::barrier();
  upcxx::say() << "spmd_heap OK";
  upcxx::finalize();
  return 0;
}
