// Open MPI's collectives measured like bench/coll.cpp and bench/gannet_coll.cpp measure
// Gannet's: MPI_Barrier, MPI_Bcast and MPI_Allreduce of one int64_t, MPI_Reduce, an 8 KiB
// MPI_Allreduce; MPI_Allgather, MPI_Scan, MPI_Exscan, MPI_Gather and MPI_Alltoall of one
// int64_t; MPI_Alltoall of 1 MiB per rank and MPI_Allgather of 64 KiB; each back to back, min
// and median over repeats; rank 0 prints. Run in the same session as coll and gannet_coll:
//   mpirun -n N gannet-bench-mpi-coll
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
template <typename Body>
void timed(const char* name, int repeats, long iters, Body&& body) {
  std::vector<double> per;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) body();
    per.push_back((MPI_Wtime() - t0) * 1e9 / static_cast<double>(iters));
  }
  std::sort(per.begin(), per.end());
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (me == 0)
    std::printf("mpi %s min_ns=%.3f median_ns=%.3f repeats=%d ops=%ld unit=op ranks=%d\n", name, per.front(),
                per[per.size() / 2], repeats, iters, n);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const long iters = argc > 1 ? std::atol(argv[1]) : 20000;
  const int repeats = 11;
  std::int64_t v = me, r = 0;
  timed("MPI_Barrier", repeats, iters, [] { MPI_Barrier(MPI_COMM_WORLD); });
  timed("MPI_Bcast_int64", repeats, iters, [&] { MPI_Bcast(&v, 1, MPI_INT64_T, 0, MPI_COMM_WORLD); });
  timed("MPI_Reduce_int64", repeats, iters, [&] { MPI_Reduce(&v, &r, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD); });
  timed("MPI_Allreduce_int64", repeats, iters, [&] { MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); });
  std::vector<double> vec(1024, 1.0), out(1024);
  timed("MPI_Allreduce_8KiB", repeats, iters / 10,
        [&] { MPI_Allreduce(vec.data(), out.data(), 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); });
  // The gannet collectives' counterparts (bench/gannet_coll.cpp).
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  std::vector<std::int64_t> all(static_cast<std::size_t>(n)), blocks(static_cast<std::size_t>(n), me);
  timed("MPI_Allgather_int64", repeats, iters,
        [&] { MPI_Allgather(&v, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD); });
  timed("MPI_Scan_int64", repeats, iters, [&] { MPI_Scan(&v, &r, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); });
  timed("MPI_Exscan_int64", repeats, iters, [&] { MPI_Exscan(&v, &r, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); });
  timed("MPI_Gather_int64", repeats, iters,
        [&] { MPI_Gather(&v, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD); });
  timed("MPI_Alltoall_int64", repeats, iters,
        [&] { MPI_Alltoall(blocks.data(), 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD); });
  // 1 MiB per rank, page-aligned as in gannet_coll.
  const std::size_t total = std::size_t{1} << 20, block = total / static_cast<std::size_t>(n);
  char* src = static_cast<char*>(std::aligned_alloc(4096, total));
  char* dst = static_cast<char*>(std::aligned_alloc(4096, total));
  std::memset(src, me, total);
  std::memset(dst, 0, total);
  const long big = std::max(20L, iters / 200);
  timed("MPI_Alltoall_1MiB", repeats, big, [&] {
    MPI_Alltoall(src, static_cast<int>(block), MPI_CHAR, dst, static_cast<int>(block), MPI_CHAR, MPI_COMM_WORLD);
  });
  timed("MPI_Allgather_64KiB", repeats, big, [&] {
    MPI_Allgather(src, 64 * 1024, MPI_CHAR, dst, 64 * 1024, MPI_CHAR, MPI_COMM_WORLD);
  });
  std::free(src);
  std::free(dst);
  MPI_Finalize();
  return 0;
}
