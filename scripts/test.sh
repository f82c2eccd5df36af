#!/usr/bin/env bash
# Builds Gannet and runs the whole test suite (unit, multi-rank through gannet-run, launcher
# failure paths, install/packaging).
#   scripts/test.sh [BUILD_DIR] [extra cmake -D options...]
# e.g. scripts/test.sh build-asan -DGANNET_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
shift || true
"$src/scripts/deps.sh"
# Tests, examples and benchmarks are off in a plain build; the caller's options come last and win.
cmake -S "$src" -B "$build" -DGANNET_BUILD_TESTS=ON -DGANNET_BUILD_EXAMPLES=ON -DGANNET_BUILD_BENCH=ON "$@"
cmake --build "$build" -j"$(nproc)"
# GANNET_CTEST_ARGS: extra ctest arguments, e.g. "-E install" to leave out a test.
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 300 ${GANNET_CTEST_ARGS:-}
