#!/usr/bin/env bash
# Installs what building and testing Gannet needs on Debian 12, if it is missing.
# Runs apt-get as root (or through sudo). Safe to run again: it installs nothing present.
set -euo pipefail
# openmpi-bin and libopenmpi-dev: the MPI transport and its tests.
# python3: gannet-trace and its tests, bench/plot.py. binutils: addr2line for crash backtraces.
pkgs=(g++ cmake make libgtest-dev pkg-config util-linux gawk python3 binutils openmpi-bin libopenmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
