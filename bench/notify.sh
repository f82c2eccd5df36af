#!/usr/bin/env bash
# Notified access ping-pong, written to bench/results/:
#   notify-smp.txt     bench/notify.cpp under gannet-run (ranks on one machine: slot ring)
#   notify-offnode.txt bench/notify.cpp under gannet-run --mpi with GANNET_BYPASS=0 (every
#                      peer through MPI), next to MPI send/recv and put+flush+flag in the same job
#   notify-apps.txt    the applications of examples/ (stencil, tree reduction, Cholesky)
#   notify-apps-offnode.txt  Cholesky with every peer through MPI
#   bench/notify.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-3}
. "$(dirname "$0")/record.sh"
record notify-smp "$run" -n 2 "$build/bench/gannet-bench-notify"
if [ -x "$build/bench/gannet-bench-notify-mpi" ]; then
  record notify-offnode env GANNET_BYPASS=0 "$run" --mpi -n 2 "$build/bench/gannet-bench-notify-mpi"
fi
# The applications (examples/), opt codemode: pipelined stencil at 2 ranks (the default
# width, compute-bound; 16 columns, signal-bound; 1280 x 1280 per rank, the size in
# "Notified Access: Extending Remote Memory Access Programming Models for Producer-Consumer
# Synchronization"), tree reduction at 4, Cholesky at 2 and 4 (and at 4 with every peer
# through MPI).
if [ -x "$build/bench/gannet-bench-notify-stencil" ]; then
  record notify-apps sh -c "'$run' -n 2 '$build/bench/gannet-bench-notify-stencil' && '$run' -n 2 '$build/bench/gannet-bench-notify-stencil' 200000 16 10 && '$run' -n 2 '$build/bench/gannet-bench-notify-stencil' 1280 2560 50 && '$run' -n 4 '$build/bench/gannet-bench-notify-reduce' && '$run' -n 2 '$build/bench/gannet-bench-notify-cholesky' && '$run' -n 4 '$build/bench/gannet-bench-notify-cholesky'"
  if [ -x "$build/bench/gannet-bench-notify-mpi" ]; then
    record notify-apps-offnode env GANNET_BYPASS=0 "$run" --mpi -n 4 "$build/bench/gannet-bench-notify-cholesky"
  fi
fi
