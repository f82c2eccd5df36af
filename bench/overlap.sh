#!/usr/bin/env bash
# Automatic overlap, written to bench/results/:
#   overlap.txt  examples/overlap_kernels (halo, cg, gups, bt, burst) under mpirun with every
#                peer off-node (GANNET_BYPASS=0), over the simulated network at 0, 2, 5, 10 and
#                20 us (GANNET_SIM_LATENCY_US, 10 GB/s), 2 and 4 ranks, in four variants:
#                blocking (the layer off), auto, manual (hand-written rput/rget futures) and
#                compute (no communication: the ideal network, the limit). The variants of a
#                case alternate launch by launch; each figure is the min (and median) of REPS
#                launches. Then the same kernels on smp (gannet-run, peers on this machine)
#                with the layer on and off, and the conflict-check time (GANNET_OVERLAP_TIMING).
#   overlap.tsv  the raw figures; bench/overlap_report.py turns them into the tables of
#                overlap.txt and the plot docs/overlap-speedup.svg.
#   bench/overlap.sh BUILD_DIR [REPS] [ITERATIONS]
set -euo pipefail
build=$1
reps=${2:-3}
iters=${3:-100}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/results
run=$build/tools/gannet-run
prog=$build/examples/overlap_kernels
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tsv=$out/overlap.tsv
[ -n "${REPORT_ONLY:-}" ] || echo -e "where\tranks\tlatency_us\tkernel\tvariant\tus_per_iteration" > "$tsv"
one() {  # where ranks latency kernel variant
  local line
  if [ "$1" = mpi ]; then
    line=$(GANNET_BYPASS=0 GANNET_SIM_LATENCY_US=$3 GANNET_SIM_GBPS=10 "$run" --mpi -n "$2" "$prog" "$4" "$5" "$iters" \
           | grep "^overlap_kernels $4 ")
  else
    line=$("$run" -n "$2" "$prog" "$4" "$5" "$iters" | grep "^overlap_kernels $4 ")
  fi
  echo -e "$1\t$2\t$3\t$4\t$5\t$(echo "$line" | sed -E 's/.*: ([0-9.]+) us per iteration.*/\1/')" >> "$tsv"
}
# REPORT_ONLY=1: keep overlap.tsv, redo the report and the timing.
[ -n "${REPORT_ONLY:-}" ] || for n in 2 4; do
  for lat in 0 2 5 10 20; do
    for k in halo cg gups bt burst; do
      for ((r = 0; r < reps; ++r)); do
        for v in blocking auto manual compute; do one mpi "$n" "$lat" "$k" "$v"; done
      done
    done
  done
done
[ -n "${REPORT_ONLY:-}" ] || for k in halo cg gups bt burst; do
  for ((r = 0; r < reps + 2; ++r)); do
    for v in blocking auto; do one smp 2 0 "$k" "$v"; done
  done
done
{
  echo "# bench/overlap.sh $reps repeats, $iters iterations, $(date -u +%Y-%m-%d), $(nproc) cores"
  python3 "$here/overlap_report.py" "$tsv" "$here/../docs/overlap-speedup.svg"
  echo
  echo "## conflict-check time against the time saved (GANNET_OVERLAP_TIMING=1, 2 ranks, 5 us)"
  for k in halo cg gups bt burst; do
    GANNET_OVERLAP_TIMING=1 GANNET_BYPASS=0 GANNET_SIM_LATENCY_US=5 GANNET_SIM_GBPS=10 \
      "$run" --mpi -n 2 "$prog" "$k" auto "$iters" | grep "^overlap_kernels"
  done
} > "$out/overlap.txt"
cat "$out/overlap.txt"
