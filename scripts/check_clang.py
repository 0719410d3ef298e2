#!/usr/bin/python3
"""Compiles every translation unit of a CMake build with clang-19, as far as
LLVM IR, so that code GCC accepts but clang rejects cannot land (ctest's
`clang-compile`, docs/building.md). The project builds with GCC; the
sanitizer and fuzzing build (`make check-sanitize`, `make fuzz`) with clang.

  check_clang.py [--jobs N] [--exclude PREFIX ...] COMPILE_COMMANDS.json ...

Each command of the compile databases runs again with clang++-19 (clang-19
for C), its output sent to /dev/null: `-S -emit-llvm -O0`, so clang's code
generation checks run too (an intrinsic inlined into a function without its
target feature is diagnosed there, not by -fsyntax-only), without the cost
of optimising. Warnings are GCC's business in the real build and are
silenced here; errors are printed with the file that failed. Exit 1 if any
file fails, 2 on a usage error.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import time

# Flags GCC accepts and clang rejects (LLVM's CMake adds the first for GCC).
GCC_ONLY = {"-fno-lifetime-dse"}


def clang_command(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    cxx = args[0].endswith("++") or entry["file"].endswith((".cpp", ".cc", ".cxx"))
    out = ["clang++-19" if cxx else "clang-19"]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a in GCC_ONLY or a.startswith("-fdiagnostics-color"):
            continue
        out.append(a)
    return out + ["-S", "-emit-llvm", "-O0", "-o", os.devnull, "-w",
                  "-fno-color-diagnostics"]


def check(entry):
    start = time.monotonic()
    p = subprocess.run(clang_command(entry), cwd=entry["directory"],
                       capture_output=True, text=True)
    return entry["file"], p.returncode, p.stderr, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--exclude", action="append", default=[],
                    help="skip files under this path (repeatable)")
    ap.add_argument("databases", nargs="+")
    a = ap.parse_args()
    entries, seen = [], set()
    for db in a.databases:
        try:
            with open(db) as f:
                items = json.load(f)
        except (OSError, ValueError) as e:
            print("check_clang.py: error: %s: %s" % (db, e), file=sys.stderr)
            return 1
        for e in items:
            path = os.path.realpath(os.path.join(e["directory"], e["file"]))
            if path in seen or any(path.startswith(os.path.realpath(x)) for x in a.exclude):
                continue
            seen.add(path)
            entries.append(e)
    if not entries:
        print("check_clang.py: error: no files to compile in " + " ".join(a.databases),
              file=sys.stderr)
        return 1
    start = time.monotonic()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for path, rc, err, _ in pool.map(check, entries):
            if rc:
                failed += 1
                print("clang-19 rejects %s:\n%s" % (path, err.rstrip()), flush=True)
    print("clang-19: %d files compiled to LLVM IR, %d failed, %.0f s (%d jobs)"
          % (len(entries), failed, time.monotonic() - start, a.jobs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
