#!/usr/bin/env python3
"""Charts for docs/performance.md from the committed benchmark outputs (bench/results/).

usage: python3 bench/plot.py [--results DIR] [--out DIR] [--check]

Draws every chart below into docs/img/ (hand-written SVG; Python standard library only). The
output depends on the input files alone: no dates, no randomness, a fixed order and fixed
number formats, so the same results give byte-identical files. With --check nothing is written
to docs/img/: the charts are drawn into a temporary folder and compared byte for byte with
the committed ones, and the script exits with status 1 naming each file that differs or is
missing (the CI test "the plots match the results").

Unless a chart says otherwise, a dot is one launch of the benchmark (the launch's min_ns, the
smallest if the launch prints the figure more than once) and the line spans the launches; grey
marks a limit measured in the same launches. Scales are logarithmic.

  on-node-vs-limits.svg       futures.txt, atomics.txt, foundation-n2.txt, foundation-n4.txt,
                              rpc.txt, notify-smp.txt, coll-n2.txt
      Gannet's on-node operations as a ratio to a physical limit measured in the same run
      (8-byte memcpy, 8-byte store loop, cache-line ping-pong between the two processes, one
      context switch). Each dot is one launch: the launch's best time for the operation
      divided by the limit's best time in that launch. The bar runs from 1 (at the limit) to
      the median of the launches. Orange diamonds: UPC++ 2020.10's published figure for the
      same operation divided by the limits of the machine it was measured on (UPCXX_ANCHORS,
      hard-coded: they are not in bench/results).
  limits.svg                  limits.txt
      The physical limits alone (store loop, ping-pong, memcpy of 8 B, 4 KiB, 1 MiB).
  futures-eager-vs-deferred.svg   futures.txt
      rput, rget, promise and when_all per operation, eager against deferred completion,
      beside the 8-byte memcpy of the same launches.
  gups.svg                    gups.txt
      GUPS variants (pure RMA and atomics, promise and futures), eager against deferred, as a
      fraction of manual localization in the same launch; GUP/s in the last column.
  rpc-by-size.svg             rpc.txt, rpc-latency.txt
      rpc round trips by argument size and rpc_ff per call by payload size, beside the
      cache-line round trip and 8-byte memcpy of the same launches; one RPC stamped end to end
      (rpc-latency.txt) beside the flag round trip of its launches.
  notify-pingpong-by-size.svg notify-smp.txt, notify-offnode.txt
      Notified ping-pong (half round trip) by size against the RPC signal, the polled flag
      and, through MPI, MPI send/recv and MPI put + flush + flag; on one machine with the
      cache-line ping-pong and a memcpy of the data as limits.
  notify-apps.svg             notify-apps.txt, notify-apps-offnode.txt
      Cholesky, tree reduction and stencil: the notified version's speed over the
      alternative's, launch by launch (above 1: notified access is faster).
  atomics-eager-vs-deferred.svg   atomics.txt
      fetch_add (value, into memory) and add, eager against deferred, beside 8-byte memcpy.
  overlap-speedup-by-latency.svg  overlap.tsv (its 'mpi' rows)
      Speedup of automatic overlap and of hand-written futures over blocking copies, by
      simulated network latency, per kernel, 2 and 4 ranks; the compute-only limit in grey.
      A launch's speedup pairs each variant with the blocking launch of the same round.
  overlap-smp.svg             overlap.tsv (its 'smp' rows)
      The same kernels on one machine with the layer off and on.
  barrier-delivery.svg        barrier-delivery.txt
      Barriers without and with the delivery guarantee, alternated in each launch.
  ring.svg                    ring.txt
      A token passed round 2 and 4 ranks by rpc_ff, beside one context switch.
  tasks-launch.svg            tasks-launch.txt, tasks-launch-offnode.txt
      No-op task launch (pool, rpc_ff, the lock queue) and empty run() against barrier().
  tasks-scaling.svg           tasks-apps.txt, tasks-apps-offnode.txt
      Task-pool speedup over the serial run of the same launch, 1, 2 and 4 ranks, against
      ideal (speedup = ranks) and the 2 cores of the machine; the lock queue beside it.
  mpi-transport.svg           mpi-transport-offnode.txt, mpi-transport-bypass.txt,
                              mpi-transport-offnode-mpich.txt
      Gannet's RMA and RPC through MPI against plain MPI in the same job.
  rpc-under-mpi.svg           rpc-under-mpi-n2.txt, rpc-under-mpi-n4.txt
      On-node rpc, rpc_ff and barrier under mpirun against under gannet-run.
  collectives-vs-openmpi.svg  coll-n2.txt, coll-n4.txt, mpi-coll-n2.txt, mpi-coll-n4.txt
      Gannet's collectives against Open MPI's (bench/mpi_coll.cpp) on the same machine, in
      absolute time per operation. The two libraries ran one after the other, not paired, so
      the figures span the placements of the virtual cores.
  gannet-collectives-vs-openmpi.svg   gannet-coll-n2.txt, gannet-coll-n4.txt,
                              gannet-coll-offnode-n2.txt, gannet-coll-offnode-n4.txt
      The same for gannet/collectives.hpp (gather, gather_all, scan, exscan, alltoall) from
      bench/gannet-coll.sh's files, which alternate the two libraries' launches.
  vis.svg                     vis.txt
      Strided, per-block, regular and contiguous rget beside a memcpy of the same blocks.
  scale.svg                   scale.txt
      Wall time per rank, idle progress() and private memory from 2 to 1024 ranks. One value
      per point: bench/scale.sh records only the best of its launches (wall time) and one
      launch (idle pass, memory), so this chart has no range over launches.
  trace-overhead.svg          trace-overhead.txt
      RPC and RMA latencies with GANNET_TRACE unset and set, launches alternated.

Not plotted, deliberately:
  callgrind-observe.txt, callgrind-paths.txt  instruction counts of one deterministic
      callgrind run: no launches to range over (performance.md tables them).
  overlap.txt   its tables are computed from overlap.tsv, which is plotted; its conflict-check
      times are one launch each.
  'ratio', 'rate' and 'refused' lines, trace-overhead.txt's summary: derived from figures that
      are plotted.

Input format (bench/record.sh): '# run N: command' starts a launch; lines such as
  limit pingpong_half_rtt min_ns=56.398 median_ns=58.222 repeats=15 ...
  gannet rput_wait_eager min_ns=1.013 median_ns=1.021 repeats=15 ...
  mpi MPI_Barrier min_ns=383.183 median_ns=384.652 ...
hold the figures. Other '#' lines inside a launch mark sections (a launch that runs several
programs, or sizes). A 'gannet' figure of the on-node chart is divided by the most recent
'limit' line of that name in the same launch. The applications (tasks-apps*, notify-apps*),
scale.txt and overlap.tsv print tables; their parsers below read them.

Any missing file, launch, figure or field is reported, all of them at once, and the script
exits with status 1 without writing anything.
"""
import argparse
import collections
import filecmp
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GANNET_COLOUR = "#1f77b4"
MPI_COLOUR = "#d62728"
ORANGE = "#ff7f0e"
GREEN = "#2ca02c"
PURPLE = "#9467bd"
BROWN = "#8c564b"
GREY = "#7f7f7f"
FONT = 12
CHAR_W = 6.4  # rough width of a 12px sans-serif character, for layout only

# Chart 1 rows: (label, file, gannet figure, limit, factor applied to the limit, limit's label).
# None as the file starts a new group; the label is then the group's title.
LIMIT_ROWS = [
    (None, "RMA and atomics, 2 ranks, the word on the other rank, eager completion"),
    ("rput(0., gp).wait()", "futures.txt", "rput_wait_eager", "memcpy_8b", 1, "8-byte memcpy"),
    ("rget(gp).wait()", "futures.txt", "rget_wait_eager", "memcpy_8b", 1, "8-byte memcpy"),
    ("rput tracked by one promise, per op", "futures.txt", "rput_promise_eager", "memcpy_8b", 1, "8-byte memcpy"),
    ("rput futures conjoined by when_all, per op", "futures.txt", "rput_when_all_eager", "memcpy_8b", 1,
     "8-byte memcpy"),
    ("rput(0., gp).wait(), deferred completion", "futures.txt", "rput_wait_defer", "memcpy_8b", 1, "8-byte memcpy"),
    ("fetch_add(gp, 1, order).wait()", "atomics.txt", "fetch_add_value_eager", "memcpy_8b", 1, "8-byte memcpy"),
    ("add(gp, 1, order).wait()", "atomics.txt", "add_eager", "memcpy_8b", 1, "8-byte memcpy"),
    ("store through global_ptr::local()", "foundation-n2.txt", "store_via_local", "store_8b", 1,
     "8-byte store loop"),
    (None, "RPC and notified access, 2 ranks"),
    ("rpc(peer, []{}).wait() round trip", "rpc.txt", "rpc_roundtrip_empty", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("rpc round trip, 1 KiB argument", "rpc.txt", "rpc_roundtrip_1k", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("rpc round trip, 64 KiB argument", "rpc.txt", "rpc_roundtrip_64k", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("rpc_ff of 8 B, per message (batched)", "rpc.txt", "rpc_ff_1to1_8b", "pingpong_half_rtt", 1,
     "cache-line half round trip"),
    ("rput_notify + wait, 8 B, half round trip", "notify-smp.txt", "notified_8", "line_pingpong_in_job", 1,
     "cache-line half round trip, same ranks"),
    (None, "Collectives, 2 ranks"),
    ("barrier()", "coll-n2.txt", "barrier", "pingpong_half_rtt", 2, "cache-line round trip"),
    ("barrier_async().wait()", "coll-n2.txt", "barrier_async_wait", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("broadcast of an int64 (pipelined)", "coll-n2.txt", "broadcast_int64", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("reduce_one of an int64 (pipelined)", "coll-n2.txt", "reduce_one_int64", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    ("reduce_all of an int64", "coll-n2.txt", "reduce_all_int64", "pingpong_half_rtt", 2, "cache-line round trip"),
    ("reduce_all of 1024 doubles", "coll-n2.txt", "reduce_all_8KiB", "pingpong_half_rtt", 2,
     "cache-line round trip"),
    (None, "4 ranks on 2 cores"),
    ("barrier()", "foundation-n4.txt", "barrier_n4", "yield_handover", 1, "one context switch"),
]

# UPC++ 2020.10's published figures for the operations of chart 1. They are not in
# bench/results: they are copied from /work/shared/reference/measured-anchors.md, table
# "UPC++ 2020.10.0 (GASNet-EX 2020.10.0, smp conduit, -O3; deferred notification)" (minimum
# over 5 quiet runs, 2 ranks on one VM of the same kind as this one). The ratio divides each
# by the same file's "Physical limits (plain C++, no library)" of that machine kind, with the
# row's factor: memcpy 8 B 3.5 ns; cache-line ping-pong 32-45 ns per half round trip, a range,
# so those ratios are ranges. UPC++ 2020.10 has deferred notification only, so its rput is
# shown on both the eager and the deferred Gannet row.
UPCXX_LIMITS_NS = {"memcpy_8b": (3.5, 3.5), "pingpong_half_rtt": (32.0, 45.0)}
UPCXX_ANCHORS = {  # (file, Gannet figure) of LIMIT_ROWS -> UPC++ 2020.10.0 time, ns
    ("futures.txt", "rput_wait_eager"): 77,         # rput(0., gp).wait() on-node
    ("futures.txt", "rget_wait_eager"): 75,         # rget(gp).wait()
    ("futures.txt", "rput_promise_eager"): 20,      # rput tracked by one promise, per op
    ("futures.txt", "rput_when_all_eager"): 253,    # rput conjoined with when_all, per op
    ("futures.txt", "rput_wait_defer"): 77,         # rput(0., gp).wait() on-node
    ("atomics.txt", "fetch_add_value_eager"): 74,   # atomic_domain<int64_t>::fetch_add(...).wait()
    ("atomics.txt", "add_eager"): 60,               # add(...).wait() (no fetch)
    ("rpc.txt", "rpc_roundtrip_empty"): 541,        # rpc(1, []{}).wait() round trip
    ("rpc.txt", "rpc_ff_1to1_8b"): 68,              # rpc_ff, 1-to-1, per message
    ("coll-n2.txt", "barrier"): 234,                # barrier()
}
UPCXX_COLOUR = ORANGE

# Chart collectives-vs-openmpi: (label, Gannet figure, Open MPI figure)
COLL_OPS = [
    ("barrier", "barrier", "MPI_Barrier"),
    ("broadcast, int64", "broadcast_int64", "MPI_Bcast_int64"),
    ("reduce_one, int64", "reduce_one_int64", "MPI_Reduce_int64"),
    ("reduce_all, int64", "reduce_all_int64", "MPI_Allreduce_int64"),
    ("reduce_all, 1024 doubles", "reduce_all_8KiB", "MPI_Allreduce_8KiB"),
]
COLL_PANELS = [("2 ranks", "coll-n2.txt", "mpi-coll-n2.txt"),
               ("4 ranks on 2 cores", "coll-n4.txt", "mpi-coll-n4.txt")]
# The gannet collectives (bench/gannet-coll.sh): both libraries in one file, launches alternated.
GCOLL_OPS = [
    ("barrier (yardstick)", "barrier", "MPI_Barrier"),
    ("gather_all, int64", "gather_all_int64", "MPI_Allgather_int64"),
    ("scan, int64", "scan_int64", "MPI_Scan_int64"),
    ("exscan, int64", "exscan_int64", "MPI_Exscan_int64"),
    ("gather, int64", "gather_int64", "MPI_Gather_int64"),
    ("alltoall, int64", "alltoall_int64", "MPI_Alltoall_int64"),
    ("alltoall, 1 MiB per rank", "alltoall_1MiB", "MPI_Alltoall_1MiB"),
    ("gather_all, 64 KiB", "gather_all_64KiB", "MPI_Allgather_64KiB"),
]
GCOLL_PANELS = [("2 ranks", "gannet-coll-n2.txt", "gannet-coll-n2.txt"),
                ("4 ranks on 2 cores", "gannet-coll-n4.txt", "gannet-coll-n4.txt"),
                ("2 ranks, every peer through MPI", "gannet-coll-offnode-n2.txt", "gannet-coll-offnode-n2.txt"),
                ("4 ranks on 2 cores, every peer through MPI", "gannet-coll-offnode-n4.txt",
                 "gannet-coll-offnode-n4.txt")]

# mpi-transport.svg: (label, Gannet figure, plain-MPI figure or None)
MPI_TRANSPORT_OPS = [
    ("rput(...).wait(), 8 B / MPI_Put + flush", "rput_wait_8b", "MPI_Put_flush_8b"),
    ("rput, 4 KiB", "rput_wait_4096b", "MPI_Put_flush_4096b"),
    ("rput, 1 MiB", "rput_wait_1048576b", "MPI_Put_flush_1048576b"),
    ("rget(...).wait(), 8 B / MPI_Get + flush", "rget_wait_8b", "MPI_Get_flush_8b"),
    ("rget, 4 KiB", "rget_wait_4096b", "MPI_Get_flush_4096b"),
    ("rget, 1 MiB", "rget_wait_1048576b", "MPI_Get_flush_1048576b"),
    ("empty rpc round trip / 8 B send-recv ping-pong", "rpc_roundtrip_empty", "MPI_Send_Recv_pingpong_8b"),
    ("rpc_ff 8 B per message / MPI_Isend, 64 in flight", "rpc_ff_8b_per_message",
     "MPI_Isend_window64_8b_per_message"),
    ("rpc with a 1 MiB argument / MPI_Send of 1 MiB", "rpc_roundtrip_1048576b_arg", "MPI_Send_1048576b_Recv_8b"),
]
MPI_TRANSPORT_PANELS = [
    ("Every peer off-node (GANNET_BYPASS=0), Open MPI 4.1.4", "mpi-transport-offnode.txt", "Open MPI"),
    ("On-node bypass under mpirun (GANNET_BYPASS=1), Open MPI 4.1.4", "mpi-transport-bypass.txt", "Open MPI"),
    ("Every peer off-node, MPICH 4.0.2 (one launch of an earlier build)", "mpi-transport-offnode-mpich.txt",
     "MPICH"),
]

NOTIFY_SIZES = [(8, "8 B"), (64, "64 B"), (1024, "1 KiB"), (16384, "16 KiB"), (262144, "256 KiB")]
OVERLAP_KERNELS = ["halo", "cg", "gups", "bt", "burst"]


# ---------------------------------------------------------------- reading the results

Launch = collections.namedtuple("Launch", "command records lines")


def shown(path):
    """A path as printed: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def read_launches(path, errors):
    """A results file as a list of launches, each (command, records, [(line number, line)]).

    A record is (kind, name, fields, line number) for 'limit', 'gannet' and 'mpi' lines, and
    ('section', line, {}, line number) for the other '#' lines inside a launch. A file without
    '# run' headers is one launch, from its first line."""
    if not os.path.exists(path):
        errors.append(f"{shown(path)}: not found (bench/run-all.sh or the benchmark's script records it)")
        return []
    launches = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# run "):
                launches.append(Launch(line.split(":", 1)[-1].strip(), [], []))
                continue
            if not launches:
                if n == 1 and line.startswith("#"):
                    continue  # the file's header (bench/record.sh)
                launches.append(Launch("", [], []))
            launches[-1].lines.append((n, line))
            record = parse_record(line, n)
            if record:
                launches[-1].records.append(record)
    return launches


def parse_record(line, n):
    if line.startswith("#"):
        return ("section", line, {}, n)
    words = line.split()
    if len(words) < 2 or words[0] not in ("limit", "gannet", "mpi"):
        return None
    fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
    return (words[0], words[1], fields, n)


def number(path, rec, field, errors):
    kind, name, fields, n = rec
    if field not in fields:
        errors.append(f"{path}:{n}: '{kind} {name}' has no {field}= field")
        return None
    try:
        v = float(fields[field])
    except ValueError:
        errors.append(f"{path}:{n}: '{kind} {name}' has {field}={fields[field]!r}, not a number")
        return None
    if not v > 0:
        errors.append(f"{path}:{n}: '{kind} {name}' has {field}={fields[field]}, expected > 0")
        return None
    return v


class Results:
    """The files of bench/results, each read once; `errors` collects everything missing."""

    def __init__(self, folder):
        self.folder = folder
        self.errors = []
        self._files = {}

    def shown(self, fname):
        return shown(os.path.join(self.folder, fname))

    def launches(self, fname):
        if fname not in self._files:
            self._files[fname] = read_launches(os.path.join(self.folder, fname), self.errors)
        return self._files[fname]

    def records(self, fname):
        """The records of each launch (the input of ratio_per_launch)."""
        launches = self.launches(fname)
        if launches and not any(r[0] != "section" for l in launches for r in l.records):
            self.errors.append(f"{self.shown(fname)}: no launches ('# run N:' headers or figure lines) found")
        return [l.records for l in launches]

    def values(self, fname, kind, name, field="min_ns", when=None, unless=None, section=None, nth=None,
               scale=1.0):
        """The figure's smallest `field` in each launch, times `scale`.

        Only launches whose command contains `when` (a string, or a tuple of strings that must
        all be there) and not `unless` count; within a launch,
        only records after a '#' line containing `section`; `nth` picks the nth such record
        (0-based) when a launch prints the figure several times for different programs."""
        out = []
        chosen = [(i, l) for i, l in enumerate(self.launches(fname), 1) if command_matches(l.command, when, unless)]
        if self.launches(fname) and not chosen:
            self.errors.append(f"{self.shown(fname)}: no launch whose command matches {when!r}/{unless!r}")
        for i, launch in chosen:
            recs = records_in(launch.records, kind, name, section)
            if nth is not None:
                recs = recs[nth:nth + 1]
            vals = [number(self.shown(fname), r, field, self.errors) for r in recs]
            vals = [v for v in vals if v is not None]
            if vals:
                out.append(min(vals) * scale)
            elif not recs:
                where = f" after '# ...{section}...'" if section else ""
                which = f" (occurrence {nth + 1})" if nth else ""
                self.errors.append(f"{self.shown(fname)}: launch {i} has no '{kind} {name} {field}=...' "
                                   f"line{where}{which}")
        return out


def command_matches(command, when, unless):
    wanted = (when,) if isinstance(when, str) else (when or ())
    return all(w in command for w in wanted) and (unless is None or unless not in command)


def records_in(records, kind, name, section=None):
    """The records of one kind and name, those after a '#' line containing `section` only."""
    out = []
    current = ""
    for rec in records:
        if rec[0] == "section":
            current = rec[1]
        elif rec[0] == kind and rec[1] == name and (section is None or section in current):
            out.append(rec)
    return out


def ratio_per_launch(path, launches, figure, limit, factor, errors):
    """[(ratio, gannet min_ns, limit min_ns)] per launch, the limit taken from the same launch."""
    out = []
    for i, launch in enumerate(launches, 1):
        best = None
        limits = {}
        for rec in launch:
            kind, name = rec[0], rec[1]
            if kind == "limit":
                limits[name] = rec
            elif kind == "gannet" and name == figure:
                if limit not in limits:
                    errors.append(f"{path}:{rec[3]}: 'gannet {figure}' in launch {i} has no 'limit {limit}' "
                                  f"line before it in the same launch")
                    continue
                g = number(path, rec, "min_ns", errors)
                lim = number(path, limits[limit], "min_ns", errors)
                if g is None or lim is None:
                    continue
                if best is None or g < best[1]:
                    best = (g / (factor * lim), g, lim)
        if best is None:
            if not any(r[0] == "gannet" and r[1] == figure for r in launch):
                errors.append(f"{path}: launch {i} has no 'gannet {figure} min_ns=...' line")
        else:
            out.append(best)
    return out


def per_launch_ratio(a, b):
    """a[i] / b[i] launch by launch (both lists come from the same launches)."""
    return [x / y for x, y in zip(a, b)]


# ---------------------------------------------------------------- formatting

def fmt_ratio(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def fmt_x(v):
    return fmt_ratio(v) + "x"


def fmt_ns(v):
    if v < 1:
        return f"{v:.3f} ns"
    if v < 10:
        return f"{v:.2f} ns"
    if v < 1000:
        return f"{v:.0f} ns"
    if v < 1e4:
        return f"{v / 1e3:.2f} µs"
    if v < 1e6:
        return f"{v / 1e3:.1f} µs"
    if v < 1e7:
        return f"{v / 1e6:.2f} ms"
    return f"{v / 1e6:.1f} ms"


def fmt_range(lo, hi, f):
    a, b = f(lo), f(hi)
    if a == b:
        return a
    if a.endswith("x") and b.endswith("x") and " " not in a:  # ratios: 2.13–2.22x
        return f"{a[:-1]}–{b}"
    unit_a, unit_b = a.split(" ")[-1], b.split(" ")[-1]
    if " " in a and unit_a == unit_b:
        return f"{a.rsplit(' ', 1)[0]}–{b}"
    return f"{a}–{b}"


def fmt_values(vals, f):
    return fmt_range(min(vals), max(vals), f)


def log_axis(lo, hi):
    """1-2-5 ticks covering [lo, hi]: (first tick <= lo, last tick >= hi, ticks)."""
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 2)
             for m in (1, 2, 5)]
    first = max(t for t in ticks if t <= lo)
    last = min(t for t in ticks if t >= hi)
    return first, last, [t for t in ticks if first <= t <= last]


def tick_ns(v):
    if v < 1000:
        return f"{v:g} ns"
    if v < 1e6:
        return f"{v / 1e3:g} µs"
    return f"{v / 1e6:g} ms"


def tick_x(v):
    return f"{v:g}x"


# An axis: how to print a value and a tick, the axis label, and a value to draw as a
# reference line (1 for ratios) or None.
Axis = collections.namedtuple("Axis", "fmt tick label ref")
NS_AXIS = Axis(fmt_ns, tick_ns, "time per operation (best of each launch), log scale", None)


def is_decade(t):
    return abs(math.log10(t) - round(math.log10(t))) < 1e-9


def labelled_ticks(ticks):
    """All 1-2-5 ticks get a label over three decades or less, only decades beyond."""
    span = math.log10(ticks[-1]) - math.log10(ticks[0])
    return ticks if span <= 3 + 1e-9 else [t for t in ticks if is_decade(t)]


# ---------------------------------------------------------------- SVG pieces

def svg_text(x, y, s, anchor="start", size=FONT, fill="#000", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f'{escape(s)}</text>')


def est_w(s, size=FONT):
    """Rough width of a string in a sans-serif font, for layout only: capitals are wider."""
    em = sum(0.7 if c.isupper() else 0.64 if c.isdigit() else 0.32 if c == " " else
             0.58 if c.isalpha() else 0.45 for c in s)
    return em * size


def text_width(heading, lines):
    """The width the heading and explanatory lines need."""
    return int(max([est_w(heading, 15) * 1.08] + [est_w(line) for line in lines]) + 32)


def svg_open(W, H, title, heading, lines):
    """The opening of a chart: the svg element, its title, a white page, a bold heading and
    the explanatory lines under it (16 px apart)."""
    return ([f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             f'font-family="sans-serif" font-size="{FONT}">',
             f"<title>{escape(title)}</title>",
             f'<rect width="{W}" height="{H}" fill="white"/>',
             svg_text(16, 22, heading, size=15, extra=' font-weight="bold"')] +
            [svg_text(16, 40 + 16 * i, line, fill="#333") for i, line in enumerate(lines)])


def svg_dot(x, y, colour, tip, r=3.5):
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}" stroke="#000" stroke-width="0.5">'
            f'<title>{escape(tip)}</title></circle>')


def svg_diamond(x, y, colour, tip, r=4.5):
    pts = f"{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} {x - r:.1f},{y:.1f}"
    return (f'<polygon points="{pts}" fill="{colour}" stroke="#000" stroke-width="0.5">'
            f'<title>{escape(tip)}</title></polygon>')


def svg_line(x1, y1, x2, y2, colour, width=1, dash=None):
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width}"{d}/>')


def svg_close(out, H, footer):
    out.append(svg_text(16, H - 6, "Generated by python3 bench/plot.py from bench/results/ " + footer,
                        fill="#555", size=11))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def legend(entries, x0, y0, width):
    """Legend entries (name, colour, shape) from (x0, y0), wrapped at `width`: (svg, lines)."""
    out, x, y, lines = [], x0, y0, 1
    for name, colour, shape in entries:
        w = 14 + est_w(name) + 18
        if x > x0 and x + w > x0 + width:
            x, y, lines = x0, y + 16, lines + 1
        if shape == "line":
            out.append(svg_line(x, y - 4, x + 16, y - 4, colour, 1.5, "5,3"))
            out.append(svg_text(x + 20, y, name))
            x += 6
        else:
            out.append(svg_dot(x + 5, y - 4, colour, name))
            out.append(svg_text(x + 14, y, name))
        x += w
    return out, lines


def legend_entries(series_lists):
    """(name, colour, 'dot') for each colour, named after its first series."""
    seen = {}
    for s in series_lists:
        seen.setdefault(s.colour, (s.name, s.colour, "dot"))
    return list(seen.values())


# ---------------------------------------------------------------- range rows

# One series of a row: its name, colour, one value per launch, and an optional text for the
# last column (figures other than the plotted one, such as absolute times behind a ratio).
Series = collections.namedtuple("Series", "name colour values extra")


def S(name, colour, values, extra=None):
    return Series(name, colour, values, extra)


def rows_chart(text, groups, axis):
    """Horizontal range rows. groups: [(title, [(label, [Series])])]. Each series is a line
    from the smallest to the largest value with a dot per launch, on a shared log axis."""
    rows = [r for _, rs in groups for r in rs]
    series = [s for r in rows for s in r[1]]
    allv = [v for s in series for v in s.values] + ([axis.ref] if axis.ref else [])
    lo, hi, ticks = log_axis(min(allv) / 1.2, max(allv) * 1.2)
    multi = [s for r in rows if len(r[1]) > 1 for s in r[1]]
    label_w = max(est_w(r[0]) for r in rows)
    name_w = max(est_w(s.name, 11) for s in multi) + 14 if multi else 0
    L = 16 + label_w + name_w + 14
    PW = 520
    C1 = L + PW + 16
    heads = text.get("columns", ("", ""))
    C2 = C1 + max([est_w(fmt_values(s.values, axis.fmt)) for s in series] + [est_w(heads[0], 11)]) + 16
    extra_w = max([est_w(s.extra, 11) for s in series if s.extra] + [est_w(heads[1], 11)])
    W = int(max(C2 + extra_w + 16, C1 + 150, text_width(text["heading"], text["notes"])))
    ROW = 15
    entries = legend_entries(series)
    top_legend = 40 + 16 * len(text["notes"]) + 10
    leg, n_leg = legend(entries, L, top_legend, PW)
    T = top_legend + 16 * (n_leg - 1) + 14
    H = int(T + sum(30 + sum(len(r[1]) * ROW + 8 for r in rs) for _, rs in groups) + 66)
    sx = lambda v: L + PW * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = svg_open(W, H, text["title"], text["heading"], text["notes"]) + leg
    out += axis_grid(ticks, sx, T - 4, H - 54, axis)
    out.append(svg_text(L + PW / 2, H - 22, axis.label, anchor="middle"))
    for head, x in zip(text.get("columns", ()), (C1, C2)):
        out.append(svg_text(x, T - 14, head, fill="#555", size=11))
    y = T
    for title, rs in groups:
        y += 8
        out.append(svg_text(16, y + 10, title, extra=' font-weight="bold"'))
        y += 22
        for label, ss in rs:
            out += draw_row(label, ss, y, ROW, 16 + label_w + 4, L - 8, sx, C1, C2, axis)
            y += len(ss) * ROW + 8
    return svg_close(out, H, text["footer"])


def axis_grid(ticks, sx, top, bottom, axis):
    """Vertical grid lines of a log axis, labels under it, the reference line if any."""
    out = []
    labelled = labelled_ticks(ticks)
    for t in ticks:
        x = sx(t)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                   f'stroke="{"#d0d0d0" if is_decade(t) else "#eeeeee"}"/>')
        if t in labelled:
            out.append(svg_text(x, bottom + 15, axis.tick(t), anchor="middle", fill="#333"))
    if axis.ref:
        out.append(svg_line(sx(axis.ref), top, sx(axis.ref), bottom, "#888", 1.5))
    return out


def draw_row(label, ss, y, ROW, label_x, name_x, sx, C1, C2, axis):
    out = [svg_text(label_x, y + len(ss) * ROW / 2 + 4, label, anchor="end")]
    for s in ss:
        cy = y + ROW / 2
        if len(ss) > 1:
            out.append(svg_text(name_x, cy + 4, s.name, anchor="end", fill="#666", size=11))
        out.append(svg_line(sx(min(s.values)), cy, sx(max(s.values)), cy, s.colour, 2))
        for v in s.values:
            out.append(svg_dot(sx(v), cy, s.colour, f"{s.name}, {label}: {axis.fmt(v)}"))
        out.append(svg_text(C1, cy + 4, fmt_values(s.values, axis.fmt), fill=s.colour))
        if s.extra:
            out.append(svg_text(C2, cy + 4, s.extra, fill="#555", size=11))
        y += ROW
    return out


# ---------------------------------------------------------------- small multiples (x-y panels)

# A series of a panel: [(x, [value per launch])]; a reference line: [(x, y)].
XY = collections.namedtuple("XY", "name colour points")
Ref = collections.namedtuple("Ref", "name colour dash points")
Panel = collections.namedtuple("Panel", "title series refs axis")  # axis: own y axis, or None
# kind 'cat': values are evenly spaced categories; 'log2': positions by log2 of the value.
XAxis = collections.namedtuple("XAxis", "kind values fmt label")


def panels_chart(text, panels, xaxis, yaxis, cols, PW=190):
    """A grid of small x-y panels, PW wide, on log y axes (shared unless a panel has its own).
    Each point is a dot per launch with a vertical line spanning them; a thin line joins the
    medians of a series."""
    PH, ML, MT, MB = 150, 62, 24, 34
    cell_w, cell_h = ML + PW + 18, MT + PH + MB
    W = int(max(16 + cols * cell_w, text_width(text["heading"], text["notes"])))
    entries = legend_entries([s for p in panels for s in p.series])
    entries += list({(r.name, r.colour, "line"): (r.name, r.colour, "line")
                     for p in panels for r in p.refs}.values())
    top_legend = 40 + 16 * len(text["notes"]) + 10
    leg, n_leg = legend(entries, 16, top_legend, W - 40)
    T = top_legend + 16 * (n_leg - 1) + 18
    n_rows = math.ceil(len(panels) / cols)
    H = int(T + n_rows * cell_h + 40)
    shared = y_range(panels)
    out = svg_open(W, H, text["title"], text["heading"], text["notes"]) + leg
    for k, p in enumerate(panels):
        x0 = 16 + (k % cols) * cell_w + ML
        y0 = T + (k // cols) * cell_h + MT
        rng = y_range([p]) if p.axis else shared
        out += draw_panel(p, x0, y0, PW, PH, xaxis, p.axis or yaxis, rng)
    out.append(svg_text(W / 2, H - 24, xaxis.label, anchor="middle"))
    return svg_close(out, H, text["footer"])


def y_range(panels):
    vals = [v for p in panels for s in p.series for _, vs in s.points for v in vs]
    vals += [y for p in panels for r in p.refs for _, y in r.points]
    return log_axis(min(vals) / 1.15, max(vals) * 1.15)


def x_position(xaxis, x0, PW):
    if xaxis.kind == "cat":
        n = len(xaxis.values)
        return lambda v: x0 + PW * (xaxis.values.index(v) + 0.5) / n
    lo, hi = math.log2(min(xaxis.values)) - 0.4, math.log2(max(xaxis.values)) + 0.4
    return lambda v: x0 + PW * (math.log2(v) - lo) / (hi - lo)


def draw_panel(p, x0, y0, PW, PH, xaxis, axis, rng):
    lo, hi, ticks = rng
    sy = lambda v: y0 + PH * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))
    sx = x_position(xaxis, x0, PW)
    out = [f'<rect x="{x0}" y="{y0}" width="{PW}" height="{PH}" fill="none" stroke="#ccc"/>',
           svg_text(x0, y0 - 8, p.title, extra=' font-weight="bold"')]
    labelled = labelled_ticks(ticks)
    for t in ticks:
        out.append(svg_line(x0, sy(t), x0 + PW, sy(t), "#d0d0d0" if is_decade(t) else "#eeeeee"))
        if t in labelled:
            out.append(svg_text(x0 - 5, sy(t) + 4, axis.tick(t), anchor="end", fill="#333", size=11))
    if axis.ref:
        out.append(svg_line(x0, sy(axis.ref), x0 + PW, sy(axis.ref), "#888", 1.2))
    for v in xaxis.values:
        out.append(svg_text(sx(v), y0 + PH + 15, xaxis.fmt(v), anchor="middle", fill="#333", size=11))
    for r in p.refs:
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in r.points)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{r.colour}" stroke-width="1.5" '
                   f'stroke-dasharray="5,3"/>')
    for i, s in enumerate(p.series):
        dx = (i - (len(p.series) - 1) / 2) * 6
        out += draw_xy_series(s, sx, sy, dx, p.title, axis)
    return out


def draw_xy_series(s, sx, sy, dx, where, axis):
    pts = " ".join(f"{sx(x) + dx:.1f},{sy(statistics.median(vs)):.1f}" for x, vs in s.points)
    out = [f'<polyline points="{pts}" fill="none" stroke="{s.colour}" stroke-width="1.2" '
           f'stroke-opacity="0.7"/>']
    for x, vs in s.points:
        cx = sx(x) + dx
        out.append(svg_line(cx, sy(min(vs)), cx, sy(max(vs)), s.colour, 2))
        for v in vs:
            out.append(svg_dot(cx, sy(v), s.colour, f"{s.name}, {where}, {x:g}: {axis.fmt(v)}", r=3))
    return out


# ---------------------------------------------------------------- chart: on-node against limits

def limit_rows(res):
    """LIMIT_ROWS as group titles and (label, limit label, file, figure, factor, limit, ratios)."""
    rows = []
    for spec in LIMIT_ROWS:
        if spec[0] is None:
            rows.append(spec[1])
            continue
        label, fname, figure, limit, factor, ref = spec
        vals = ratio_per_launch(res.shown(fname), res.records(fname), figure, limit, factor, res.errors)
        rows.append((label, ref, fname, figure, factor, limit, vals))
    return rows


def upcxx_ratio(fname, figure, limit, factor):
    """UPC++ 2020.10's (time, lowest ratio, highest ratio) for a row, or None."""
    t = UPCXX_ANCHORS.get((fname, figure))
    if t is None or limit not in UPCXX_LIMITS_NS:
        return None
    lim_lo, lim_hi = UPCXX_LIMITS_NS[limit]
    return t, t / (factor * lim_hi), t / (factor * lim_lo)


def chart_limits(res):
    rows = limit_rows(res)
    if res.errors:
        return None
    data = [r for r in rows if not isinstance(r, str)]
    anchors = [upcxx_ratio(r[2], r[3], r[5], r[4]) for r in data]
    ratios = [v[0] for r in data for v in r[6]] + [a[k] for a in anchors if a for k in (1, 2)]
    lo, hi, ticks = log_axis(min(ratios + [1.0]) / 1.15, max(ratios + [1.0]) * 1.15)
    label_w = max(len(r[0]) for r in data) * CHAR_W + 10
    ref_w = max(len("÷ " + r[1]) for r in data) * (CHAR_W - 0.6) + 16
    L = 16 + label_w + ref_w
    PW = 420
    C1 = L + PW + 16          # ratio range column
    C2 = C1 + 92              # Gannet time column
    CU = C2 + 142             # UPC++ column
    C3 = CU + 136             # file column
    W = int(C3 + 150)
    ROW = 20
    T = 108
    n_groups = sum(1 for r in rows if isinstance(r, str))
    H = int(T + len(data) * ROW + n_groups * 26 + 62)
    sx = lambda v: L + PW * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = svg_open(W, H, "Gannet's on-node operations as a ratio to the physical limit measured in the same run",
                   "Gannet's on-node operations as a ratio to a physical limit measured in the same run",
                   ["Ratio = Gannet's best time in one launch ÷ the limit's best time in that launch "
                    "(lower is better; 1 = at the limit). Log scale.",
                    "Dot: one launch. Bar: from 1 to the median of the launches. "
                    "Files under bench/results/; 2-core x86-64 VM, -O3, opt codemode.",
                    "Orange diamond: UPC++ 2020.10.0 (smp conduit, deferred notification), its published "
                    "time ÷ the limits of its VM (memcpy 8 B 3.5 ns,",
                    "half round trip 32–45 ns, so a range), from measured-anchors.md; not measured in these runs."])
    out += limits_axis(ticks, sx, T - 6, H - 48, L + PW / 2)
    for x, head in ((C1, "ratio, launches"), (C2, "Gannet, best per launch"), (CU, "UPC++ 2020.10"),
                    (C3, "file")):
        out.append(svg_text(x, T - 14, head, fill="#555", size=11))

    y = T
    anchors = iter(anchors)
    for r in rows:
        if isinstance(r, str):
            y += 8
            out.append(svg_text(16, y + 10, r, extra=' font-weight="bold"'))
            y += 18
            continue
        out += limit_row(r, next(anchors), y + ROW / 2, sx, (16 + label_w, C1, C2, CU, C3))
        y += ROW
    out.append(svg_text(16, H - 8, "Generated by python3 bench/plot.py from bench/results/*.txt; "
                                   "(n) after a file name: launches in it.", fill="#555", size=11))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def limits_axis(ticks, sx, top, bottom, middle):
    """The ratio axis of chart 1: every 1-2-5 tick labelled, 1 (at the limit) in bold."""
    out = []
    for t in ticks:
        x = sx(t)
        style = 'stroke="#888" stroke-width="1.5"' if t == 1 else 'stroke="#e4e4e4"'
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" {style}/>')
        out.append(svg_text(x, bottom + 15, f"{t:g}x", anchor="middle", fill="#333"))
    out.append(svg_text(middle, bottom + 32, "ratio to the limit (Gannet time ÷ limit time), log scale",
                        anchor="middle"))
    return out


def limit_row(r, anchor, cy, sx, cols):
    label, ref, fname, figure, factor, limit, vals = r
    X, C1, C2, CU, C3 = cols
    rs = [v[0] for v in vals]
    med = statistics.median(rs)
    x1, x0 = sx(1.0), sx(med)
    out = [f'<rect x="{min(x0, x1):.1f}" y="{cy - 6:.1f}" width="{abs(x1 - x0):.1f}" height="12" '
           f'fill="{GANNET_COLOUR}" fill-opacity="0.35"/>',
           f'<line x1="{sx(min(rs)):.1f}" y1="{cy:.1f}" x2="{sx(max(rs)):.1f}" y2="{cy:.1f}" '
           f'stroke="#000" stroke-width="1"/>']
    for ratio, g, lim in vals:
        out.append(f'<circle cx="{sx(ratio):.1f}" cy="{cy:.1f}" r="3" fill="{GANNET_COLOUR}" stroke="#000" '
                   f'stroke-width="0.6"><title>{escape(f"{label}: {g:g} ns ÷ {ref} {lim:g} ns = {ratio:.3g}x ({fname})")}'
                   f'</title></circle>')
    if anchor:
        out += upcxx_marks(label, ref, anchor, cy, sx)
        t, a_lo, a_hi = anchor
        out.append(svg_text(CU, cy + 4, f"{t:g} ns: {fmt_range(a_lo, a_hi, fmt_ratio)}x", fill=UPCXX_COLOUR))
    out.append(svg_text(X - 6, cy + 4, label, anchor="end"))
    out.append(svg_text(X, cy + 4, "÷ " + ref, fill="#666", size=11))
    out.append(svg_text(C1, cy + 4, fmt_range(min(rs), max(rs), fmt_ratio) + "x"))
    gs = [v[1] for v in vals]
    out.append(svg_text(C2, cy + 4, fmt_range(min(gs), max(gs), fmt_ns)))
    out.append(svg_text(C3, cy + 4, f"{fname} ({len(vals)})", fill="#555", size=11))
    return out


def upcxx_marks(label, ref, anchor, cy, sx):
    t, a_lo, a_hi = anchor
    tip = f"UPC++ 2020.10.0, {label}: {t:g} ns ÷ {ref} of its VM = {fmt_range(a_lo, a_hi, fmt_ratio)}x"
    out = []
    if a_hi > a_lo:
        out.append(svg_line(sx(a_lo), cy, sx(a_hi), cy, UPCXX_COLOUR, 2))
    out += [svg_diamond(sx(a), cy, UPCXX_COLOUR, tip) for a in sorted({a_lo, a_hi})]
    return out


# ---------------------------------------------------------------- charts: limits, futures, atomics, GUPS

def chart_physical_limits(res):
    rows = [("8-byte store loop, per store", "store_8b"),
            ("cache-line ping-pong, half round trip", "pingpong_half_rtt"),
            ("memcpy, 8 B (out-of-line call)", "memcpy_8b"),
            ("memcpy, 4 KiB", "memcpy_4k"),
            ("memcpy, 1 MiB", "memcpy_1m")]
    group = [(label, [S("limit", GREY, res.values("limits.txt", "limit", name))]) for label, name in rows]
    text = dict(title="The physical limits of this machine (bench/limits.cpp)",
                heading="Physical limits of this machine, no library (bench/limits.cpp)",
                notes=["Best time of each launch; line: the range of the launches. Every benchmark measures "
                       "these again in its own run and",
                       "takes its ratios within that run: the VM's two virtual cores change placement "
                       "between launches (ping-pong 25 to 300 ns)."],
                footer="(limits.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("limits.txt: two processes on the 2 cores", group)], NS_AXIS)


def eager_deferred_rows(res, fname, rows):
    """Rows of (label, eager figure, deferred figure), the file's 8-byte memcpy above them."""
    out = [("8-byte memcpy (limit)", [S("limit", GREY, res.values(fname, "limit", "memcpy_8b"))])]
    for label, eager, defer in rows:
        out.append((label, [S("eager", GANNET_COLOUR, res.values(fname, "gannet", eager)),
                            S("deferred", ORANGE, res.values(fname, "gannet", defer))]))
    return out


def chart_futures(res):
    rows = eager_deferred_rows(res, "futures.txt", [
        ("rput(0., gp).wait()", "rput_wait_eager", "rput_wait_defer"),
        ("rget(gp).wait()", "rget_wait_eager", "rget_wait_defer"),
        ("rput tracked by one promise, per op", "rput_promise_eager", "rput_promise_defer"),
        ("rput futures conjoined by when_all, per op", "rput_when_all_eager", "rput_when_all_defer")])
    text = dict(title="On-node RMA and completion, eager against deferred",
                heading="On-node RMA and completion: eager against deferred notification",
                notes=["2 ranks, gp on the other rank (bench/futures.cpp, the micro-benchmarks of §IV-A of "
                       "the Eager Notifications paper).",
                       "Time per operation, best of each launch; line: the range of the launches; grey: "
                       "the 8-byte memcpy of the same launches."],
                footer="(futures.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("futures.txt, 2 ranks", rows)], NS_AXIS)


def chart_atomics(res):
    rows = eager_deferred_rows(res, "atomics.txt", [
        ("fetch_add(gp, 1, order).wait(), value", "fetch_add_value_eager", "fetch_add_value_defer"),
        ("fetch_add(gp, 1, &out, order).wait(), into memory", "fetch_add_into_eager", "fetch_add_into_defer"),
        ("add(gp, 1, order).wait(), non-fetching", "add_eager", "add_defer")])
    text = dict(title="On-node atomics, eager against deferred",
                heading="On-node atomics: eager against deferred notification",
                notes=["2 ranks, the word on the other rank, each operation waited on at once "
                       "(bench/atomics.cpp; each launch measures twice, the better counts).",
                       "Time per operation, best of each launch; line: the range of the launches; grey: "
                       "the 8-byte memcpy of the same launches."],
                footer="(atomics.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("atomics.txt, 2 ranks", rows)], NS_AXIS)


def gups_series(res, name, colour, figure, manual):
    gups = res.values("gups.txt", "gannet", figure, field="gups")
    return S(name, colour, per_launch_ratio(gups, manual), f"{fmt_range(min(gups), max(gups), fmt_gups)} GUP/s"
             if gups else None)


def fmt_gups(v):
    return f"{v:.3f}" if v >= 0.1 else f"{v:.4f}"


def chart_gups(res):
    manual = res.values("gups.txt", "gannet", "gups_manual", field="gups")
    one = lambda label, fig: (label, [gups_series(res, "raw", GREY, fig, manual)])
    two = lambda label, fig: (label, [gups_series(res, "eager", GANNET_COLOUR, fig + "_eager", manual),
                                      gups_series(res, "deferred", ORANGE, fig + "_defer", manual)])
    groups = [("Without the library's operations", [one("raw C++ on downcast pointers", "gups_raw"),
                                                     one("raw C++ in the RMA variants' two-pass shape",
                                                         "gups_raw_two_pass")]),
              ("Pure RMA (rget, then rput of the xor)", [two("RMA + promise", "gups_rma_promise"),
                                                         two("RMA + futures (when_all)", "gups_rma_futures")]),
              ("Atomics (one bit_xor per update)", [two("atomics + promise", "gups_amo_promise"),
                                                    two("atomics + futures (when_all)", "gups_amo_futures")])]
    axis = Axis(fmt_x, tick_x, "GUP/s ÷ manual localization's GUP/s in the same launch (higher is better), log scale",
                1.0)
    text = dict(title="GUPS variants, eager against deferred, as a fraction of manual localization",
                heading="GUPS (HPCC RandomAccess): eager against deferred completion",
                notes=["2 ranks, 2^22 words per rank, batches of 1024 (bench/gups.cpp). Dot: one launch "
                       "(best of 5 repeats), as a fraction of manual",
                       "localization (downcast pointers, 1 = the grey line) in the same launch; "
                       "line: the range of the launches. Last column: GUP/s."],
                columns=("÷ manual, launches", "GUP/s, launches"),
                footer="(gups.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, axis)


# ---------------------------------------------------------------- chart: RPC by size

def chart_rpc(res):
    v = lambda kind, name, **kw: res.values("rpc.txt", kind, name, **kw)
    w = lambda kind, name, **kw: res.values("rpc-latency.txt", kind, name, **kw)
    rtt = [("cache-line round trip (limit)", [S("limit", GREY, v("limit", "pingpong_half_rtt", scale=2))])]
    rtt += [(label, [S("Gannet", GANNET_COLOUR, v("gannet", name))]) for label, name in (
        ("rpc(peer, []{}).wait(), no argument", "rpc_roundtrip_empty"),
        ("1 KiB argument", "rpc_roundtrip_1k"),
        ("64 KiB argument", "rpc_roundtrip_64k"))]
    ff = [("8-byte memcpy (limit)", [S("limit", GREY, v("limit", "memcpy_8b"))])]
    ff += [(label, [S("rpc_ff", GANNET_COLOUR, v("gannet", f"rpc_ff_1to1_{size}")),
                    S("rpc_ff_immediate", PURPLE, v("gannet", f"rpc_ff_immediate_1to1_{size}"))])
           for label, size in (("1-to-1, 8 B", "8b"), ("1-to-1, 1 KiB", "1k"))]
    ff += [(label, [S("rpc_ff", GANNET_COLOUR, v("gannet", f"rpc_ff_all2all_{size}_per_rank"))])
           for label, size in (("all-to-all, 8 B, per message a rank sends", "8b"),
                               ("all-to-all, 1 KiB, per message a rank sends", "1k"))]
    one = [("flag round trip between the ranks (limit)", [S("limit", GREY, w("limit", "flag_rtt_between_ranks"))]),
           ("flag half round trip (limit)", [S("limit", GREY, w("limit", "flag_rtt_between_ranks", scale=0.5))]),
           ("one steady_clock::now() (the stamp)", [S("limit", GREY, w("limit", "steady_clock_now"))])]
    one += [(label, [S("Gannet", GANNET_COLOUR, w("gannet", name))]) for label, name in (
        ("rpc round trip, target polling progress()", "rpc_roundtrip_polling"),
        ("rpc round trip, target in barrier()", "rpc_roundtrip_barrier"),
        ("of it: rpc() returns (2 stamps included)", "rpc_roundtrip_polling.initiation"),
        ("of it: rpc() called → the body runs", "rpc_roundtrip_polling.out"),
        ("of it: the body ran → wait() returns", "rpc_roundtrip_polling.back"),
        ("one-way rpc_ff, a token between 2 ranks", "rpc_ff_hop"))]
    text = dict(title="RPC round trips and rpc_ff by payload size, against the limits of the same runs",
                heading="RPC and rpc_ff by size, against the limits measured in the same runs",
                notes=["2 ranks on one machine. Dot: best time of one launch; line: the range of the "
                       "launches; grey: limits measured in the same launches.",
                       "rpc.txt: loops of many calls; rpc_ff is streamed (batched), per call. "
                       "rpc-latency.txt: each operation stamped with steady_clock,",
                       "min of 20000 samples per launch (the clock reads in 10 ns steps)."],
                footer="(bench/rpc.cpp, bench/rpc_latency.cpp; 2-core x86-64 VM).")
    groups = [("Round trip rpc(peer, f, arg).wait() by argument size (rpc.txt)", rtt),
              ("rpc_ff per call by payload size, streamed (rpc.txt)", ff),
              ("One RPC stamped end to end (rpc-latency.txt)", one)]
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


# ---------------------------------------------------------------- charts: notified access

def notify_smp_rows(res):
    v = lambda kind, name: res.values("notify-smp.txt", kind, name)
    rows = [("cache-line half round trip, same ranks (limit)", [S("limit", GREY, v("limit", "line_pingpong_in_job"))])]
    for size, label in NOTIFY_SIZES:
        rows.append((label, [S("rput_notify + wait", GANNET_COLOUR, v("gannet", f"notified_{size}")),
                             S("rput + as_rpc flag", ORANGE, v("gannet", f"rpc_flag_{size}")),
                             S("rput + polled flag", GREEN, v("gannet", f"put_flag_{size}")),
                             S(f"memcpy of the data (limit)", GREY, v("limit", f"memcpy_{size}"))]))
    return rows


def notify_offnode_rows(res):
    v = lambda kind, name: res.values("notify-offnode.txt", kind, name)
    rows = []
    for size, label in NOTIFY_SIZES:
        rows.append((label, [S("rput_notify + wait", GANNET_COLOUR, v("gannet", f"notified_{size}")),
                             S("rput + as_rpc flag", ORANGE, v("gannet", f"rpc_flag_{size}")),
                             S("rput + polled flag", GREEN, v("gannet", f"put_flag_{size}")),
                             S("MPI send/recv", MPI_COLOUR, v("mpi", f"mpi_sendrecv_{size}")),
                             S("MPI put + flush + flag", PURPLE, v("mpi", f"mpi_put_flush_flag_{size}"))]))
    return rows


def chart_notify_pingpong(res):
    groups = [("Ranks on one machine (notify-smp.txt)", notify_smp_rows(res)),
              ("Every peer through MPI, GANNET_BYPASS=0 (notify-offnode.txt)", notify_offnode_rows(res))]
    text = dict(title="Notified ping-pong by size against the alternatives",
                heading="Notified access: ping-pong by size against the other ways to signal",
                notes=["Half round trip between 2 ranks; the receiver reads the first and last byte of the "
                       "data (bench/notify.cpp). The variants alternate in one run.",
                       "Dot: best time of one launch; line: the range of the launches; grey: limits "
                       "measured in the same launches."],
                footer="(bench/notify.cpp via bench/notify.sh; 2-core x86-64 VM).")
    axis = NS_AXIS._replace(label="half round trip (best of each launch), log scale")
    return None if res.errors else rows_chart(text, groups, axis)


NOTIFY_APP_PATTERNS = [
    (re.compile(r"^notify_stencil: (\d+) ranks, (\d+ x \d+) grid"), "stencil"),
    (re.compile(r"^notify_reduce: (\d+) ranks"), "reduce"),
    (re.compile(r"^notify_cholesky: (\d+) ranks, n = (\d+)"), "cholesky"),
]
NOTIFY_APP_VALUE = re.compile(r"^(notified|rpc|put_flag|tree of counting notifications|upcxx::reduce_one)"
                              r"\s+([\d.]+) (ms|us)")


def notify_app_cases(res, fname):
    """Per launch: {(application, ranks, size): {version: time}} (ms or µs as printed)."""
    out = []
    for launch in res.launches(fname):
        cases, case = {}, None
        for n, line in launch.lines:
            for pattern, app in NOTIFY_APP_PATTERNS:
                m = pattern.match(line)
                if m:
                    case = (app,) + m.groups()
                    cases[case] = {}
            m = NOTIFY_APP_VALUE.match(line)
            if m and case:
                cases[case][m.group(1)] = float(m.group(2))
        out.append(cases)
    return out


def app_speedups(res, fname, case, version, other):
    """other's time ÷ version's time per launch (above 1: `version` is faster), and version's times."""
    ratios, times = [], []
    for i, cases in enumerate(notify_app_cases(res, fname), 1):
        c = cases.get(case, {})
        if version not in c or other not in c or not c[version] > 0:
            res.errors.append(f"{res.shown(fname)}: launch {i} has no {version!r} and {other!r} times for "
                              f"{' '.join(case)}")
            continue
        ratios.append(c[other] / c[version])
        times.append(c[version])
    return ratios, times


def fmt_time(unit):
    return lambda t: f"{t:.1f} {unit}" if t >= 10 else f"{t:.2f} {unit}" if t >= 1 else f"{t:.3f} {unit}"


def app_series(res, fname, case, name, colour, version, other, unit, show_time=True):
    """The notified version's speed over `other`'s; the last column gives its time."""
    ratios, times = app_speedups(res, fname, case, version, other)
    extra = f"notified {fmt_range(min(times), max(times), fmt_time(unit))}" if times and show_time else None
    return S(name, colour, ratios, extra)


def chart_notify_apps(res):
    A, B = "notify-apps.txt", "notify-apps-offnode.txt"
    rpc = lambda f, case: app_series(res, f, case, "against the RPC signal", ORANGE, "notified", "rpc", "ms")
    flag = lambda case: app_series(res, A, case, "against the polled flag", GREEN, "notified", "put_flag", "ms",
                                   show_time=False)
    groups = [("Cholesky, n = 512, 32 × 32 tiles", [
                  ("2 ranks", [rpc(A, ("cholesky", "2", "512"))]),
                  ("4 ranks on 2 cores", [rpc(A, ("cholesky", "4", "512"))]),
                  ("4 ranks, every peer through MPI", [rpc(B, ("cholesky", "4", "512"))])]),
              ("16-ary tree of counting notifications, 4 ranks on 2 cores", [
                  ("against upcxx::reduce_one", [app_series(res, A, ("reduce", "4"), "against reduce_one", PURPLE,
                                                            "tree of counting notifications",
                                                            "upcxx::reduce_one", "µs")])]),
              ("Pipelined stencil (PRK Sync_p2p), 2 ranks", [
                  (f"{grid} grid", [rpc(A, ("stencil", "2", grid)), flag(("stencil", "2", grid))])
                  for grid in ("1280 x 2560", "20000 x 512", "200000 x 16")])]
    axis = Axis(fmt_x, tick_x, "speed of notified access ÷ speed of the alternative, same launch "
                               "(above 1: notified is faster), log scale", 1.0)
    text = dict(title="Notified access in applications, against the other ways to signal",
                heading="Notified access in applications: speed against the alternative",
                notes=["Each dot: one launch, the alternative's time ÷ the notified version's time in "
                       "that launch; line: the range of the launches.",
                       "Last column: the notified version's time per run (Cholesky, stencil) or per "
                       "reduction."],
                columns=("notified ÷ other, speed", "absolute"),
                footer="(notify-apps.txt, notify-apps-offnode.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, axis)


# ---------------------------------------------------------------- charts: automatic overlap

def overlap_table(res):
    """overlap.tsv as {(where, ranks, latency, kernel, variant): [µs per launch, in file order]}."""
    out = {}
    launches = res.launches("overlap.tsv")
    if not launches:
        return out
    for n, line in launches[0].lines:
        cols = line.split("\t")
        if len(cols) != 6 or cols[0] == "where":
            continue
        try:
            key = (cols[0], int(cols[1]), float(cols[2]), cols[3], cols[4])
            out.setdefault(key, []).append(float(cols[5]))
        except ValueError:
            res.errors.append(f"{res.shown('overlap.tsv')}:{n}: not 'where ranks latency kernel variant us'")
    return out


def overlap_speedups(res, table, ranks, lat, kernel, variant):
    """blocking ÷ variant, round by round (the variants of a case alternate launch by launch)."""
    b = table.get(("mpi", ranks, lat, kernel, "blocking"), [])
    v = table.get(("mpi", ranks, lat, kernel, variant), [])
    if not b or len(b) != len(v):
        res.errors.append(f"{res.shown('overlap.tsv')}: {ranks} ranks, {lat:g} us, {kernel}: "
                          f"{len(b)} blocking and {len(v)} {variant} launches")
        return [1.0]
    return per_launch_ratio(b, v)


def chart_overlap(res):
    table = overlap_table(res)
    lats = sorted({k[2] for k in table if k[0] == "mpi"})
    if not lats:
        res.errors.append(f"{res.shown('overlap.tsv')}: no 'mpi' rows")
        return None
    panels = []
    for ranks in (2, 4):
        for kernel in OVERLAP_KERNELS:
            series = [XY(name, colour, [(lat, overlap_speedups(res, table, ranks, lat, kernel, variant))
                                        for lat in lats])
                      for name, colour, variant in (("automatic (the layer on)", GANNET_COLOUR, "auto"),
                                                    ("hand-written rput/rget futures", ORANGE, "manual"),
                                                    ("limit: compute only, no communication", GREY, "compute"))]
            panels.append(Panel(f"{kernel}, {ranks} ranks", series, [], None))
    axis = Axis(fmt_x, tick_x, "", 1.0)
    xaxis = XAxis("cat", lats, lambda v: f"{v:g}", "simulated network latency, µs (GANNET_SIM_LATENCY_US; 10 GB/s)")
    text = dict(title="Speedup of automatic overlap over blocking copies by simulated latency",
                heading="Automatic overlap: speedup over blocking copies, by simulated network latency",
                notes=["Every peer off-node through MPI over the simulated network (examples/overlap_kernels). "
                       "Speedup = the blocking launch's time ÷ the variant's, in the",
                       "same round of alternated launches. Dot: one round; line: the range; thin line: the "
                       "median. Log scale; 4 ranks share 2 cores.",
                       "cg: 64 × 1 KiB gather; gups: bulk puts; bt: 64 × 256 B strided; burst: "
                       "64 × 1 KiB puts + barrier."],
                footer="(overlap.tsv, bench/overlap.sh; 2-core x86-64 VM).")
    return None if res.errors else panels_chart(text, panels, xaxis, axis, 5)


def chart_overlap_smp(res):
    table = overlap_table(res)
    ms = lambda kernel, variant: [us * 1000 for us in table.get(("smp", 2, 0.0, kernel, variant), [])]
    rows = []
    for kernel in OVERLAP_KERNELS:
        off, on = ms(kernel, "blocking"), ms(kernel, "auto")
        if not off or not on:
            res.errors.append(f"{res.shown('overlap.tsv')}: no 'smp 2 0 {kernel}' blocking and auto rows")
            continue
        rows.append((kernel, [S("layer off", GREY, off), S("layer on", GANNET_COLOUR, on)]))
    axis = Axis(fmt_ns, tick_ns, "time per iteration (each launch), log scale", None)
    text = dict(title="Automatic overlap on one machine: the layer on against off",
                heading="Automatic overlap on one machine: the layer on against off",
                notes=["2 ranks, every peer on this machine (plain copies); the two variants alternate, "
                       "5 launches each. Dot: one launch (100 iterations);",
                       "line: the range of the launches. The layer should cost nothing measurable here."],
                footer="(overlap.tsv, its smp rows; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("smp, 2 ranks", rows)], axis)


# ---------------------------------------------------------------- charts: behaviour

def chart_barrier_delivery(res):
    F = "barrier-delivery.txt"
    pair = lambda name, nth=None: [S("without the guarantee", ORANGE, res.values(F, "gannet", name, section="before",
                                                                                   nth=nth)),
                                   S("with it", GANNET_COLOUR, res.values(F, "gannet", name, section="after", nth=nth))]
    rows = [("barrier(), 2 ranks (bench/foundation)", pair("barrier_n2")),
            ("barrier(), 4 ranks on 2 cores", pair("barrier_n4")),
            ("barrier(), 2 ranks (bench/coll)", pair("barrier", 0)),
            ("barrier_async().wait(), 2 ranks", pair("barrier_async_wait", 0)),
            ("barrier(), 2 ranks through MPI, every peer off-node", pair("barrier", 1)),
            ("barrier_async().wait(), the same", pair("barrier_async_wait", 1))]
    text = dict(title="Barriers without and with the delivery guarantee",
                heading="Barriers without and with the delivery guarantee",
                notes=["The two builds alternate within each launch (bench/behaviour.sh). Dot: best time "
                       "of one launch; line: the range of the launches.",
                       "Not regenerated with the other files: recorded earlier, on the machine named in "
                       "the file's header."],
                footer="(barrier-delivery.txt).")
    return None if res.errors else rows_chart(text, [("barrier-delivery.txt", rows)], NS_AXIS)


def chart_ring(res):
    v = lambda kind, name, nth=None: res.values("ring.txt", kind, name, nth=nth)
    rows = [("2 ranks, a core each", [S("token hop", GANNET_COLOUR, v("gannet", "token_ring_hop_n2")),
                                      S("one context switch (limit)", GREY, v("limit", "yield_handover", 0))]),
            ("4 ranks on 2 cores", [S("token hop", GANNET_COLOUR, v("gannet", "token_ring_hop_n4")),
                                    S("one context switch (limit)", GREY, v("limit", "yield_handover", 1))])]
    text = dict(title="A token passed round the ranks by rpc_ff, with more ranks than cores",
                heading="Polling with more ranks than cores: a token passed round by rpc_ff",
                notes=["Each rank waits in while (!have) upcxx::progress(); (bench/ring.cpp). Dot: best "
                       "hop of one launch; line: the range of the launches;",
                       "grey: one context switch between two processes on one core (yield_handover), "
                       "measured in the same launch."],
                footer="(ring.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("ring.txt", rows)], NS_AXIS)


# ---------------------------------------------------------------- charts: task pool

def tasks_launch_rows(res, fname, section):
    v = lambda name: res.values(fname, "gannet", name, section=section)
    return [("no-op launch, per task", [S("task_pool::spawn", GANNET_COLOUR, v("noop_launch_pool")),
                                        S("rpc_ff, same shape", PURPLE, v("noop_launch_rpc_ff")),
                                        S("the paper's lock queue", ORANGE, v("noop_launch_lock_queue"))]),
            ("termination", [S("run() on an empty pool", GANNET_COLOUR, v("run_empty_pool")),
                             S("barrier()", GREY, v("barrier"))])]


def chart_tasks_launch(res):
    groups = [("2 ranks, one machine (tasks-launch.txt)", tasks_launch_rows(res, "tasks-launch.txt", "tasks: 2 ranks")),
              ("4 ranks on 2 cores (tasks-launch.txt)", tasks_launch_rows(res, "tasks-launch.txt", "tasks: 4 ranks")),
              ("2 ranks, every peer through MPI (tasks-launch-offnode.txt)",
               tasks_launch_rows(res, "tasks-launch-offnode.txt", "tasks: 2 ranks"))]
    text = dict(title="Task pool: launch and termination against rpc_ff, the lock queue and barrier",
                heading="Task pool: launch and termination",
                notes=["Every other rank launches no-op tasks into rank 0; time per launch until rank 0 "
                       "has run them all, termination included (bench/tasks.cpp).",
                       "Dot: best time of one launch; line: the range of the launches."],
                footer="(tasks-launch.txt, tasks-launch-offnode.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


TASK_REFINE = re.compile(r"^task_refine (1D|3D): .*?, (\d+) ranks?,")
TASK_UTS = re.compile(r"^\s+\d+ nodes .*; (\d+) ranks?,")
TASK_VERSION = re.compile(r"^\s+(serial \(one rank, \w+\)|task_pool|lock queue \(seed baseline\))\s+([\d.]+)\s")


def task_blocks(launch):
    """{(application, ranks): {version: min ms}} of one launch of tasks-apps*.txt; the versions
    are 'serial', 'task_pool' and 'lock' (the lock queue)."""
    blocks, key = {}, None
    for n, line in launch.lines:
        m = TASK_REFINE.match(line)
        if m:
            key = ("refine " + m.group(1), int(m.group(2)))
        m = TASK_UTS.match(line)
        if m:
            key = ("uts", int(m.group(1)))
        m = TASK_VERSION.match(line)
        if m and key:
            version = "serial" if m.group(1).startswith("serial") else m.group(1).split(" ")[0]
            blocks.setdefault(key, {})[version] = float(m.group(2))
    return blocks


def task_speedups(res, fname, app, version, ranks_list):
    """[(ranks, [serial ÷ version per launch])]: speedup over the serial run of the same launch."""
    out = []
    launches = res.launches(fname)
    for ranks in ranks_list:
        vals = []
        for i, launch in enumerate(launches, 1):
            b = task_blocks(launch).get((app, ranks), {})
            if "serial" not in b or version not in b or not b[version] > 0:
                res.errors.append(f"{res.shown(fname)}: launch {i} has no serial and {version} times "
                                  f"for {app} at {ranks} ranks")
                continue
            vals.append(b["serial"] / b[version])
        out.append((ranks, vals or [1.0]))
    return out


def chart_tasks_scaling(res):
    A, B = "tasks-apps.txt", "tasks-apps-offnode.txt"
    ideal = Ref("ideal: speedup = ranks", GREY, "5,3", [(1, 1), (2, 2), (4, 4)])
    cores = Ref("ideal on this machine's 2 cores", "#bbbbbb", "2,3", [(1, 1), (2, 2), (4, 2)])
    panels = []
    for app, title in (("refine 1D", "refine 1D: 5469 tasks of 3 µs"), ("refine 3D", "refine 3D: 5369 tasks of 300 µs"),
                       ("uts", "UTS: 989,687 nodes of ~105 ns")):
        series = [XY("task pool, one machine", GANNET_COLOUR, task_speedups(res, A, app, "task_pool", (1, 2, 4)))]
        if app != "uts":
            series += [XY("lock queue, one machine", ORANGE, task_speedups(res, A, app, "lock", (1, 2, 4))),
                       XY("task pool, every peer through MPI", GREEN, task_speedups(res, B, app, "task_pool", (2, 4))),
                       XY("lock queue, every peer through MPI", MPI_COLOUR, task_speedups(res, B, app, "lock", (2, 4)))]
        panels.append(Panel(title, series, [ideal, cores], None))
    axis = Axis(fmt_x, tick_x, "", None)
    xaxis = XAxis("log2", [1, 2, 4], lambda v: f"{v:g}", "ranks (the machine has 2 cores)")
    text = dict(title="Task-pool scaling against ideal",
                heading="Task pool: speedup over the serial run, against ideal",
                notes=["Speedup = the serial run's time (one rank, same launch) ÷ the version's time, min "
                       "over repeats (examples/task_refine.cpp, task_uts.cpp).",
                       "Dot: one launch; line: the range of the launches; thin line: the median. The lock "
                       "queue is the UPC case study's baseline. Log scales."],
                footer="(tasks-apps.txt, tasks-apps-offnode.txt; 2-core x86-64 VM).")
    return None if res.errors else panels_chart(text, panels, xaxis, axis, 3, PW=250)


# ---------------------------------------------------------------- charts: MPI

def paired_rows(res, fname, ops, other):
    """Rows of Gannet against the other library's figure, both from the same launches."""
    return [(label, [S("Gannet", GANNET_COLOUR, res.values(fname, "gannet", gname)),
                     S(other, MPI_COLOUR, res.values(fname, "mpi", mname))])
            for label, gname, mname in ops]


def chart_mpi_transport(res):
    groups = []
    for title, fname, other in MPI_TRANSPORT_PANELS:
        ops = MPI_TRANSPORT_OPS
        if fname == "mpi-transport-offnode-mpich.txt":  # recorded before the 1 MiB rpc figure existed
            ops = [op for op in ops if op[1] != "rpc_roundtrip_1048576b_arg"]
        groups.append((f"{title} ({fname})", paired_rows(res, fname, ops, other)))
    text = dict(title="Gannet's RMA and RPC through MPI against plain MPI in the same job",
                heading="MPI transport: Gannet against plain MPI in the same job",
                notes=["2 ranks on this machine, Gannet and plain MPI alternated in one hybrid program "
                       "(bench/mpi_transport.cpp), best of 5 repeats per launch.",
                       "Dot: one launch; line: the range of the launches. MPI itself still uses shared "
                       "memory between the two processes."],
                footer="(mpi-transport-*.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


def chart_rpc_under_mpi(res):
    groups = []
    for title, fname in (("2 ranks", "rpc-under-mpi-n2.txt"), ("4 ranks on 2 cores", "rpc-under-mpi-n4.txt")):
        rows = []
        for label, name in (("empty rpc round trip", "rpc_roundtrip_empty"),
                            ("rpc_ff, 8 B, per message", "rpc_ff_1to1_8b"), ("barrier()", "barrier")):
            rows.append((label, [S("under mpirun (gannet-run --mpi)", GANNET_COLOUR,
                                   res.values(fname, "gannet", name, when="--mpi")),
                                 S("under gannet-run", GREY, res.values(fname, "gannet", name, unless="--mpi"))]))
        groups.append((f"{title} ({fname})", rows))
    text = dict(title="On-node RPC and barrier under mpirun against under gannet-run",
                heading="On-node under mpirun (bypass on) against gannet-run",
                notes=["bench/rpc.cpp under the two launchers, alternately, two launches each. Dot: best "
                       "time of one launch; line: the range of the launches."],
                footer="(rpc-under-mpi-n2.txt, rpc-under-mpi-n4.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


# ---------------------------------------------------------------- charts: collectives

COLL_TEXT = dict(
    title="Gannet's collectives against Open MPI 4.1's on one machine",
    heading="Collectives: Gannet against Open MPI 4.1 on the same machine",
    notes=["Time per operation, ns, log scale (lower is better). Dot: best time of one launch; "
           "line: the range of the launches.",
           "The two libraries ran one after the other, not paired: the VM's virtual cores "
           "change placement between launches,",
           "which moves both by up to 3x. Broadcast and reduce_one are pipelined loops "
           "(throughput more than latency)."],
    footer="(bench/coll.cpp and bench/mpi_coll.cpp; 2-core x86-64 VM).")
GCOLL_TEXT = dict(
    title="Gannet's gather, gather_all, scan and alltoall against Open MPI 4.1's",
    heading="gannet/collectives.hpp against Open MPI 4.1 on the same machine",
    notes=["Time per operation, ns, log scale (lower is better). Dot: best time of one launch; "
           "line: the range of the launches.",
           "Launches of the two libraries alternated in one session. Scan, exscan and gather "
           "are pipelined loops (no rank",
           "waits for all); the 1 MiB and 64 KiB rows use private buffers (std::vector-like)."],
    footer="(bench/gannet_coll.cpp and bench/mpi_coll.cpp via bench/gannet-coll.sh; 2-core x86-64 VM).")


def chart_collectives(res, ops_spec=COLL_OPS, panel_spec=COLL_PANELS, text=COLL_TEXT):
    groups = []
    for title, gfile, mfile in panel_spec:
        paired = gfile == mfile  # one file, the libraries' launches alternated
        gwhen, mwhen = ("gannet_coll", "mpi-coll") if paired else (None, None)
        rows = [(label, [S("Gannet", GANNET_COLOUR, res.values(gfile, "gannet", gname, when=gwhen)),
                         S("Open MPI", MPI_COLOUR, res.values(mfile, "mpi", mname, when=mwhen))])
                for label, gname, mname in ops_spec]
        files = gfile if paired else f"{gfile}, {mfile}"
        groups.append((f"{title}  (bench/results/{files})", rows))
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


def chart_gannet_collectives(res):
    return chart_collectives(res, GCOLL_OPS, GCOLL_PANELS, GCOLL_TEXT)


# ---------------------------------------------------------------- charts: vis, scale, trace

def chart_vis(res):
    groups = []
    for title, section in (("64 blocks of 256 B, stride 850 B: 16 KiB", "# 64 blocks"),
                           ("1024 blocks of 256 B, stride 850 B: 256 KiB", "# 1024 blocks")):
        v = lambda kind, name: res.values("vis.txt", kind, name, section=section)
        rows = [("memcpy of the same blocks (limit)", [S("limit", GREY, v("limit", "memcpy_blocks"))])]
        rows += [(label, [S("Gannet", GANNET_COLOUR, v("gannet", name))]) for label, name in (
            ("rget_strided", "rget_strided"), ("one rget per block", "rget_per_block"),
            ("rget_regular", "rget_regular"), ("one contiguous rget of the payload", "rget_contig"))]
        groups.append((title, rows))
    text = dict(title="Non-contiguous RMA against a memcpy of the same blocks",
                heading="Non-contiguous RMA: blocks fetched from the other rank",
                notes=["2 ranks on-node, the access pattern of figure 6 of the automatic nonblocking "
                       "communication paper (bench/vis.cpp).",
                       "Dot: best time of one launch; line: the range of the launches; grey: a memcpy of the "
                       "same blocks in the same launch."],
                footer="(vis.txt; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, groups, NS_AXIS)


def scale_rows(res):
    """scale.txt as {(launcher, ranks): {field: value}}."""
    out = {}
    for launch in res.launches("scale.txt"):
        for n, line in launch.lines:
            m = re.match(r"^(\S+) ranks=(\d+) (.*)$", line)
            if not m:
                continue
            fields = dict(w.split("=", 1) for w in m.group(3).split() if "=" in w)
            try:
                out[(m.group(1), int(m.group(2)))] = {k: float(v) for k, v in fields.items()}
            except ValueError:
                res.errors.append(f"{res.shown('scale.txt')}:{n}: a field is not a number")
    return out


def scale_series(res, rows, launcher, name, colour, field, factor):
    pts = []
    for (who, ranks), fields in rows.items():
        if who != launcher:
            continue
        if not fields.get(field, 0) > 0:
            res.errors.append(f"{res.shown('scale.txt')}: '{launcher} ranks={ranks}' has no {field}= > 0")
            continue
        pts.append((ranks, [fields[field] * factor]))
    if not pts and res.launches("scale.txt"):
        res.errors.append(f"{res.shown('scale.txt')}: no '{launcher} ranks=...' lines")
    return XY(name, colour, sorted(pts))


def chart_scale(res):
    rows = scale_rows(res)
    kib = Axis(lambda v: f"{v:.0f} KiB", lambda v: f"{v:g} KiB", "", None)
    panels = []
    for title, field, factor, axis in (("wall time per rank", "us_per_rank", 1e3, NS_AXIS),
                                       ("one idle progress() pass", "idle_progress_ns", 1, NS_AXIS),
                                       ("private memory, largest rank", "rss_private_kb_max", 1, kib)):
        panels.append(Panel(title, [scale_series(res, rows, "smp", "smp (gannet-run)", GANNET_COLOUR, field, factor),
                                    scale_series(res, rows, "mpi-bypass-off", "mpirun, every peer through MPI",
                                                 MPI_COLOUR, field, factor)], [], axis))
    xaxis = XAxis("log2", [2, 16, 64, 256, 1024], lambda v: f"{v:g}", "ranks (oversubscribed beyond 2 on this machine)")
    text = dict(title="What a rank costs as the job grows, 2 to 1024 ranks",
                heading="Scale: what a rank costs from 2 to 1024 ranks",
                notes=["A job of init, barrier, reduce_all and finalize with 1 MB heaps (bench/scale.cpp), "
                       "timed from the launcher's start to its exit.",
                       "One value per point: bench/scale.sh records the best of 3 launches (wall time) and "
                       "one launch (idle pass, memory). Log scales."],
                footer="(scale.txt; 2-core x86-64 VM).")
    return None if res.errors else panels_chart(text, panels, xaxis, NS_AXIS, 3, PW=230)


def chart_trace_overhead(res):
    F = "trace-overhead.txt"
    rows = []
    for label, name, prog in (("rpc round trip, target polling (on-node)", "rpc_roundtrip_polling", "rpc_latency"),
                              ("one-way rpc_ff hop (on-node)", "rpc_ff_hop", "rpc_latency"),
                              ("rput(...).wait() 8 B through MPI", "rput_wait_8b", "mpi-transport"),
                              ("rget(...).wait() 8 B through MPI", "rget_wait_8b", "mpi-transport"),
                              ("empty rpc round trip through MPI", "rpc_roundtrip_empty", "mpi-transport"),
                              ("rput(...).wait() 4 KiB through MPI", "rput_wait_4096b", "mpi-transport")):
        rows.append((label, [S("GANNET_TRACE unset", GREY,
                               res.values(F, "gannet", name, when=prog, unless="GANNET_TRACE=")),
                             S("GANNET_TRACE set", GANNET_COLOUR,
                               res.values(F, "gannet", name, when=(prog, "GANNET_TRACE=")))]))
    text = dict(title="What GANNET_TRACE costs when on",
                heading="Tracing: latencies with GANNET_TRACE unset and set",
                notes=["bench/rpc_latency.cpp on one machine and bench/mpi_transport.cpp with every peer "
                       "through MPI, each launched with and without a trace, alternately.",
                       "Dot: best time of one launch; line: the range of the launches."],
                footer="(trace-overhead.txt via bench/trace-overhead.sh; 2-core x86-64 VM).")
    return None if res.errors else rows_chart(text, [("trace-overhead.txt, 2 ranks", rows)], NS_AXIS)


# ---------------------------------------------------------------- main

CHARTS = [
    ("on-node-vs-limits.svg", chart_limits),
    ("limits.svg", chart_physical_limits),
    ("futures-eager-vs-deferred.svg", chart_futures),
    ("gups.svg", chart_gups),
    ("rpc-by-size.svg", chart_rpc),
    ("notify-pingpong-by-size.svg", chart_notify_pingpong),
    ("notify-apps.svg", chart_notify_apps),
    ("atomics-eager-vs-deferred.svg", chart_atomics),
    ("overlap-speedup-by-latency.svg", chart_overlap),
    ("overlap-smp.svg", chart_overlap_smp),
    ("barrier-delivery.svg", chart_barrier_delivery),
    ("ring.svg", chart_ring),
    ("tasks-launch.svg", chart_tasks_launch),
    ("tasks-scaling.svg", chart_tasks_scaling),
    ("mpi-transport.svg", chart_mpi_transport),
    ("rpc-under-mpi.svg", chart_rpc_under_mpi),
    ("collectives-vs-openmpi.svg", chart_collectives),
    ("gannet-collectives-vs-openmpi.svg", chart_gannet_collectives),
    ("vis.svg", chart_vis),
    ("scale.svg", chart_scale),
    ("trace-overhead.svg", chart_trace_overhead),
]


def draw_all(results):
    """{file name: SVG text} for every chart, or the list of everything missing."""
    res = Results(results)
    charts = {}
    for name, draw in CHARTS:
        before = len(res.errors)
        svg = draw(res)
        if svg is not None and len(res.errors) == before:
            charts[name] = svg
    return charts, list(dict.fromkeys(res.errors))


def write_charts(charts, folder, quiet=False):
    os.makedirs(folder, exist_ok=True)
    for name, text in charts.items():
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        if not quiet:
            print(f"wrote {shown(path)}")


def check_charts(charts, folder):
    """Draws into a temporary folder and compares with `folder`: the names that differ or are missing."""
    tmp = tempfile.mkdtemp(prefix="gannet-plot-")
    try:
        write_charts(charts, tmp, quiet=True)
        bad = []
        for name in charts:
            committed = os.path.join(folder, name)
            if not os.path.exists(committed):
                bad.append(f"{shown(committed)}: missing")
            elif not filecmp.cmp(os.path.join(tmp, name), committed, shallow=False):
                bad.append(f"{shown(committed)}: differs from what bench/results/ gives")
        return bad
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"),
                    help="folder of benchmark outputs (default: bench/results)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"),
                    help="folder for the SVG files (default: docs/img)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if the SVG files in --out differ from what the results give")
    args = ap.parse_args()

    charts, errors = draw_all(args.results)
    if errors:
        print("bench/plot.py: cannot draw the charts; nothing written:", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        return 1
    if args.check:
        bad = check_charts(charts, args.out)
        for b in bad:
            print("bench/plot.py --check: " + b, file=sys.stderr)
        if bad:
            print("bench/plot.py --check: run python3 bench/plot.py and commit docs/img/", file=sys.stderr)
            return 1
        print(f"bench/plot.py --check: the {len(charts)} charts in {shown(args.out)} match the results")
        return 0
    write_charts(charts, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
