#!/usr/bin/env bash
# `make demo`: the main job on a generated example model. Generates the
# BERT-mini corpus model, shows its import into the osc dialect and the
# fusion report, compiles it with probes into a native library, runs it
# (checking the output against ONNX Runtime), and profiles it: a trace for
# Perfetto / opscope-analyze, the per-op CSV and the terminal summary.
set -euo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD_DIR/bin"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"
SHAPES=(--input-shape input_ids=1x128 --input-shape attention_mask=1x128)

echo "== generating the BERT-mini corpus model (cached)"
/usr/bin/python3 "$ROOT/models/generate.py" --out "$BUILD_DIR/models" bert-mini-opset14
MODEL="$BUILD_DIR/models/bert-mini-opset14.onnx"

echo
echo "== opscope-translate --import-onnx (static shapes; ONNX node names kept as locations)"
"$BIN/opscope-translate" --import-onnx "$MODEL" "${SHAPES[@]}" \
  --elide-weights -o "$OUT/bert-mini.mlir"
grep -oE '= osc\.[a-z_]+( [a-z_]+)?' "$OUT/bert-mini.mlir" | sed 's/^= //' |
  sort | uniq -c | sort -rn | head -n 8

echo
echo "== opscope-compile --print-fusion: the ops after fusion, before anything runs"
"$BIN/opscope-compile" "$MODEL" "${SHAPES[@]}" --print-fusion > "$OUT/fusion-report.txt"
head -n 12 "$OUT/fusion-report.txt" | cut -c1-180
echo "... ($(($(wc -l < "$OUT/fusion-report.txt") - 1)) ops; whole report in $OUT/fusion-report.txt)"

echo
echo "== opscope-compile -o $OUT/bert-mini.so (probes are compiled in by default)"
"$BIN/opscope-compile" "$MODEL" "${SHAPES[@]}" -o "$OUT/bert-mini.so" --timing 2>&1 |
  grep -E 'Total|load|optimize|write weights|lower|codegen' | grep -v "'" || true
ls -l "$OUT/bert-mini.so" "$OUT/bert-mini.weights" | awk '{print "  " $5 " bytes  " $9}'

echo
echo "== the same inputs through ONNX Runtime (the reference)"
/usr/bin/python3 "$ROOT/scripts/make_inputs.py" "$MODEL" --input-shape input_ids=1x128 \
  --input-shape attention_mask=1x128 --out "$OUT/inputs" > /dev/null
node "$ROOT/scripts/ort_run.js" "$MODEL" --input input_ids="$OUT/inputs/input_ids.npy" \
  --input attention_mask="$OUT/inputs/attention_mask.npy" --output-dir "$OUT/ort" \
  --threads 1 --iterations 20 --warmup 5

echo
echo "== opscope-run --profile (one thread): outputs checked against ONNX Runtime"
"$BIN/opscope-run" "$OUT/bert-mini.so" --input input_ids="$OUT/inputs/input_ids.npy" \
  --input attention_mask="$OUT/inputs/attention_mask.npy" \
  --expect last_hidden_state="$OUT/ort/last_hidden_state.npy" --rtol 1e-3 --atol 1e-4 \
  --threads 1 --iterations 20 --warmup 5 --profile \
  --trace "$OUT/bert-mini-trace.json" --csv "$OUT/bert-mini-profile.csv"

echo
echo "== opscope-analyze: ops aggregated by type, measured iterations only"
"$BIN/opscope-analyze" "$OUT/bert-mini-trace.json" --label measure \
  --aggregate-by type --print-only ops -t 8

echo
echo "Trace (open in https://ui.perfetto.dev or chrome://tracing): $OUT/bert-mini-trace.json"
echo "Per-op CSV: $OUT/bert-mini-profile.csv"
