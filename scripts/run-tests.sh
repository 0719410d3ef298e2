#!/usr/bin/env bash
# `make test`'s last step: ctest over the build, then the slowest tests of
# the run (scripts/slowest_tests.py), then ctest's own summary once more, so
# that the run still ends with it ("N% tests passed, ..." down to "Total
# Test time"; the tests that did not run are counted, and the failed ones
# listed, before it). Exits with ctest's status.
# Usage: run-tests.sh BUILD_DIR JOBS [CTEST_ARGS...]
set -uo pipefail
build=$1
jobs=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
log="$build/Testing/make-test.log"
# OpenMP's idle threads sleep instead of spinning (libgomp's default spins
# each some 300000 times after every parallel region): ctest and lit run
# several programs at once on few cores, and the spinning took the CPU the
# others needed (RuntimeSparseTests' f32 suite: 27.0 s wall, 19.7 s CPU by
# default; 8.3 s and 4.3 s passive). test/lit.cfg.py sets the same.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# glibc's malloc advises large blocks to transparent huge pages: fewer page
# faults for the tests' big models and arenas (test/lit.cfg.py sets the same).
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1}
# The suite writes some 12 GB under the build directory (the generated
# corpus, compiled models, ONNX Runtime's outputs, the tests' work files); on
# a full disk tests fail with write errors that look like anything else.
free_kb=$(df -Pk "$build" | awk 'NR == 2 { print $4 }')
if [ -n "$free_kb" ] && [ "$free_kb" -lt $((16 * 1024 * 1024)) ]; then
  echo "run-tests.sh: warning: $((free_kb / 1024 / 1024)) GB free under $build;" \
    "the tests write about 12 GB there: free some space if tests fail" \
    "writing files" >&2
fi
mkdir -p "$build/Testing" "$build/test/results"
rm -f "$build"/test/results/*.xml
(cd "$build" && ctest --output-on-failure -j "$jobs" "$@") | tee "$log"
status=${PIPESTATUS[0]}
echo
/usr/bin/python3 "$root/scripts/slowest_tests.py" "$build"
echo
# ctest ends its summary with the tests that did not run (gtests of tiers
# this CPU lacks, tier suites that would repeat the native run): counted
# here, listed in ctest's output above, so that the last line stays the
# summary's "Total Test time".
skipped=$(awk '/^The following tests did not run:/ { on = 1; next }
               on && /^[[:space:]]*[0-9]+ - / { n++; next }
               on { on = 0 }
               END { print n + 0 }' "$log")
if [ "${skipped:-0}" -gt 0 ]; then
  echo "$skipped tests did not run (skipped: a tier this CPU lacks, or a tier suite that would repeat the native run; ctest's list above)"
  echo
fi
# The failed tests, if any, again just above the summary.
sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$log" |
  grep -v '^Errors while running CTest' || true
sed -n '/^[0-9]*% tests passed/,/^Total Test time/p' "$log"
exit "$status"
