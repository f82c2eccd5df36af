#!/usr/bin/env bash
# GANNET_TRACE in threadmode par on a run of spmd_trace_threads (whose operations per
# thread are known): trace_threads_test.sh GANNET_RUN PROG N [--mpi]
# Checks that each rank's file has a named track per thread that recorded something, that
# each thread's spans are on its own track (the rput counts per track are 1, 2 and 3), that
# the bodies ran on the master's track, and that every RPC arrow has one start and one end.
set -u
run=$1
prog=$2
n=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GANNET_TRACE="$work/t" "$run" "$@" -n "$n" "$prog" >"$work/out" 2>"$work/err" || {
  echo "FAIL: the traced run failed"; cat "$work/out" "$work/err"; exit 1; }
grep -q "spmd_trace_threads OK" "$work/out" || { echo "FAIL: the program did not finish"; cat "$work/out"; exit 1; }
python3 - "$work" "$n" <<'PY' || exit 1
import json, sys
from collections import Counter, defaultdict
work, n = sys.argv[1], int(sys.argv[2])
starts, ends = Counter(), Counter()
for r in range(n):
    ev = json.load(open(f"{work}/t.{r}.json"))["traceEvents"]
    named = {e["tid"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    per = defaultdict(Counter)  # tid -> span name -> count
    for e in ev:
        if e["ph"] == "X":
            per[e["tid"]][e["name"]] += 1
            if e.get("flow_out"): starts[e["bind_id"]] += 1
            if e.get("flow_in"): ends[e["bind_id"]] += 1
    assert set(per) <= named, f"rank {r}: tracks without a name: {set(per) - named}"
    rputs = sorted(c["rput"] for c in per.values() if c["rput"])
    assert rputs == [1, 2, 3], f"rank {r}: rput spans per track {rputs}, expected [1, 2, 3] ({dict(per)})"
    master = next(t for t, c in per.items() if c["rput"] == 1)
    assert per[master]["rpc body"] == 4, f"rank {r}: {per[master]['rpc body']} bodies on the master's track"
    for t, c in per.items():
        if t != master and c["rput"]:
            assert c["rpc"] == 1 and c["rpc_ff"] == 1 and c["rpc body"] == 0, f"rank {r} track {t}: {dict(c)}"
assert starts and starts == ends and all(v == 1 for v in starts.values()), "every arrow has one start and one end"
assert len(starts) == 4 * n, f"{len(starts)} arrows, expected {4 * n}"
print("trace_threads_test OK")
PY
