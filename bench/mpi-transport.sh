#!/usr/bin/env bash
# The MPI transport's figures, written to bench/results/:
#   mpi-transport-offnode.txt  bench/mpi_transport.cpp with GANNET_BYPASS=0 (every peer off-node)
#   mpi-transport-bypass.txt   the same with the on-machine bypass
#   rpc-under-mpi-n2.txt, rpc-under-mpi-n4.txt
#                              bench/rpc.cpp under gannet-run --mpi and under gannet-run,
#                              alternately in one session (on-node: the figures should match)
#   bench/mpi-transport.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-2}
. "$(dirname "$0")/record.sh"
record_alternating mpi-transport-offnode GANNET_BYPASS=0 "$run" --mpi -n 2 "$build/bench/gannet-bench-mpi-transport"
record_alternating mpi-transport-bypass GANNET_BYPASS=1 "$run" --mpi -n 2 "$build/bench/gannet-bench-mpi-transport"
record_alternating rpc-under-mpi-n2 "$run" --mpi -n 2 "$build/bench/gannet-bench-rpc" -- "$run" -n 2 "$build/bench/gannet-bench-rpc"
record_alternating rpc-under-mpi-n4 "$run" --mpi -n 4 "$build/bench/gannet-bench-rpc" -- "$run" -n 4 "$build/bench/gannet-bench-rpc"
