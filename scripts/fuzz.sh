#!/usr/bin/env bash
# Runs every libFuzzer harness for SECONDS each, one after another (nice'd),
# from its seed corpus (scripts/fuzz_seeds.py) and the corpus earlier runs
# grew. `make fuzz` calls it after building the sanitizer build.
#
#   scripts/fuzz.sh BUILD_DIR [SECONDS] [HARNESS ...]
#
# Crashes land in BUILD_DIR/fuzz/<harness>/crashes/; reduce one, fix the
# bug, and keep it as test/fuzz-regressions/<harness>/<name> (make test
# replays those). A summary line per harness (executions, executions per
# second, corpus size, crashes) goes to BUILD_DIR/fuzz/summary.txt.
set -euo pipefail

build=$(cd "$1" && pwd)
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz-onnx-import fuzz-trace fuzz-npy fuzz-plan fuzz-kernels)
src=$(cd "$(dirname "$0")/.." && pwd)
work="$build/fuzz"
mkdir -p "$work"

/usr/bin/python3 "$src/scripts/fuzz_seeds.py" --src "$src" --build "$build" \
  --out "$work/seeds"

# Leaks are reported by the harnesses' own runs only when they grow with
# the input; MLIR's and oneDNN's process-lifetime caches are not bugs.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:detect_odr_violation=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
: > "$work/summary.txt.new"
for h in "${harnesses[@]}"; do
  dir="$work/$h"
  mkdir -p "$dir/corpus" "$dir/crashes"
  echo "fuzz: $h for ${seconds}s"
  set +e
  nice -n 10 "$build/bin/$h" "$dir/corpus" "$work/seeds/$h" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
    -max_len=1048576 -print_final_stats=1 \
    -artifact_prefix="$dir/crashes/" > "$dir/log.txt" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log.txt" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log.txt" | tail -1)
  crashes=$(find "$dir/crashes" -type f | wc -l)
  line="$h: ${seconds}s, ${execs:-?} executions, ${rate:-?} exec/s, corpus $(ls "$dir/corpus" | wc -l) files, $crashes crash files, exit $rc"
  echo "$line" | tee -a "$work/summary.txt.new"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    tail -40 "$dir/log.txt"
  fi
done
mv "$work/summary.txt.new" "$work/summary.txt"
exit $status
