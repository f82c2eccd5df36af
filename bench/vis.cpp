// Non-contiguous get, as in figure 6 of "Automatic nonblocking communication for
// partitioned global address space programs": gather blocks of 256 bytes lying 850 bytes
// apart in the other rank's shared heap (on one machine: the on-node path) into a dense
// buffer, as
//   rget_strided   one call for all blocks
//   rget_regular   one call, a list of block addresses
//   rget_per_block one rget per block, conjoined with when_all
//   rget_contig    one contiguous rget of the same payload (what the bytes cost when dense)
// next to the limit measured in the same run: memcpy of the same blocks from the same memory
// (memcpy_blocks), with the ratio to it. Two sizes: 64 blocks (16 KiB, cache-resident) and
// 1024 blocks (256 KiB). Times are per whole transfer; min and median over the repeats.
// Run: gannet-run -n 2 gannet-bench-vis   (rank 0 measures, rank 1 owns the source)
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"

namespace gb = gannet::bench;

namespace {

constexpr std::size_t block = 256, stride = 850;

// Runs body(iters) `repeats` times, iters calibrated so one repeat takes about 5 ms.
template <typename Body>
gb::stats timed(std::size_t bytes, Body&& body) {
  using clock = std::chrono::steady_clock;
  long iters = 1;
  for (;;) {
    auto t0 = clock::now();
    body(iters);
    double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
    if (ns > 5e6 || iters > (1L << 24)) break;
    iters = ns < 1e5 ? iters * 16 : static_cast<long>(iters * 5e6 / ns) + 1;
  }
  std::vector<double> per;
  for (int r = 0; r < 15; ++r) {
    auto t0 = clock::now();
    body(iters);
    per.push_back(std::chrono::duration<double, std::nano>(clock::now() - t0).count() / iters);
  }
  gb::stats s;
  s.min_ns = *std::min_element(per.begin(), per.end());
  s.median_ns = gb::detail::median_of(per);
  s.repeats = 15;
  s.ops = static_cast<std::uint64_t>(iters);
  s.bytes = bytes;
  return s;
}

void row(const char* name, const gb::stats& s, const gb::stats& limit) {
  gb::print_row(name, s, "transfer", "gannet");
  std::printf("ratio %s/memcpy_blocks min=%.2f median=%.2f\n", name, s.min_ns / limit.min_ns,
              s.median_ns / limit.median_ns);
}

}  // namespace

int main() {
  gb::print_limits_on_first_rank();
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr std::size_t max_blocks = 1024;
  auto mine = upcxx::new_array<char>(max_blocks * stride);
  for (std::size_t i = 0; i < max_blocks * stride; ++i) mine.local()[i] = static_cast<char>(i * 13 + me);
  auto all = gannet::all_gather(mine);
  upcxx::barrier();
  if (me == 0) {
    const upcxx::global_ptr<const char> src = all[static_cast<std::size_t>(n > 1 ? 1 : 0)];
    const char* src_local = src.local();  // the same memory, for the limit
    std::vector<char> dst(max_blocks * block), expect(max_blocks * block);
    for (std::size_t nblocks : {std::size_t{64}, max_blocks}) {
      const std::size_t payload = nblocks * block;
      std::printf("# %zu blocks of %zu bytes, stride %zu, payload %zu bytes\n", nblocks, block, stride, payload);
      for (std::size_t b = 0; b < nblocks; ++b) std::memcpy(&expect[b * block], src_local + b * stride, block);

      gb::stats lim = timed(payload, [&](long iters) {
        for (long i = 0; i < iters; ++i) {
          for (std::size_t b = 0; b < nblocks; ++b) std::memcpy(&dst[b * block], src_local + b * stride, block);
          asm volatile("" ::"r"(dst.data()) : "memory");
        }
      });
      gb::print_row("memcpy_blocks", lim, "transfer", "limit");

      const std::array<std::ptrdiff_t, 2> src_strides{1, stride}, dst_strides{1, block};
      const std::array<std::size_t, 2> extents{block, nblocks};
      std::fill(dst.begin(), dst.end(), 0);
      gb::stats strided = timed(payload, [&](long iters) {
        for (long i = 0; i < iters; ++i) upcxx::rget_strided(src, src_strides, dst.data(), dst_strides, extents).wait();
      });
      if (!std::equal(expect.begin(), expect.begin() + payload, dst.begin())) std::printf("ERROR: rget_strided data\n");
      row("rget_strided", strided, lim);

      std::vector<upcxx::global_ptr<const char>> srcs;
      std::vector<char*> dsts;
      for (std::size_t b = 0; b < nblocks; ++b) {
        srcs.push_back(src + b * stride);
        dsts.push_back(&dst[b * block]);
      }
      std::fill(dst.begin(), dst.end(), 0);
      gb::stats regular = timed(payload, [&](long iters) {
        for (long i = 0; i < iters; ++i)
          upcxx::rget_regular(srcs.begin(), srcs.end(), block, dsts.begin(), dsts.end(), block).wait();
      });
      if (!std::equal(expect.begin(), expect.begin() + payload, dst.begin())) std::printf("ERROR: rget_regular data\n");
      row("rget_regular", regular, lim);

      std::fill(dst.begin(), dst.end(), 0);
      gb::stats per_block = timed(payload, [&](long iters) {
        for (long i = 0; i < iters; ++i) {
          upcxx::future<> all_done = upcxx::make_future();
          for (std::size_t b = 0; b < nblocks; ++b)
            all_done = upcxx::when_all(all_done, upcxx::rget(src + b * stride, &dst[b * block], block));
          all_done.wait();
        }
      });
      if (!std::equal(expect.begin(), expect.begin() + payload, dst.begin())) std::printf("ERROR: rget data\n");
      row("rget_per_block", per_block, lim);

      gb::stats contig = timed(payload, [&](long iters) {
        for (long i = 0; i < iters; ++i) upcxx::rget(src, dst.data(), payload).wait();
      });
      row("rget_contig", contig, lim);
    }
  }
  upcxx::barrier();
  upcxx::delete_array(mine);
  upcxx::finalize();
}
