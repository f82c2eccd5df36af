// The gannet collectives (gannet/collectives.hpp) next to limits measured in the same run:
//   barrier() (the yardstick of the targets), gather_all, scan, exscan, gather and
//   alltoall of one 8-byte element per rank; alltoall of 1 MiB per rank against the memcpy
//   bound (every rank copying (P-1)/P MiB at once, timed like the collective); gather_all of
//   64 KiB per rank; both with private buffers (std::vector) and with buffers in the shared
//   heap.
// Run: gannet-run -n N gannet-bench-gannet-coll [ITERS]   (every rank takes part; rank 0 prints)
// bench/mpi_coll.cpp measures Open MPI's MPI_Allgather, MPI_Scan, MPI_Exscan, MPI_Gather and
// MPI_Alltoall the same way.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gannet/collectives.hpp>
#include <upcxx/upcxx.hpp>

#include "limits.hpp"
#include "timed.hpp"

namespace gb = gannet::bench;
using gb::each;

namespace {
// The copies of the bounds stay copies: the buffer escapes to the compiler.
void keep(void* p) { asm volatile("" : : "r"(p) : "memory"); }

struct page_buffer {
  explicit page_buffer(std::size_t bytes, char fill = 0)
      : p(static_cast<char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096))), n(bytes) {
    std::memset(p, fill, n);
  }
  ~page_buffer() { std::free(p); }
  page_buffer(const page_buffer&) = delete;
  page_buffer& operator=(const page_buffer&) = delete;
  char* data() { return p; }
  std::size_t size() const { return n; }
  char* p;
  std::size_t n;
};
}  // namespace

int main(int argc, char** argv) {
  (void)gb::print_limits_on_first_rank();
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const long iters = argc > 1 ? std::atol(argv[1]) : 20000;
  const int repeats = 11;
  auto row = [&](const char* name, gb::stats s, const gb::stats& base, const char* base_name) {
    if (me != 0) return;
    gb::print_row(name, s, "op", "gannet");
    std::printf("ratio %s/%s min=%.2f median=%.2f ranks=%d\n", name, base_name, s.min_ns / base.min_ns,
                s.median_ns / base.median_ns, n);
  };

  const gb::stats barrier = gb::timed(repeats, iters, each([] { upcxx::barrier(); }));
  if (me == 0) gb::print_row("barrier", barrier, "op", "gannet");
  std::int64_t v = me + 1, one = 0;
  std::vector<std::int64_t> all(n), blocks(n, me);
  row("gather_all_int64", gb::timed(repeats, iters, each([&] { gannet::gather_all(&v, all.data(), 1).wait(); })),
      barrier, "barrier");
  row("scan_int64", gb::timed(repeats, iters, each([&] { gannet::scan(&v, &one, 1, upcxx::op_fast_add).wait(); })),
      barrier, "barrier");
  row("exscan_int64", gb::timed(repeats, iters, each([&] { gannet::exscan(&v, &one, 1, upcxx::op_fast_add).wait(); })),
      barrier, "barrier");
  row("gather_int64", gb::timed(repeats, iters, each([&] { gannet::gather(&v, all.data(), 1, 0).wait(); })), barrier,
      "barrier");
  row("alltoall_int64", gb::timed(repeats, iters, each([&] { gannet::alltoall(blocks.data(), all.data(), 1).wait(); })),
      barrier, "barrier");

  // Bandwidth: 1 MiB per rank. The bound: every rank copies the (P-1)/P of its data that
  // goes elsewhere, all at once, timed the same way.
  const std::size_t total = std::size_t{1} << 20, block = total / static_cast<std::size_t>(n);
  // Page-aligned private buffers: std::vector's large blocks sit 16 bytes past a page, and
  // copies between buffers aligned differently run at half speed here, which would measure
  // the allocator rather than the collective.
  page_buffer src(total, static_cast<char>(me)), dst(total), scratch(total);
  const long big = std::max(20L, iters / 200);
  const gb::stats bound = gb::timed(repeats, big, each([&] {
    std::memcpy(scratch.data(), src.data(), total - block);
    keep(scratch.data());
  }));
  if (me == 0) {
    gb::print_row("memcpy_bound_1MiB", bound, "op", "limit");
    std::printf("# memcpy_bound_1MiB: every rank copies %zu of its %zu bytes at once\n", total - block, total);
  }
  row("alltoall_1MiB", gb::timed(repeats, big, each([&] { gannet::alltoall(src.data(), dst.data(), block).wait(); })),
      bound, "memcpy_bound_1MiB");
  // The same with src and dst in the shared heap, as PGAS programs often keep them: the
  // peers reach them directly and no block is staged.
  {
    upcxx::global_ptr<char> hsrc = upcxx::new_array<char>(total), hdst = upcxx::new_array<char>(total);
    std::memset(hsrc.local(), me, total);
    // A second floor: every rank copies its block of every peer's heap src into its dst
    // directly (no synchronization at all): the one copy between processes that alltoall
    // makes, with the cache traffic of reading another core's data.
    upcxx::dist_object<upcxx::global_ptr<char>> dsrc(hsrc);
    std::vector<const char*> peers(n);
    bool all_local = true;
    for (int r = 0; r < n; ++r) {
      const upcxx::global_ptr<char> g = dsrc.fetch(r).wait();
      all_local = all_local && g.is_local();
      peers[r] = all_local ? g.local() : nullptr;
    }
    // (Off-node peers: no such floor; the row is the collective's own time.)
    const gb::stats peer_bound = !all_local ? gb::stats{} : gb::timed(repeats, big, each([&] {
      for (int k = 1; k < n; ++k) {
        const int from = (me + k) % n;
        std::memcpy(hdst.local() + from * block, peers[from] + me * block, block);
      }
      keep(hdst.local());
    }));
    if (me == 0 && all_local) {
      gb::print_row("peer_copy_bound_1MiB", peer_bound, "op", "limit");
      std::printf("# peer_copy_bound_1MiB: every rank copies its block of every peer's heap src, no synchronization\n");
    }
    upcxx::barrier();
    const gb::stats heap = gb::timed(repeats, big, each([&] { gannet::alltoall(hsrc.local(), hdst.local(), block).wait(); }));
    row("alltoall_1MiB_heap", heap, bound, "memcpy_bound_1MiB");
    if (me == 0 && all_local)
      std::printf("ratio alltoall_1MiB_heap/peer_copy_bound_1MiB min=%.2f median=%.2f ranks=%d\n",
                  heap.min_ns / peer_bound.min_ns, heap.median_ns / peer_bound.median_ns, n);
    upcxx::delete_array(hsrc);
    upcxx::delete_array(hdst);
  }
  page_buffer mine(64 * 1024, static_cast<char>(me)), gathered(mine.size() * n);
  const gb::stats bound64 = gb::timed(repeats, big, each([&] {
    for (int r = 1; r < n; ++r) std::memcpy(gathered.data() + r * mine.size(), mine.data(), mine.size());
    keep(gathered.data());
  }));
  if (me == 0) gb::print_row("memcpy_bound_gather_all_64KiB", bound64, "op", "limit");
  row("gather_all_64KiB", gb::timed(repeats, big, each([&] {
        gannet::gather_all(mine.data(), gathered.data(), mine.size()).wait();
      })),
      bound64, "memcpy_bound_gather_all_64KiB");
  {
    upcxx::global_ptr<char> hmine = upcxx::new_array<char>(mine.size());
    upcxx::global_ptr<char> hgathered = upcxx::new_array<char>(gathered.size());
    row("gather_all_64KiB_heap", gb::timed(repeats, big, each([&] {
          gannet::gather_all(hmine.local(), hgathered.local(), mine.size()).wait();
        })),
        bound64, "memcpy_bound_gather_all_64KiB");
    upcxx::delete_array(hmine);
    upcxx::delete_array(hgathered);
  }
  upcxx::finalize();
  return 0;
}
