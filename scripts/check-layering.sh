#!/usr/bin/env bash
# Checks that includes point down the layers of docs/architecture.md:
#   include/ (public headers)   never a file of src/
#   src/core, rpc, rma, coll    never src/ext/ (an extension registers with the core instead)
#   src/transport/              only transport/ and util/ of src/, and one transport never another
#   src/util/                   nothing else of src/
#   src/ext/<name>/             never another extension
#   scripts/check-layering.sh [SOURCE_DIR]
# Prints each crossing include as file:line and exits 1 if there is one.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
bad=0
report() {
  echo "layering: $1:$2: $3" >&2
  bad=1
}
# Every quoted include of a file, as "file line target".
includes() {
  grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$@" 2>/dev/null |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1 \2 \3/'
}
src_rooms='^(core|rpc|rma|coll|ext|transport|util)/'

while read -r file line target; do
  [[ $target =~ $src_rooms ]] && report "$file" "$line" "a public header includes src/$target"
done < <(includes include)

while read -r file line target; do
  [[ $target == ext/* ]] && report "$file" "$line" "${file#src/} includes $target: the core never names an extension (src/core/hooks.hpp)"
done < <(includes src/core src/rpc src/rma src/coll)

while read -r file line target; do
  if [[ $target =~ ^(core|rpc|rma|coll|ext)/ ]]; then
    report "$file" "$line" "a transport includes $target, which is above it"
  elif [[ $target =~ ^transport/(smp|mpi|loopback)/ ]]; then
    here=$(echo "$file" | sed -nE 's#^src/transport/(smp|mpi|loopback)/.*#\1#p')
    there=$(echo "$target" | sed -nE 's#^transport/(smp|mpi|loopback)/.*#\1#p')
    if [[ $here != "$there" && ! ($file == src/transport/transport.cpp) ]]; then
      report "$file" "$line" "${file#src/} includes another transport's $target"
    fi
  fi
done < <(includes src/transport)

while read -r file line target; do
  [[ $target =~ $src_rooms && $target != util/* ]] && report "$file" "$line" "util includes $target, which is above it"
done < <(includes src/util)

for ext in src/ext/*/; do
  name=$(basename "$ext")
  while read -r file line target; do
    [[ $target == ext/* && $target != ext/$name/* ]] && report "$file" "$line" "extension $name includes another extension's $target"
  done < <(includes "$ext")
done

if ((bad)); then
  echo "layering: includes that cross the layers of docs/architecture.md (see above)" >&2
  exit 1
fi
echo "layering: OK"
