// An MPI hybrid program (spec, MPI interoperability): the program initializes MPI itself,
// uses MPI_COMM_WORLD alongside UPC++, and finalizes MPI after upcxx::finalize(). Gannet
// must neither initialize nor finalize MPI here, and its traffic must not mix with the
// program's (it works on private communicators).
#include <mpi.h>

#include <cstdio>
#include <vector>

#include <upcxx/upcxx.hpp>

#include "check.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int mpi_me = 0, mpi_n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_me);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_n);

  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  SPMD_CHECK(me == mpi_me && n == mpi_n);

  // The program's own messages on MPI_COMM_WORLD, interleaved with RPCs and RMA.
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  upcxx::dist_object<upcxx::global_ptr<long>> cell(upcxx::new_<long>(0));
  upcxx::global_ptr<long> theirs = cell.fetch(right).wait();
  // A rank blocked in an MPI call makes no UPC++ progress, so it cannot serve another rank's
  // RPCs: the program waits for MPI requests while making progress (the hybrid idiom), and
  // enters MPI collectives only once no RPC to it can be outstanding (after a barrier).
  auto mpi_wait = [](int count, MPI_Request* rq) {
    int done = 0;
    for (MPI_Testall(count, rq, &done, MPI_STATUSES_IGNORE); !done;
         MPI_Testall(count, rq, &done, MPI_STATUSES_IGNORE))
      upcxx::progress();
  };
  upcxx::barrier();
  for (int round = 0; round < 50; ++round) {
    long out = 1000L * me + round, in = -1;
    MPI_Request rq[2];
    MPI_Irecv(&in, 1, MPI_LONG, left, round, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&out, 1, MPI_LONG, right, round, MPI_COMM_WORLD, &rq[1]);
    long got = upcxx::rpc(right, [](long x) { return x + 1; }, out).wait();
    SPMD_CHECK(got == out + 1);
    upcxx::rput(out, theirs).wait();
    mpi_wait(2, rq);
    SPMD_CHECK(in == 1000L * left + round);
    upcxx::barrier();
    SPMD_CHECK(*cell->local() == 1000L * left + round);
    upcxx::barrier();
  }
  long sum = 0, mine = me;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  SPMD_CHECK(sum == upcxx::reduce_all(mine, upcxx::op_fast_add).wait());

  upcxx::delete_(*cell);
  upcxx::barrier();
  upcxx::finalize();

  int finalized = 1;
  MPI_Finalized(&finalized);
  SPMD_CHECK(!finalized);  // upcxx::finalize left MPI to the program
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) std::printf("spmd_mpi_hybrid: OK (%d ranks)\n", n);
  MPI_Finalize();
  return 0;
}
