#!/usr/bin/env bash
# `make amx-bundle`: a folder (under 64 MiB) that measures AMX on a bare
# x86-64 Linux with no Debian packages: the runtime tools, every shared
# library they load (glibc's loader included, so the host's glibc version
# does not matter), BERT-mini builds, and run-amx.sh (docs/benchmarks.md,
# "AMX"). The folder is written next to its final place and renamed into
# it, so a failed build never leaves a half bundle.
#
#   scripts/make-amx-bundle.sh BUILD_DIR [OUT_DIR]   (default BUILD_DIR/amx-bundle)
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: make-amx-bundle.sh BUILD_DIR [OUT_DIR]}" && pwd)
OUT=${2:-$BUILD_DIR/amx-bundle}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD_DIR/bin"
# What the bundle may weigh: the device machine carries 64 MiB in all.
LIMIT_BYTES=$((64 * 1024 * 1024))

# The tools that run a compiled model or measure kernels; none links MLIR.
# (opscope-bench and opscope-compile need the compiler and stay out.)
TOOLS="opscope-run opscope-tune bench-sparse bench-kernels"
for t in $TOOLS opscope-compile; do
  [ -x "$BIN/$t" ] || { echo "make-amx-bundle: error: $BIN/$t is missing (build first: make build)" >&2; exit 1; }
done

mkdir -p "$(dirname "$OUT")"
TMP=$(mktemp -d "$OUT.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin" "$TMP/lib" "$TMP/models"

for t in $TOOLS; do
  cp "$BIN/$t" "$TMP/bin/$t"
  strip --strip-unneeded "$TMP/bin/$t"
done

# Every library the tools load, resolved as this machine resolves them,
# and the loader itself (ldd prints it without "=>").
for t in $TOOLS; do
  ldd "$BIN/$t" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  cp -L "$lib" "$TMP/lib/$name"
  chmod u+w "$TMP/lib/$name"
  strip --strip-unneeded "$TMP/lib/$name" 2>/dev/null || true
done
# oneDNN is 40 MB of the 64; gzip (on every Linux) takes it to 11 MB and
# run-amx.sh unpacks it once.
gzip -9 -n "$TMP/lib/libdnnl.so.2"

# BERT-mini's layers with a small vocabulary (models/generate.py): fp32,
# bf16, int8 and the 80% 1x4-pruned twin in int8 (the sparse build AMX's
# int8 dense competes with), seq 128, batch 1. With the working tree the
# device machine carries, this fills about 61 of its 64 MiB.
MODELS="$BUILD_DIR/models"
/usr/bin/python3 "$ROOT/models/generate.py" --out "$MODELS" \
  bert-mini-vocab2k-opset14 bert-mini-vocab2k-opset14-sparse > /dev/null
SHAPES="--input-shape input_ids=1x128 --input-shape attention_mask=1x128"
compile() {  # NAME ONNX [FLAGS...]
  local name=$1 onnx=$2
  shift 2
  # shellcheck disable=SC2086
  "$BIN/opscope-compile" "$MODELS/$onnx.onnx" $SHAPES "$@" -o "$TMP/models/$name.so" 2> "$TMP/models/$name.log" || {
    cat "$TMP/models/$name.log" >&2
    echo "make-amx-bundle: error: compiling $name failed" >&2
    exit 1
  }
  rm -f "$TMP/models/$name.log"
}
compile bert-mini-fp32 bert-mini-vocab2k-opset14
compile bert-mini-bf16 bert-mini-vocab2k-opset14 --precision bf16
# Random calibration sets: the bundle measures speed and AMX agreement with
# the fp32 build of the same weights, not calibrated accuracy.
compile bert-mini-int8 bert-mini-vocab2k-opset14 --precision int8 --calibration-inputs random
compile bert-mini-sparse80-int8 bert-mini-vocab2k-opset14-sparse --precision int8 --calibration-inputs random

cp "$ROOT/scripts/run-amx.sh" "$TMP/run-amx.sh"
chmod +x "$TMP/run-amx.sh"
{
  echo "opscope AMX bundle, made $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/make-amx-bundle.sh"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "built on: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  "$BIN/opscope-run" --version 2>&1 | head -3
  echo "run: OUT=DIR ./run-amx.sh [--quick]"
} > "$TMP/MANIFEST"

size=$(du -sb "$TMP" | cut -f1)
if [ "$size" -gt "$LIMIT_BYTES" ]; then
  echo "make-amx-bundle: error: the bundle is $((size / 1048576)) MiB, over 64 MiB" >&2
  exit 1
fi
rm -rf "$OUT"
mv "$TMP" "$OUT"
trap - EXIT
echo "wrote $OUT ($(du -sh "$OUT" | cut -f1)): OUT=DIR $OUT/run-amx.sh"
