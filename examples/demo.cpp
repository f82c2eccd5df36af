// The demo: every rank fills a block of a distributed array in its own shared heap; the
// ranks swap global pointers to their blocks; then each rank reads every other rank's block
// directly (all ranks share this machine, so local() gives a plain pointer into the other
// process's heap) and checks what it finds.
#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr std::size_t per_rank = 1 << 16;

  upcxx::global_ptr<long> mine = upcxx::new_array<long>(per_rank);
  long* p = mine.local();
  for (std::size_t i = 0; i < per_rank; ++i) p[i] = static_cast<long>(me) * 1000000 + static_cast<long>(i);

  std::vector<upcxx::global_ptr<long>> blocks = gannet::all_gather(mine);  // includes a barrier

  long sum = 0, wrong = 0;
  for (int r = 0; r < n; ++r) {
    const long* theirs = blocks[r].local();
    for (std::size_t i = 0; i < per_rank; ++i) {
      long expect = static_cast<long>(r) * 1000000 + static_cast<long>(i);
      sum += theirs[i];
      wrong += theirs[i] != expect;
    }
  }
  upcxx::say() << "read " << n * per_rank << " elements from " << n << " ranks, sum " << sum
               << (wrong ? ", MISMATCHES: " : ", all correct") << (wrong ? std::to_string(wrong) : "");
  upcxx::barrier();  // nobody frees a block another rank may still read
  if (me == 0)
    std::cout << "demo: " << n << " ranks, shared heap " << (upcxx::shared_segment_size() >> 20)
              << " MiB each: " << (wrong ? "FAILED" : "OK") << std::endl;
  upcxx::delete_array(mine);
  upcxx::finalize();
  return wrong ? 1 : 0;
}
