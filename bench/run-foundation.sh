#!/usr/bin/env bash
# Runs the foundation benchmark RUNS times at 2 and at 4 ranks and writes every run's
# output, with the limits measured in the same run, to bench/results/foundation.txt.
#   bench/run-foundation.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1
runs=${2:-3}
out=$(dirname "$0")/results/foundation.txt
tmp=$(mktemp)
{
  echo "# gannet foundation: date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc)" \
       "cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')\"" \
       "gxx=\"$(g++ --version | head -1)\" runs=$runs"
  for n in 2 4; do
    for i in $(seq "$runs"); do
      echo "# ranks=$n run $i"
      "$build/tools/gannet-run" -n "$n" "$build/bench/gannet-bench-foundation"
    done
  done
} >"$tmp"
mv "$tmp" "$out"
echo "wrote $out"
