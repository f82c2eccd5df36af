// An MPI hybrid program as UPC++ users write them (a graph-matching application is one): it
// includes <mpi.h> with no flags of its own, initializes MPI itself, and gathers a
// variable-sized contribution from every rank with MPI_Gatherv next to UPC++ calls. The
// install test builds it with the installed wrapper, upcxx-meta, pkg-config and the CMake
// package unchanged, and runs it under `upcxx-run --mpi`.
#include <mpi.h>

#include <upcxx/upcxx.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  upcxx::init();
  int mpi_me = -1, mpi_n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_me);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_n);
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  bool ok = me == mpi_me && n == mpi_n;

  // Rank r contributes r + 1 copies of r; rank 0 gathers them all.
  std::vector<int> mine(me + 1, me);
  std::vector<int> counts(n), displs(n), all;
  int total = 0;
  for (int r = 0; r < n; ++r) {
    counts[r] = r + 1;
    displs[r] = total;
    total += r + 1;
  }
  if (me == 0) all.resize(total);
  // No RPC can be outstanding to a rank blocked in MPI here: every rank is past init and
  // none has sent one.
  MPI_Gatherv(mine.data(), me + 1, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0,
              MPI_COMM_WORLD);
  if (me == 0) {
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < counts[r]; ++i) ok = ok && all[displs[r] + i] == r;
  }
  // The same sum over UPC++.
  const int sum = upcxx::reduce_all(me + 1, upcxx::op_fast_add).wait();
  ok = ok && sum == total;
  const bool all_ok = upcxx::reduce_all(ok ? 1 : 0, upcxx::op_fast_min).wait() == 1;
  if (me == 0) std::printf("hybrid: %d ranks, %d values gathered, %s\n", n, total, all_ok ? "ok" : "WRONG");
  upcxx::finalize();
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
