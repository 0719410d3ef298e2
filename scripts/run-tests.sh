#!/usr/bin/env bash
# `make test`'s last step: ctest over the build, then the slowest tests of
# the run (scripts/slowest_tests.py), then ctest's own summary once more, so
# that the run still ends with it ("N% tests passed, ..." down to "Total
# Test time"). Exits with ctest's status.
# Usage: run-tests.sh BUILD_DIR JOBS [CTEST_ARGS...]
set -uo pipefail
build=$1
jobs=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
log="$build/Testing/make-test.log"
mkdir -p "$build/Testing" "$build/test/results"
rm -f "$build"/test/results/*.xml
(cd "$build" && ctest --output-on-failure -j "$jobs" "$@") | tee "$log"
status=${PIPESTATUS[0]}
echo
/usr/bin/python3 "$root/scripts/slowest_tests.py" "$build"
echo
sed -n '/^[0-9]*% tests passed/,$p' "$log"
exit "$status"
