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
# Here a record takes "--"-separated commands, each run RUNS times, alternately, with stderr.
record() {
  local name=$1; shift
  local tmp cmds=() cur=()
  for a in "$@"; do
    if [ "$a" = "--" ]; then cmds+=("${cur[*]}"); cur=(); else cur+=("$a"); fi
  done
  cmds+=("${cur[*]}")
  tmp=$(mktemp)
  header "$name" "mpi=\"$(mpirun --version 2>/dev/null | head -1)\"" >"$tmp"
  for i in $(seq "$runs"); do
    for c in "${cmds[@]}"; do
      echo "# run $i: $c" >>"$tmp"
      eval "$c" >>"$tmp" 2>&1
    done
  done
  mv "$tmp" "$results/$name.txt"
  echo "wrote $results/$name.txt"
}
record mpi-transport-offnode GANNET_BYPASS=0 "$run" --mpi -n 2 "$build/bench/gannet-bench-mpi-transport"
record mpi-transport-bypass GANNET_BYPASS=1 "$run" --mpi -n 2 "$build/bench/gannet-bench-mpi-transport"
record rpc-under-mpi-n2 "$run" --mpi -n 2 "$build/bench/gannet-bench-rpc" -- "$run" -n 2 "$build/bench/gannet-bench-rpc"
record rpc-under-mpi-n4 "$run" --mpi -n 4 "$build/bench/gannet-bench-rpc" -- "$run" -n 4 "$build/bench/gannet-bench-rpc"
