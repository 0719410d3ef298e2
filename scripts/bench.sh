#!/usr/bin/env bash
# `make bench`: every benchmark the build produced, printing figures (never
# pass/fail). Benchmarks are Google Benchmark binaries named bin/bench-*.
set -euo pipefail
BUILD_DIR=${1:-build}
shopt -s nullglob
benches=("$BUILD_DIR"/bin/bench-*)
if [ ${#benches[@]} -eq 0 ]; then
  echo "bench: no benchmarks in $BUILD_DIR/bin" >&2
  exit 1
fi
for b in "${benches[@]}"; do
  echo "== $(basename "$b")"
  "$b"
done
