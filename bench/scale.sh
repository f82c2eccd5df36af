#!/usr/bin/env bash
# The scale figures, written to bench/results/scale.txt: bench/scale.cpp (init,
# barrier, reduce_all, finalize; idle progress and memory measured inside) with 1 MB heaps
#   on smp at 2, 16, 64, 256 and 1024 ranks (oversubscribed beyond 2 on this machine),
#   under mpirun with the bypass off (every peer through MPI) at 16 and 64 ranks;
# wall time of the whole job from the launcher's start to its exit, best of RUNS; then one
# launch with --idle for the cost of an idle progress pass measured inside (rank 0).
#   bench/scale.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-3}
results=$(cd "$(dirname "$0")" && pwd)/results
run=$build/tools/gannet-run
prog=$build/bench/gannet-bench-scale
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp)
echo "# scale: date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc)" \
     "cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')\"" \
     "mpi=\"$(mpirun --version 2>/dev/null | head -1)\" runs=$runs heap=1MB" >"$out"
measure() {  # label ranks command...
  local label=$1 n=$2; shift 2
  local best="" line="" t0 t1 ms
  for _ in $(seq "$runs"); do
    t0=$(date +%s%N)
    line=$("$@" | grep '^scale ')
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  local idle
  idle=$("$@" --idle | grep '^scale ' | sed 's/.*idle_progress_ns=\([^ ]*\).*/\1/')
  line=${line#scale ranks=$n }
  echo "$label ranks=$n wall_ms_min=$best us_per_rank=$(( best * 1000 / n )) idle_progress_ns=$idle ${line#idle_progress_ns=* }" | tee -a "$out"
}
for n in 2 16 64 256 1024; do
  measure smp "$n" "$run" -n "$n" --shared-heap 1MB "$prog"
done
for n in 16 64; do
  measure mpi-bypass-off "$n" env GANNET_BYPASS=0 "$run" --mpi -n "$n" --shared-heap 1MB "$prog"
done
mv "$out" "$results/scale.txt"
echo "wrote $results/scale.txt"
