#!/usr/bin/env bash
# GANNET_TRACE, GANNET_STATS and gannet-trace on a real run of spmd_trace (whose operations
# are known exactly):
#   trace_test.sh GANNET_RUN GANNET_TRACE_TOOL SPMD_TRACE N [--mpi]
# Checks that every rank's file is valid JSON whose spans match the operations the program
# made, that every RPC arrow has both ends, that the statistics table counts the same, that
# gannet-trace's merge, summary and pictures work (the SVGs parse as XML), and that an
# unwritable trace path is reported while the job still succeeds.
set -u
run=$1
tool=$2
prog=$3
n=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/out "$work"/err; do [ -e "$f" ] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}
GANNET_TRACE="$work/t" GANNET_STATS="$work/stats" "$run" "$@" -n "$n" "$prog" >"$work/out" 2>"$work/err" ||
  fail "the traced run failed"
grep -q "spmd_trace OK" "$work/out" || fail "the program did not finish"
grep -q "gannet stats: job: " "$work/err" || fail "no statistics on stderr"
[ "$(grep -c '^gannet stats: rank ' "$work/err")" -eq "$n" ] || fail "expected one statistics line per rank"
python3 - "$work" "$n" <<'PY' || fail "the trace or the statistics do not match the program"
import json, sys
from collections import Counter
work, n = sys.argv[1], int(sys.argv[2])
starts, ends = Counter(), Counter()
for r in range(n):
    doc = json.load(open(f"{work}/t.{r}.json"))
    ev = doc["traceEvents"]
    assert doc["otherData"]["rank"] == r, "rank of file"
    assert all(e["pid"] == r for e in ev), "pid of every event is the rank"
    spans = [e for e in ev if e["ph"] == "X"]
    c = Counter(e["name"] for e in spans)
    want = {"rput": 5, "rget": 3, "rpc": 2, "rpc_ff": 3, "rpc body": 5,
            "barrier": 2, "reduce_all": 1, "gather_all": 1}
    for k, v in want.items():
        assert c[k] == v, f"rank {r}: {c[k]} spans {k!r}, expected {v} ({dict(c)})"
    extra = set(c) - set(want) - {"wait"}
    assert not extra, f"rank {r}: unexpected spans {extra}"
    nxt = (r + 1) % n
    for e in spans:
        assert e["dur"] >= 0 and e["ts"] > 0
        if e["name"] in ("rput", "rget", "rpc"):
            assert e["args"]["peer"] == nxt, f"rank {r}: {e['name']} to {e['args']['peer']}"
        if e["name"] == "rpc_ff":
            assert e["args"]["peer"] == (r + 2) % n
    assert sum(e["args"]["bytes"] for e in spans if e["name"] == "rput") == 5 * 8
    assert sorted(e["args"]["bytes"] for e in spans if e["name"] == "rget") == [8, 8, 16]
    for e in spans:
        if e.get("flow_out"):
            assert e["name"] in ("rpc", "rpc_ff"), e
            starts[e["bind_id"]] += 1
        if e.get("flow_in"):
            assert e["name"] == "rpc body", e
            ends[e["bind_id"]] += 1
assert starts and starts == ends and all(v == 1 for v in starts.values()), "every arrow has one start and one end"
assert len(starts) == n * 5, f"{len(starts)} arrows, expected {n * 5}"
rows = [l.split() for l in open(f"{work}/stats.txt") if l[:1].isdigit() or l.startswith("job")]
counts = {(w[0], w[1]): int(w[2]) for w in rows if len(w) == 5}
for r in [str(i) for i in range(n)]:
    assert counts[(r, "rput")] == 5 and counts[(r, "rget")] == 3 and counts[(r, "rpc_ff")] == 3, "stats counts"
assert counts[("job", "rput")] == 5 * n
header = [l for l in open(f"{work}/stats.txt") if "messages_sent" in l]
assert header and "bytes_sent" in header[0] and "messages_recv" in header[0]
PY
"$tool" merge "$work"/t.*.json -o "$work/merged.json" >/dev/null || fail "gannet-trace merge"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len({e['pid'] for e in d['traceEvents']}) == $n" \
  "$work/merged.json" || fail "the merged trace lacks ranks"
"$tool" summary "$work"/t.*.json >"$work/summary" || fail "gannet-trace summary"
grep -q "^rank 0: .*rput 5 (40 B)" "$work/summary" || fail "summary: $(cat "$work/summary")"
grep -q "^top talkers" "$work/summary" || fail "summary lacks the top talkers"
mkdir "$work/pics"
(cd "$work/pics" && "$tool" matrix "$work"/t.*.json >/dev/null) || fail "gannet-trace matrix"
for f in gannet-matrix-bytes.svg gannet-matrix-messages.svg gannet-time-in-state.svg; do
  python3 -c "import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.tag.endswith('svg')" \
    "$work/pics/$f" || fail "$f is not a valid SVG image"
done
"$tool" summary "$work/nonexistent.json" 2>"$work/err" && fail "a missing file was accepted"
grep -q "cannot read" "$work/err" || fail "no message for a missing file"
# A trace that cannot be written: said, and the job goes on.
GANNET_TRACE="$work/no/such/dir/t" "$run" "$@" -n "$n" "$prog" >"$work/out" 2>"$work/err" || fail "the job failed"
grep -q "GANNET_TRACE: cannot write .*no/such/dir/t.0.json" "$work/err" || fail "no message for an unwritable trace"
echo "trace_test OK"
