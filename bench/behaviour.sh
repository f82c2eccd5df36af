#!/usr/bin/env bash
# Behaviour real programs rely on, written to bench/results/:
#   ring.txt              bench/ring.cpp: a token passed round the ranks by rpc_ff, waited
#                         for with `while (!have) upcxx::progress();`, ns per hop at 2 ranks and
#                         at 4 ranks on this machine's 2 cores, against yield_handover
#   barrier-delivery.txt  barrier latency with the delivery guarantee (BUILD) and, alternating
#                         launch by launch, without it (BASE_BUILD, a build of the commit before):
#                         bench/foundation's barrier() at 2 and 4 ranks, bench/coll's barrier()
#                         and barrier_async().wait() at 2 ranks, and the same through MPI with
#                         every peer off-node
#   bench/behaviour.sh BUILD_DIR [RUNS] [BASE_BUILD_DIR]
set -euo pipefail
build=$1
runs=${2:-5}
base=${3:-}
. "$(dirname "$0")/record.sh"
record ring sh -c "'$run' -n 2 '$build/bench/gannet-bench-ring' && '$run' -n 4 '$build/bench/gannet-bench-ring'"
[ -n "$base" ] || exit 0
both=""
for b in "$base" "$build"; do
  label=$([ "$b" = "$base" ] && echo before || echo after)
  both="$both echo '## $label: $b' &&"
  both="$both '$b/tools/gannet-run' -n 2 '$b/bench/gannet-bench-foundation' | grep -E 'barrier_n2 |plain_barrier_n2 ' &&"
  both="$both '$b/tools/gannet-run' -n 4 '$b/bench/gannet-bench-foundation' | grep -E 'barrier_n4 |plain_barrier_n4 ' &&"
  both="$both '$b/tools/gannet-run' -n 2 '$b/bench/gannet-bench-coll' | grep -E '^gannet barrier' &&"
  both="$both GANNET_BYPASS=0 '$b/tools/gannet-run' --mpi -n 2 '$b/bench/gannet-bench-coll' | grep -E '^gannet barrier' &&"
done
record barrier-delivery sh -c "$both true"
