// Factory of the MPI transport (ranks started by mpirun, possibly on many machines).
// Built only when the library is configured with MPI (GANNET_MPI); the launch check below
// is always available, so that a library without MPI can say so when mpirun starts it.
#pragma once

#include <cstddef>
#include <memory>

namespace gannet::transport {
class transport;

// The number of processes mpirun (Open MPI, or a PMI launcher such as MPICH's hydra) says
// this job has, from the environment it gives each process; 0 when not started that way.
int mpi_launch_size();

#ifdef GANNET_HAVE_MPI
// Whether the program itself already called MPI_Init (an MPI hybrid program).
bool mpi_initialized_by_program();
// `heap_bytes` is the shared heap each rank creates.
std::unique_ptr<transport> make_mpi(std::size_t heap_bytes);
#endif
}  // namespace gannet::transport
