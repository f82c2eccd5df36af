#!/usr/bin/env bash
# Runs every benchmark RUNS times (separate launches) and writes each one's output, with the
# limits measured in the same run, to bench/results/<name>.txt.
#   bench/run-all.sh BUILD_DIR [RUNS]
# Benchmarks on this 2-core machine are noisy: read the minimum over runs, compare variants
# only within one file.
set -euo pipefail
build=$1
runs=${2:-3}
. "$(dirname "$0")/record.sh"
record limits "$build/bench/gannet-bench-limits"
record foundation-n2 "$run" -n 2 "$build/bench/gannet-bench-foundation"
record foundation-n4 "$run" -n 4 "$build/bench/gannet-bench-foundation"
record futures "$run" -n 2 "$build/bench/gannet-bench-futures"
record gups "$run" -n 2 --shared-heap 64MB "$build/bench/gannet-bench-gups" 22 5
record rpc "$run" -n 2 "$build/bench/gannet-bench-rpc"
record rpc-latency "$run" -n 2 "$build/bench/gannet-bench-rpc_latency"
record atomics "$run" -n 2 "$build/bench/gannet-bench-atomics"
record coll-n2 "$run" -n 2 "$build/bench/gannet-bench-coll"
record coll-n4 "$run" -n 4 "$build/bench/gannet-bench-coll" 5000
# Open MPI's collectives on the same machine, for the ratios in docs/performance.md (built when
# an MPI is installed: Debian openmpi-bin, libopenmpi-dev).
if [ -x "$build/bench/gannet-bench-mpi-coll" ]; then
  record mpi-coll-n2 mpirun -n 2 --oversubscribe "$build/bench/gannet-bench-mpi-coll"
  record mpi-coll-n4 mpirun -n 4 --oversubscribe "$build/bench/gannet-bench-mpi-coll" 5000
fi
# gather, gather_all, alltoall, scan beside Open MPI's (bench/gannet-coll.sh).
if [ -x "$build/bench/gannet-bench-mpi-coll" ]; then
  "$(dirname "$0")/gannet-coll.sh" "$build" "$runs"
fi
record vis "$run" -n 2 "$build/bench/gannet-bench-vis"
# The MPI transport (off-node over MPI, on-node under mpirun next to gannet-run).
if [ -x "$build/bench/gannet-bench-mpi-transport" ]; then
  "$(dirname "$0")/mpi-transport.sh" "$build" 2
fi
# Notified access ping-pong (bench/notify.sh).
"$(dirname "$0")/notify.sh" "$build" 3
# Task pool (bench/tasks.sh).
"$(dirname "$0")/tasks.sh" "$build" 3
# Polling with more ranks than cores (bench/behaviour.sh; given a second build, also the
# barrier before and after the delivery guarantee).
"$(dirname "$0")/behaviour.sh" "$build" 3
# Scale: 2 to 1024 oversubscribed ranks on smp, 16 and 64 under mpirun (bench/scale.sh).
"$(dirname "$0")/scale.sh" "$build" 3
# Automatic overlap: the kernels over the simulated network, blocking/auto/manual (bench/overlap.sh).
if [ -x "$build/bench/gannet-bench-mpi-transport" ]; then
  "$(dirname "$0")/overlap.sh" "$build" 3 100
fi
