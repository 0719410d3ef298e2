#!/usr/bin/env bash
# Configures runtime/ as a project of its own, the way an application
# embedding only the runtime would, fails if any of its compile commands
# sees LLVM or MLIR headers, and compiles every one of its files (with
# clang-19, to LLVM IR: scripts/check_clang.py), which fails if a runtime
# file includes an LLVM or MLIR header. The real build has compiled the same
# files with GCC already; this adds the layering and clang without a second
# full build. Run by ctest (runtime-standalone); usage:
# check-runtime-standalone.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
out=$2
cmake -S "$src/runtime" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$out.configure.log" 2>&1 || {
  cat "$out.configure.log"; echo "runtime-standalone: configure failed"; exit 1; }
if grep -nE -- '(-I|-isystem) ?[^ ]*(llvm|mlir)' "$out/compile_commands.json"; then
  echo "runtime-standalone: a runtime target has LLVM/MLIR on its include path"
  exit 1
fi
/usr/bin/python3 "$src/scripts/check_clang.py" --base-dir "$src" "$out/compile_commands.json" || {
  echo "runtime-standalone: a runtime file does not compile on its own (above)"; exit 1; }
echo "runtime-standalone: ok ($(grep -c '"file"' "$out/compile_commands.json") files, no LLVM/MLIR include paths)"
