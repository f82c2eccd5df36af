#!/usr/bin/env python3
"""Charts for docs/performance.md from the committed benchmark outputs (bench/results/*.txt).

usage: python3 bench/plot.py [--results DIR] [--out DIR]

Writes three SVG files (hand-written SVG; Python standard library only):

  docs/img/on-node-vs-limits.svg
      Gannet's on-node operations as a ratio to a physical limit measured in the same run
      (8-byte memcpy, 8-byte store loop, cache-line ping-pong between the two processes, one
      context switch). Each dot is one launch of the benchmark: the launch's best time for
      the operation divided by the limit's best time in that launch. The bar runs from 1 (at
      the limit) to the median of the launches. Log scale.

  docs/img/collectives-vs-openmpi.svg
      Gannet's collectives against Open MPI's (bench/mpi_coll.cpp) on the same machine, 2
      ranks and 4 ranks on 2 cores, in absolute time per operation. Each dot is the best time
      of one launch; the line spans the launches. The two libraries ran one after the other,
      not paired, so the figures span the placements of the virtual cores. Log scale.

  docs/img/gannet-collectives-vs-openmpi.svg
      The same for gannet/collectives.hpp (gather, gather_all, scan, exscan, alltoall) from
      bench/gannet-coll.sh's files, which alternate the two libraries' launches.

Input format (bench/record.sh): '# run N: command' starts a launch; lines such as
  limit pingpong_half_rtt min_ns=56.398 median_ns=58.222 repeats=15 ...
  gannet rput_wait_eager min_ns=1.013 median_ns=1.021 repeats=15 ...
  mpi MPI_Barrier min_ns=383.183 median_ns=384.652 ...
hold the figures. A 'gannet' figure is divided by the most recent 'limit' line of that name
in the same launch (a launch that runs several programs prints the limits again for each).
When a launch holds a figure twice (alternated variants), its smaller min_ns is used.

Any missing file, launch, figure or field is reported, all of them at once, and the script
exits with status 1 without writing anything.
"""
import argparse
import math
import os
import statistics
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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

# Chart 2: (label, Gannet figure, Open MPI figure)
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
                ("2 ranks, every peer through MPI", "gannet-coll-offnode-n2.txt", "gannet-coll-offnode-n2.txt")]

GANNET_COLOUR = "#1f77b4"
MPI_COLOUR = "#d62728"
FONT = 12
CHAR_W = 6.4  # rough width of a 12px sans-serif character, for layout only


def shown(path):
    """A path as printed: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def parse(path, errors):
    """A results file as a list of launches; a launch is a list of records in file order.

    A record is (kind, name, fields, line number) for 'limit', 'gannet' and 'mpi' lines."""
    if not os.path.exists(path):
        errors.append(f"{shown(path)}: not found (bench/run-all.sh or the benchmark's script records it)")
        return []
    launches = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("# run "):
                launches.append([])
                continue
            words = line.split()
            if len(words) < 2 or words[0] not in ("limit", "gannet", "mpi"):
                continue
            if not launches:  # a file recorded without '# run' headers is one launch
                launches.append([])
            fields = {}
            for w in words[2:]:
                if "=" in w:
                    k, v = w.split("=", 1)
                    fields[k] = v
            launches[-1].append((words[0], words[1], fields, n))
    if not launches:
        errors.append(f"{shown(path)}: no launches ('# run N:' headers or figure lines) found")
    return launches


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


def times_per_launch(path, launches, kind, figure, errors, every_launch=True):
    """The best min_ns of `figure` per launch. With every_launch False (files whose launches
    alternate programs), launches without the figure are skipped; at least one must hold it."""
    out = []
    for i, launch in enumerate(launches, 1):
        vals = [number(path, r, "min_ns", errors) for r in launch if r[0] == kind and r[1] == figure]
        vals = [v for v in vals if v is not None]
        if vals:
            out.append(min(vals))
        elif every_launch and not any(r[0] == kind and r[1] == figure for r in launch):
            errors.append(f"{path}: launch {i} has no '{kind} {figure} min_ns=...' line")
    if not every_launch and not out and launches:
        errors.append(f"{path}: no launch has a '{kind} {figure} min_ns=...' line")
    return out


def fmt_ratio(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def fmt_ns(v):
    if v < 10:
        return f"{v:.2f} ns"
    if v < 1000:
        return f"{v:.0f} ns"
    if v < 10000:
        return f"{v / 1000:.2f} µs"
    return f"{v / 1000:.1f} µs"


def fmt_range(lo, hi, f):
    a, b = f(lo), f(hi)
    if a == b:
        return a
    unit_a, unit_b = a.split(" ")[-1], b.split(" ")[-1]
    if " " in a and unit_a == unit_b:
        return f"{a.rsplit(' ', 1)[0]}–{b}"
    return f"{a}–{b}"


def log_axis(lo, hi):
    """1-2-5 ticks covering [lo, hi]: (first tick <= lo, last tick >= hi, ticks)."""
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 2)
             for m in (1, 2, 5)]
    first = max(t for t in ticks if t <= lo)
    last = min(t for t in ticks if t >= hi)
    return first, last, [t for t in ticks if first <= t <= last]


def tick_ns(v):
    return f"{v:g} ns" if v < 1000 else f"{v / 1000:g} µs"


def svg_text(x, y, s, anchor="start", size=FONT, fill="#000", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f'{escape(s)}</text>')


def svg_open(W, H, title, heading, lines):
    """The opening of a chart: the svg element, its title, a white page, a bold heading and
    the explanatory lines under it (16 px apart)."""
    return ([f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             f'font-family="sans-serif" font-size="{FONT}">',
             f"<title>{title}</title>",
             f'<rect width="{W}" height="{H}" fill="white"/>',
             svg_text(16, 22, heading, size=15, extra=' font-weight="bold"')] +
            [svg_text(16, 40 + 16 * i, line, fill="#333") for i, line in enumerate(lines)])


def chart_limits(results, errors):
    rows = []  # (group title) or (label, ref label, file, [(ratio, g, lim)])
    cache = {}
    for spec in LIMIT_ROWS:
        if spec[0] is None:
            rows.append(spec[1])
            continue
        label, fname, figure, limit, factor, ref = spec
        path = os.path.join(results, fname)
        if path not in cache:
            cache[path] = parse(path, errors)
        vals = ratio_per_launch(shown(path), cache[path], figure, limit, factor, errors)
        rows.append((label, ref, fname, vals))
    if errors:
        return None

    ratios = [v[0] for r in rows if not isinstance(r, str) for v in r[3]]
    lo, hi, ticks = log_axis(min(ratios + [1.0]) / 1.15, max(ratios + [1.0]) * 1.15)
    label_w = max(len(r[0]) for r in rows if not isinstance(r, str)) * CHAR_W + 10
    ref_w = max(len("÷ " + r[1]) for r in rows if not isinstance(r, str)) * (CHAR_W - 0.6) + 16
    L = 16 + label_w + ref_w
    PW = 380
    C1 = L + PW + 16          # ratio range column
    C2 = C1 + 92              # Gannet time column
    C3 = C2 + 150             # file column
    W = int(C3 + 150)
    ROW = 20
    T = 84
    n_rows = sum(1 for r in rows if not isinstance(r, str))
    n_groups = sum(1 for r in rows if isinstance(r, str))
    H = int(T + n_rows * ROW + n_groups * 26 + 62)
    sx = lambda v: L + PW * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = svg_open(W, H, "Gannet's on-node operations as a ratio to the physical limit measured in the same run",
                   "Gannet's on-node operations as a ratio to a physical limit measured in the same run",
                   ["Ratio = Gannet's best time in one launch ÷ the limit's best time in that launch "
                    "(lower is better; 1 = at the limit). Log scale.",
                    "Dot: one launch. Bar: from 1 to the median of the launches. "
                    "Files under bench/results/; 2-core x86-64 VM, -O3, opt codemode."])
    top, bottom = T - 6, H - 48
    for t in ticks:
        x = sx(t)
        style = 'stroke="#888" stroke-width="1.5"' if t == 1 else 'stroke="#e4e4e4"'
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" {style}/>')
        out.append(svg_text(x, bottom + 15, f"{t:g}x", anchor="middle", fill="#333"))
    out.append(svg_text(L + PW / 2, bottom + 32, "ratio to the limit (Gannet time ÷ limit time), log scale",
                        anchor="middle"))
    out.append(svg_text(C1, T - 14, "ratio, launches", fill="#555", size=11))
    out.append(svg_text(C2, T - 14, "Gannet, best per launch", fill="#555", size=11))
    out.append(svg_text(C3, T - 14, "file", fill="#555", size=11))

    y = T
    for r in rows:
        if isinstance(r, str):
            y += 8
            out.append(svg_text(16, y + 10, r, extra=' font-weight="bold"'))
            y += 18
            continue
        label, ref, fname, vals = r
        cy = y + ROW / 2
        rs = [v[0] for v in vals]
        med = statistics.median(rs)
        x1, x0 = sx(1.0), sx(med)
        colour = GANNET_COLOUR
        out.append(f'<rect x="{min(x0, x1):.1f}" y="{cy - 6:.1f}" width="{abs(x1 - x0):.1f}" height="12" '
                   f'fill="{colour}" fill-opacity="0.35"/>')
        out.append(f'<line x1="{sx(min(rs)):.1f}" y1="{cy:.1f}" x2="{sx(max(rs)):.1f}" y2="{cy:.1f}" '
                   f'stroke="#000" stroke-width="1"/>')
        for ratio, g, lim in vals:
            out.append(f'<circle cx="{sx(ratio):.1f}" cy="{cy:.1f}" r="3" fill="{colour}" stroke="#000" '
                       f'stroke-width="0.6"><title>{escape(f"{label}: {g:g} ns ÷ {ref} {lim:g} ns = {ratio:.3g}x ({fname})")}'
                       f'</title></circle>')
        out.append(svg_text(16 + label_w - 6, cy + 4, label, anchor="end"))
        out.append(svg_text(16 + label_w, cy + 4, "÷ " + ref, fill="#666", size=11))
        out.append(svg_text(C1, cy + 4, fmt_range(min(rs), max(rs), fmt_ratio) + "x"))
        gs = [v[1] for v in vals]
        out.append(svg_text(C2, cy + 4, fmt_range(min(gs), max(gs), fmt_ns)))
        out.append(svg_text(C3, cy + 4, f"{fname} ({len(vals)})", fill="#555", size=11))
        y += ROW
    out.append(svg_text(16, H - 8, "Generated by python3 bench/plot.py from bench/results/*.txt; "
                                   "(n) after a file name: launches in it.", fill="#555", size=11))
    out.append("</svg>")
    return "\n".join(out) + "\n"


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


def chart_collectives(results, errors, ops_spec=COLL_OPS, panel_spec=COLL_PANELS, text=COLL_TEXT):
    panels = []
    for title, gfile, mfile in panel_spec:
        gp, mp = os.path.join(results, gfile), os.path.join(results, mfile)
        gl, ml = parse(gp, errors), parse(mp, errors)
        paired = gfile == mfile
        ops = []
        for label, gname, mname in ops_spec:
            g = times_per_launch(shown(gp), gl, "gannet", gname, errors, every_launch=not paired)
            m = times_per_launch(shown(mp), ml, "mpi", mname, errors, every_launch=not paired)
            ops.append((label, g, m))
        panels.append((title, gfile, mfile, ops))
    if errors:
        return None
    ops_spec_ = ops_spec

    allv = [v for p in panels for op in p[3] for v in op[1] + op[2]]
    lo, hi, ticks = log_axis(min(allv) / 1.2, max(allv) * 1.2)
    L = 16 + max(len(op[0]) for op in ops_spec_) * CHAR_W + 80
    PW = 520
    C1 = L + PW + 16
    W = int(C1 + 150)
    ROW = 15
    T = 92
    H = int(T + sum(30 + len(p[3]) * (2 * ROW + 8) for p in panels) + 66)
    sx = lambda v: L + PW * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = svg_open(W, H, text["title"], text["heading"], text["notes"])
    top, bottom = T - 4, H - 54
    for t in ticks:
        x = sx(t)
        decade = abs(math.log10(t) - round(math.log10(t))) < 1e-9
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                   f'stroke="{"#d0d0d0" if decade else "#eeeeee"}"/>')
        if decade:
            out.append(svg_text(x, bottom + 15, tick_ns(t), anchor="middle", fill="#333"))
    out.append(svg_text(L + PW / 2, bottom + 32, "time per operation (best of each launch), log scale",
                        anchor="middle"))
    lx = C1
    out.append(f'<circle cx="{lx + 5}" cy="{T - 18}" r="3.5" fill="{GANNET_COLOUR}"/>')
    out.append(svg_text(lx + 14, T - 14, "Gannet"))
    out.append(f'<circle cx="{lx + 75}" cy="{T - 18}" r="3.5" fill="{MPI_COLOUR}"/>')
    out.append(svg_text(lx + 84, T - 14, "Open MPI"))

    y = T
    for title, gfile, mfile, ops in panels:
        y += 8
        files = gfile if gfile == mfile else f"{gfile}, {mfile}"
        out.append(svg_text(16, y + 10, f"{title}  (bench/results/{files})", extra=' font-weight="bold"'))
        y += 22
        for label, g, m in ops:
            out.append(svg_text(L - 70, y + ROW + 1, label, anchor="end"))
            for who, vals, colour in (("Gannet", g, GANNET_COLOUR), ("Open MPI", m, MPI_COLOUR)):
                cy = y + ROW / 2
                out.append(svg_text(L - 8, cy + 4, who, anchor="end", fill="#666", size=11))
                out.append(f'<line x1="{sx(min(vals)):.1f}" y1="{cy:.1f}" x2="{sx(max(vals)):.1f}" y2="{cy:.1f}" '
                           f'stroke="{colour}" stroke-width="2"/>')
                for v in vals:
                    out.append(f'<circle cx="{sx(v):.1f}" cy="{cy:.1f}" r="3.5" fill="{colour}" stroke="#000" '
                               f'stroke-width="0.5"><title>{escape(f"{who} {label} ({title}): {v:g} ns")}</title>'
                               f'</circle>')
                out.append(svg_text(C1, cy + 4, fmt_range(min(vals), max(vals), fmt_ns), fill=colour))
                y += ROW
            y += 8
    out.append(svg_text(16, H - 6, "Generated by python3 bench/plot.py from bench/results/*.txt " + text["footer"],
                        fill="#555", size=11))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"),
                    help="folder of benchmark outputs (default: bench/results)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"),
                    help="folder for the SVG files (default: docs/img)")
    args = ap.parse_args()

    errors = []
    charts = {"on-node-vs-limits.svg": chart_limits(args.results, errors),
              "collectives-vs-openmpi.svg": chart_collectives(args.results, errors),
              "gannet-collectives-vs-openmpi.svg": chart_collectives(args.results, errors, GCOLL_OPS, GCOLL_PANELS,
                                                                     GCOLL_TEXT)}
    if errors:
        print("bench/plot.py: cannot draw the charts; nothing written:", file=sys.stderr)
        for e in dict.fromkeys(errors):
            print("  " + e, file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for name, text in charts.items():
        path = os.path.join(args.out, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
