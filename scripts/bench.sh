#!/usr/bin/env bash
# `make bench`: benchmarks that print figures (never pass/fail). Models come
# from models/generate.py, cached in the build tree.
set -euo pipefail
BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODELS="$BUILD_DIR/models"

/usr/bin/python3 "$ROOT/models/generate.py" --out "$MODELS" \
  distilbert-opset14 distilbert-opset17 bert-mini-opset14

ENC="input_ids=1x128,attention_mask=1x128"
echo "== ONNX import (parse, check, import, fold, verify; no printing)"
"$BUILD_DIR/bin/bench-import" \
  "$MODELS/distilbert-opset14.onnx:$ENC" \
  "$MODELS/distilbert-opset17.onnx:$ENC" \
  "$MODELS/bert-mini-opset14.onnx:$ENC"
