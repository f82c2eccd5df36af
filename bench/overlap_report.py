#!/usr/bin/env python3
"""Tables and a plot from bench/overlap.sh's raw figures (bench/results/overlap.tsv).

usage: overlap_report.py OVERLAP_TSV SVG_OUT

Prints, per case (ranks, simulated latency, kernel), the min and median time per iteration of
each variant, the speedup of auto over blocking, auto against manual, and auto against the
compute-only limit; then the issue's targets; and writes an SVG plot of the speedup of auto
(and manual) over blocking against the simulated latency, one line per kernel.
"""
import math
import statistics
import sys
from collections import defaultdict

KERNELS = ["halo", "cg", "gups", "bt", "burst"]
FOUR = ["halo", "cg", "gups", "bt"]  # the four kernels (burst is the put microbenchmark)


def load(path):
    runs = defaultdict(list)
    with open(path) as f:
        next(f)
        for line in f:
            where, ranks, lat, kernel, variant, us = line.rstrip("\n").split("\t")
            if us:
                runs[(where, int(ranks), float(lat), kernel, variant)].append(float(us))
    return runs


def fig(runs, key):
    v = runs.get(key)
    return (min(v), statistics.median(v)) if v else (float("nan"), float("nan"))


def table(runs):
    print("## off-node through MPI (GANNET_BYPASS=0), simulated network; us per iteration, min (median)")
    print()
    print("| ranks | latency us | kernel | blocking | auto | manual | compute (limit) | auto vs blocking | auto / manual | auto / limit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cases = sorted({(k[1], k[2], k[3]) for k in runs if k[0] == "mpi"}, key=lambda c: (c[0], c[1], KERNELS.index(c[2])))
    for n, lat, kernel in cases:
        b, a, m, c = (fig(runs, ("mpi", n, lat, kernel, v)) for v in ("blocking", "auto", "manual", "compute"))
        print(f"| {n} | {lat:g} | {kernel} | {b[0]:.1f} ({b[1]:.1f}) | {a[0]:.1f} ({a[1]:.1f}) | {m[0]:.1f} ({m[1]:.1f}) "
              f"| {c[0]:.1f} | {b[0] / a[0]:.2f}x | {a[0] / m[0]:.2f} | {a[0] / c[0]:.2f} |")
    print()
    print("## smp (every peer on this machine: plain copies), 2 ranks; us per iteration, min (median)")
    print()
    print("| kernel | layer off | layer on | on / off |")
    print("|---|---|---|---|")
    for kernel in KERNELS:
        b, a = fig(runs, ("smp", 2, 0.0, kernel, "blocking")), fig(runs, ("smp", 2, 0.0, kernel, "auto"))
        print(f"| {kernel} | {b[0]:.1f} ({b[1]:.1f}) | {a[0]:.1f} ({a[1]:.1f}) | {a[0] / b[0]:.3f} |")
    print()
    print("## targets")
    for n in (2, 4):
        sp = [fig(runs, ("mpi", n, 5.0, k, "blocking"))[0] / fig(runs, ("mpi", n, 5.0, k, "auto"))[0] for k in FOUR]
        near = sum(1 for k in FOUR
                   if fig(runs, ("mpi", n, 5.0, k, "auto"))[0] <= 1.10 * fig(runs, ("mpi", n, 5.0, k, "manual"))[0])
        print(f"- {n} ranks, 5 us: average speedup of auto over blocking {100 * (statistics.mean(sp) - 1):.0f}% "
              f"(geometric mean {100 * (statistics.geometric_mean(sp) - 1):.0f}%) "
              f"({', '.join(f'{k} {s:.2f}x' for k, s in zip(FOUR, sp))}); within 10% of manual on {near} of 4")
        for k in ("cg", "burst"):
            s = fig(runs, ("mpi", n, 10.0, k, "blocking"))[0] / fig(runs, ("mpi", n, 10.0, k, "auto"))[0]
            print(f"- {n} ranks, 10 us: {k} auto {s:.2f}x faster than blocking")
    worst = max(fig(runs, ("smp", 2, 0.0, k, "auto"))[0] / fig(runs, ("smp", 2, 0.0, k, "blocking"))[0] for k in KERNELS)
    print(f"- smp: auto at most {100 * (worst - 1):+.1f}% against the layer off (worst kernel, min of launches)")


def plot(runs, path):
    """Speedup over blocking against simulated latency, 2 ranks; solid auto, dashed manual."""
    colours = {"halo": "#1f77b4", "cg": "#d62728", "gups": "#2ca02c", "bt": "#9467bd", "burst": "#ff7f0e"}
    lats = sorted({k[2] for k in runs if k[0] == "mpi" and k[1] == 2})
    series = {}
    for kernel in KERNELS:
        for variant in ("auto", "manual"):
            pts = []
            for lat in lats:
                b = fig(runs, ("mpi", 2, lat, kernel, "blocking"))[0]
                x = fig(runs, ("mpi", 2, lat, kernel, variant))[0]
                if b == b and x == x:
                    pts.append((lat, b / x))
            series[(kernel, variant)] = pts
    ymax = max([s for pts in series.values() for _, s in pts] + [2.0])
    W, H, L, R, T, B = 720, 420, 60, 150, 40, 50
    pw, ph = W - L - R, H - T - B
    xmax = max(lats) if lats else 20.0
    top = math.log2(ymax * 1.15)
    bottom = math.log2(0.8)
    sx = lambda v: L + pw * v / xmax
    sy = lambda v: T + ph * (1 - (math.log2(v) - bottom) / (top - bottom))  # log scale
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="22" font-size="14">Speedup over blocking copies, 2 ranks off-node (solid: automatic, dashed: hand-written)</text>']
    for i in (1, 1.5, 2, 3, 5, 10, 20, 50):
        if i > ymax * 1.15:
            break
        y = sy(i)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 8}" y="{y + 4:.1f}" text-anchor="end">{i:g}x</text>')
    for lat in lats:
        x = sx(lat)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{T + ph}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{T + ph + 16}" text-anchor="middle">{lat:g}</text>')
    out.append(f'<text x="{L + pw / 2}" y="{H - 10}" text-anchor="middle">simulated network latency (us, GANNET_SIM_LATENCY_US)</text>')
    out.append(f'<line x1="{L}" y1="{sy(1):.1f}" x2="{L + pw}" y2="{sy(1):.1f}" stroke="#888" stroke-width="1.5"/>')
    for n, kernel in enumerate(KERNELS):
        c = colours[kernel]
        for variant, dash in (("auto", ""), ("manual", ' stroke-dasharray="5,4"')):
            pts = series[(kernel, variant)]
            if len(pts) > 1:
                d = " ".join(f"{sx(a):.1f},{sy(s):.1f}" for a, s in pts)
                out.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        y = T + 10 + 18 * n
        out.append(f'<line x1="{L + pw + 15}" y1="{y}" x2="{L + pw + 40}" y2="{y}" stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{L + pw + 46}" y="{y + 4}">{kernel}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    runs = load(sys.argv[1])
    table(runs)
    plot(runs, sys.argv[2])


if __name__ == "__main__":
    main()
