#!/usr/bin/env bash
# The layering check fails on a crossing include: for each rule, a copy of include/ and src/
# gets one bad include, and scripts/check-layering.sh must reject it, naming the file.
set -euo pipefail
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {  # check FILE INCLUDE: adds the include to FILE in a fresh copy; the check must fail
  rm -rf "$work/tree"
  mkdir -p "$work/tree"
  cp -r "$root/include" "$root/src" "$work/tree/"
  echo "#include \"$2\"" >>"$work/tree/$1"
  if "$root/scripts/check-layering.sh" "$work/tree" 2>"$work/err"; then
    echo "FAIL: $1 including $2 passed the check"
    exit 1
  fi
  grep -q "$1" "$work/err" || { echo "FAIL: the report does not name $1"; cat "$work/err"; exit 1; }
  echo "ok   $1 including $2 is refused"
}
"$root/scripts/check-layering.sh" "$root" >/dev/null
check src/core/progress.cpp ext/overlap/overlap.hpp
check src/rpc/rpc.cpp ext/notify/notify_ring.hpp
check src/transport/smp/smp.cpp core/runtime.hpp
check src/transport/mpi/mpi.cpp transport/smp/smp.hpp
check include/upcxx/rma.hpp core/runtime.hpp
check src/util/log.cpp transport/transport.hpp
check src/ext/tasks/tasks.cpp ext/notify/notify_match.hpp
echo "layering check: OK"
