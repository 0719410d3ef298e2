#!/usr/bin/env bash
# Configures and builds runtime/ as a project of its own, the way an
# application embedding only the runtime would, and fails if any of its
# compile commands sees LLVM or MLIR headers. Run by ctest
# (runtime-standalone); usage: check-runtime-standalone.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
out=$2
cmake -S "$src/runtime" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out.configure.log" 2>&1 || {
  cat "$out.configure.log"; echo "runtime-standalone: configure failed"; exit 1; }
cmake --build "$out" -j "$(nproc)" || { echo "runtime-standalone: build failed"; exit 1; }
if grep -nE -- '(-I|-isystem) ?[^ ]*(llvm|mlir)' "$out/compile_commands.json"; then
  echo "runtime-standalone: a runtime target has LLVM/MLIR on its include path"
  exit 1
fi
echo "runtime-standalone: ok ($(grep -c '"file"' "$out/compile_commands.json") files, no LLVM/MLIR include paths)"
