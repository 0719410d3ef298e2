#!/usr/bin/env bash
# `make demo`: the main job on the bundled example. Today that is the example
# encoder layer round-tripping through opscope-opt with the osc dialect; later
# stages (import, compile, profile) extend this script as they land.
set -euo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OPT="$BUILD_DIR/bin/opscope-opt"

echo "== opscope-opt --show-dialects"
"$OPT" --show-dialects
echo
echo "== examples/encoder_layer.mlir, parsed, verified, canonicalized and printed"
"$OPT" "$ROOT/examples/encoder_layer.mlir" -canonicalize -cse
