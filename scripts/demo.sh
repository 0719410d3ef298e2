#!/usr/bin/env bash
# `make demo`: the main job on a generated example model. Today: generate the
# BERT-mini corpus model, import it into the osc dialect with static shapes,
# fuse it, and show the fusion report. Later stages (compile, run, profile)
# extend this.
set -euo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD_DIR/bin"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"

echo "== generating the BERT-mini corpus model (cached)"
/usr/bin/python3 "$ROOT/models/generate.py" --out "$BUILD_DIR/models" bert-mini-opset14
MODEL="$BUILD_DIR/models/bert-mini-opset14.onnx"

echo
echo "== opscope-translate --import-onnx $MODEL --input-shape input_ids=1x128 --input-shape attention_mask=1x128"
"$BIN/opscope-translate" --import-onnx "$MODEL" \
  --input-shape input_ids=1x128 --input-shape attention_mask=1x128 \
  --elide-weights --print-locations --timing -o "$OUT/bert-mini.mlir"
echo
echo "== osc ops after import (shape sub-graphs already folded)"
grep -oE '= osc\.[a-z_]+( [a-z_]+)?' "$OUT/bert-mini.mlir" | sed 's/^= //' |
  sort | uniq -c | sort -rn
echo
echo "== the first encoder layer's attention, with ONNX node names as locations"
"$BIN/opscope-opt" "$OUT/bert-mini.mlir" --mlir-print-debuginfo --mlir-print-local-scope \
  > "$OUT/bert-mini-locations.mlir"
grep 'encoder/layer.0/attention/self' "$OUT/bert-mini-locations.mlir" | head -n 12 |
  sed -E 's/\(\"[^"]*":0:0\)//' | cut -c1-160
echo
echo "== after opscope-opt -osc-optimize (fold, fuse, CSE): the fusion report"
# Fusion rewrites weights (e.g. transposes them to N x K), so it needs the
# import with its weights, not the elided copy shown above.
"$BIN/opscope-translate" --import-onnx "$MODEL" \
  --input-shape input_ids=1x128 --input-shape attention_mask=1x128 |
  "$BIN/opscope-opt" -osc-optimize -osc-fusion-report -mlir-print-debuginfo \
    -mlir-elide-resource-strings-if-larger=64 -o "$OUT/bert-mini-fused.mlir" \
    > "$OUT/fusion-report.txt"
head -n 24 "$OUT/fusion-report.txt" | cut -c1-200
echo "..."
echo
echo "IR written to $OUT/bert-mini.mlir (imported) and $OUT/bert-mini-fused.mlir (fused);"
echo "the whole report is in $OUT/fusion-report.txt"
