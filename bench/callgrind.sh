#!/usr/bin/env bash
# Instructions per operation on the hot paths (bench/callgrind_paths.cpp) under callgrind, for
# the library in BUILD_DIR, without and with notified access linked (an extension that
# registers a progress hook).   bench/callgrind.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi_libs=$(sed -n 's/^MPI_mpi_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt" | head -n 1)
for notify in 0 1; do
  "${CXX:-c++}" -O2 -std=c++17 -DUPCXX_CODEMODE=3 -DGANNET_LINK_NOTIFY=$notify -I"$src/include" \
    "$src/bench/callgrind_paths.cpp" -o "$work/paths" "$build/src/libgannet.a" -lrt -lpthread ${mpi_libs:+"$mpi_libs" "-Wl,-rpath,$(dirname "$mpi_libs")"}
  (cd "$work" && rm -f callgrind.out.* &&
    "$build/tools/gannet-run" -n 1 valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no ./paths >/dev/null 2>&1)
  echo "notified access linked: $notify"
  for f in "$work"/callgrind.out.*; do
    part=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
    [ -n "$part" ] || continue
    echo "$part $(sed -n 's/^summary: //p;s/^totals: //p' "$f" | head -n 1)"
  done | awk '{ if (!($1 in n)) { n[$1] = $2 } } END {
    printf "  rput(...).wait()    %7.1f instructions\n", n["rput_wait"] / 20000
    printf "  rpc_ff send         %7.1f\n", n["rpc_ff_send"] / 200
    printf "  rpc_ff dispatch     %7.1f\n", n["rpc_ff_dispatch"] / 200
    printf "  progress() idle     %7.1f\n", n["progress_idle"] / 20000
    printf "  rpc round trip      %7.1f\n", n["rpc_roundtrip"] / 2000 }'
done
