#!/usr/bin/env bash
# The task pool, written to bench/results/:
#   tasks-launch.txt     bench/tasks.cpp: no-op launch into rank 0 (pool, rpc_ff, a
#                        lock-protected remote queue) and run() on an empty pool against
#                        barrier(), at 2 and 4
#                        ranks on one machine
#   tasks-launch-offnode.txt  the same at 2 ranks with every peer through MPI
#   tasks-apps.txt       examples/task_refine (1D, 3D) and examples/task_uts at 1, 2 and 4 ranks
#   tasks-apps-offnode.txt    task_refine 1D and 3D at 2 and 4 ranks, every peer through MPI
#   bench/tasks.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-3}
. "$(dirname "$0")/record.sh"
record tasks-launch sh -c "'$run' -n 2 '$build/bench/gannet-bench-tasks' && '$run' -n 4 '$build/bench/gannet-bench-tasks' 10000"
record tasks-launch-offnode env GANNET_BYPASS=0 "$run" --mpi -n 2 "$build/bench/gannet-bench-tasks"
apps=""
for n in 1 2 4; do
  apps="$apps '$run' -n $n '$build/bench/gannet-bench-task-refine' 1 10 &&"
  apps="$apps '$run' -n $n '$build/bench/gannet-bench-task-refine' 3 3 &&"
  apps="$apps '$run' -n $n '$build/bench/gannet-bench-task-uts' &&"
done
record tasks-apps sh -c "$apps true"
off=""
for n in 2 4; do
  off="$off GANNET_BYPASS=0 '$run' --mpi -n $n '$build/bench/gannet-bench-task-refine' 1 5 &&"
  off="$off GANNET_BYPASS=0 '$run' --mpi -n $n '$build/bench/gannet-bench-task-refine' 3 3 &&"
done
record tasks-apps-offnode sh -c "$off true"
