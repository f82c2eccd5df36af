#!/usr/bin/env bash
# What GANNET_TRACE costs when on: the RPC latency benchmark (bench/rpc_latency.cpp, on one
# machine) and the RMA and RPC latencies through MPI with every peer off-node
# (bench/mpi_transport.cpp), each launched with and without a trace, alternately, into
# bench/results/trace-overhead.txt, followed by the ratios (traced / untraced) of the best
# launch's minimum and median, and of the typical launch's minimum (the median over launches
# of each launch's minimum: one lucky sample of one launch moves the best minimum by a
# 10 ns clock step).   bench/trace-overhead.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$(cd "$1" && pwd)
runs=${2:-3}
. "$(dirname "$0")/record.sh"
traces=$(mktemp -d)
trap 'rm -rf "$traces"' EXIT
lat="$run -n 2 $build/bench/gannet-bench-rpc_latency"
mpi="GANNET_BYPASS=0 $run --mpi -n 2 $build/bench/gannet-bench-mpi-transport"
record_alternating trace-overhead $lat -- GANNET_TRACE=$traces/a $lat -- $mpi -- GANNET_TRACE=$traces/b $mpi
python3 - "$results/trace-overhead.txt" <<'PY' >>"$results/trace-overhead.txt"
import re, sys
from collections import defaultdict
rows = defaultdict(lambda: defaultdict(list))  # row -> traced? -> [(min, median)]
traced = False
for line in open(sys.argv[1]):
    if line.startswith("# run "):
        traced = "GANNET_TRACE=" in line
        continue
    m = re.match(r"gannet (\S+) min_ns=([\d.]+) median_ns=([\d.]+)", line)
    if m:
        rows[m.group(1)][traced].append((float(m.group(2)), float(m.group(3))))
print("# traced / untraced: the best launch's minimum and median of each, and the typical launch's minimum, by row")
for name in ("rpc_roundtrip_polling", "rpc_ff_hop", "rput_wait_8b", "rget_wait_8b", "rpc_roundtrip_empty",
             "rput_wait_4096b"):
    r = rows.get(name)
    if not r or not r[True] or not r[False]:
        continue
    on_min, off_min = min(v[0] for v in r[True]), min(v[0] for v in r[False])
    on_med, off_med = min(v[1] for v in r[True]), min(v[1] for v in r[False])
    typical = lambda xs: sorted(xs)[len(xs) // 2]
    on_typ, off_typ = typical([v[0] for v in r[True]]), typical([v[0] for v in r[False]])
    print("ratio trace_overhead_%s min=%.2f median=%.2f typical_min=%.2f traced_min_ns=%.0f untraced_min_ns=%.0f" %
          (name, on_min / off_min, on_med / off_med, on_typ / off_typ, on_min, off_min))
PY
tail -8 "$results/trace-overhead.txt"
