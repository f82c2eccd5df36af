# Shared by the benchmark scripts (sourced, not run): the header line of a results file and
# the loop that fills it. The caller sets `build` (the build directory) and `runs` (launches
# per benchmark) first; this sets `results` (bench/results), `run` (the build's gannet-run)
# and lets mpirun run as root (containers and CI run as root).
results=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/results
run=$build/tools/gannet-run
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# header NAME [FIELD...]: the machine, compiler and date, then any extra fields.
header() {
  local name=$1; shift
  echo "# $name: date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc)" \
       "cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')\"" \
       "gxx=\"$(g++ --version | head -1)\"" "$@" "runs=$runs"
}

# record NAME COMMAND...: runs COMMAND `runs` times and writes its output to results/NAME.txt.
record() {
  local name=$1; shift
  local tmp
  tmp=$(mktemp)
  header "$name" >"$tmp"
  for i in $(seq "$runs"); do
    echo "# run $i: $*" >>"$tmp"
    "$@" >>"$tmp"
  done
  mv "$tmp" "$results/$name.txt"
  echo "wrote $results/$name.txt"
}

# record_alternating NAME COMMAND [-- COMMAND...]: runs the "--"-separated commands `runs`
# times each, alternately (variants compared in one file see the same machine), with stderr.
record_alternating() {
  local name=$1; shift
  local tmp cmds=() cur=()
  for a in "$@"; do
    if [ "$a" = "--" ]; then cmds+=("${cur[*]}"); cur=(); else cur+=("$a"); fi
  done
  cmds+=("${cur[*]}")
  tmp=$(mktemp)
  header "$name" "mpi=\"$(mpirun --version 2>/dev/null | head -1)\"" >"$tmp"
  for i in $(seq "$runs"); do
    for c in "${cmds[@]}"; do
      echo "# run $i: $c" >>"$tmp"
      eval "$c" >>"$tmp" 2>&1
    done
  done
  mv "$tmp" "$results/$name.txt"
  echo "wrote $results/$name.txt"
}
