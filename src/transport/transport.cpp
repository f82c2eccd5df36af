// Transport selection: the only place that names concrete transports (STYLE rule 9).
// Compiled twice when Gannet has MPI: with GANNET_HAVE_MPI into libgannet (smp, MPI and
// loopback), without it into libgannet-smp (one machine only, no MPI libraries linked).
#include "transport/transport.hpp"

#include <cstdlib>

#include "transport/mpi/mpi.hpp"
#include "transport/shm/barrier.hpp"
#include "transport/smp/smp.hpp"
#include "util/log.hpp"

namespace gannet::transport {

int transport::machine_cores() const { return smp::available_cores(); }

int mpi_launch_size() {
  // Open MPI's mpirun, then the PMI variables of MPICH's hydra (and Slurm's PMI).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}) {
    if (const char* v = std::getenv(name); v && *v) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 0;
}

int launcher_local_ranks() {
  // Open MPI, MPICH's hydra, Slurm.
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* v = std::getenv(name); v && *v) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 1;
}

std::unique_ptr<transport> make_transport(std::size_t heap_bytes) {
  if (smp_job_present()) return make_smp();
  const int launched = mpi_launch_size();
#ifdef GANNET_HAVE_MPI
  // Started by mpirun, or an MPI program that initialized MPI itself (a one-rank job then
  // still goes through MPI, and works with the program's own MPI calls).
  if (launched > 0 || mpi_initialized_by_program()) return make_mpi(heap_bytes);
#else
  if (launched > 1)
    util::fatal("this process was started by mpirun as one of %d, but it was linked without Gannet's MPI "
                "transport (with upcxx -network=smp, i.e. libgannet-smp.a, or against a Gannet built without "
                "MPI), so each process would run a separate one-rank job. Link it with the default library "
                "(upcxx without -network=smp; Gannet built with MPI), or start it with gannet-run -n %d.",
                launched, launched);
#endif
  loopback_options opts;
  opts.segment_bytes = heap_bytes + runtime_reserve_bytes;
  // Testing aid (docs/testing.md): run a one-rank job whose RMA takes the off-node paths.
  const char* async = std::getenv("GANNET_LOOPBACK_ASYNC");
  opts.async_rma = async && async[0] == '1';
  return make_loopback(opts);
}

}  // namespace gannet::transport
