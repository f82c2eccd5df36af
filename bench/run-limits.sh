#!/bin/sh
# Runs an already built gannet-bench-limits several times (separate launches:
# figures swing between launches, so one launch is not enough) and writes all
# outputs, under a header naming the machine and compiler, to
# bench/results/limits.txt.  Builds nothing.
#
#   bench/run-limits.sh [-n RUNS] [-o FILE] BINARY [ARGS...]
#
# RUNS defaults to 3; ARGS (e.g. --repeats 15) go to every launch.
set -eu

runs=3
out="$(cd "$(dirname "$0")" && pwd)/results/limits.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "run-limits.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: run-limits.sh [-n RUNS] [-o FILE] BINARY [ARGS...]" >&2; exit 2; }
bin="$1"; shift
[ -x "$bin" ] || { echo "run-limits.sh: $bin is not an executable" >&2; exit 2; }
case "$runs" in ''|*[!0-9]*) echo "run-limits.sh: -n needs a number" >&2; exit 2 ;; esac

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
gxx=$(g++ --version 2>/dev/null | head -n 1) || true

# Write to a temporary file and rename, so a failed run never leaves a
# truncated results file behind.
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
  echo "# gannet limits: date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc) cpu=\"${cpu:-unknown}\" gxx=\"${gxx:-unknown}\" runs=$runs args=\"$*\""
  i=1
  while [ "$i" -le "$runs" ]; do
    echo "# run $i"
    "$bin" "$@"
    i=$((i + 1))
  done
} > "$tmp"
mv "$tmp" "$out"
trap - EXIT
cat "$out"
