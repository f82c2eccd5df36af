#!/usr/bin/env bash
# The gannet collectives (bench/gannet_coll.cpp) beside Open MPI's (bench/mpi_coll.cpp),
# alternately in one session, written to bench/results/:
#   gannet-coll-n2.txt, gannet-coll-n4.txt   on one machine: gannet-run, and mpirun
#   gannet-coll-offnode-n2.txt, -n4.txt      every peer through MPI (gannet-run --mpi with
#                                            GANNET_BYPASS=0), and mpirun
#   bench/gannet-coll.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-3}
. "$(dirname "$0")/record.sh"
export OMPI_MCA_rmaps_base_oversubscribe=1
g=$build/bench/gannet-bench-gannet_coll
m=$build/bench/gannet-bench-mpi-coll
for n in 2 4; do
  iters=$([ "$n" = 2 ] && echo 20000 || echo 5000)
  record_alternating gannet-coll-n$n "$run" -n $n "$g" $iters -- mpirun -n $n "$m" $iters
  record_alternating gannet-coll-offnode-n$n GANNET_BYPASS=0 "$run" --mpi -n $n "$g" $iters -- mpirun -n $n "$m" $iters
done
