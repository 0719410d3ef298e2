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

Each compile goes through ccache where it is installed (--no-cache: not),
with its paths taken relative to --base-dir (default: the current
directory's git checkout), so an unchanged file is not compiled again, not
even in a fresh clone at another path: a file whose source, headers, flags
or compiler changed is a cache miss and compiles. Failed compiles are never
cached. The IR goes to a temporary file that is deleted (ccache does not
cache output to /dev/null); compressed, the cache holds about 60 MB.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# Flags GCC accepts and clang rejects (LLVM's CMake adds the first for GCC).
GCC_ONLY = {"-fno-lifetime-dse"}


def clang_command(entry, output=os.devnull):
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
    return out + ["-S", "-emit-llvm", "-O0", "-o", output, "-w",
                  "-fno-color-diagnostics"]


def check(entry, ccache=None, base_dir=None, scratch=None):
    start = time.monotonic()
    env = None
    if ccache:
        fd, output = tempfile.mkstemp(suffix=".ll", dir=scratch)
        os.close(fd)
        cmd = [ccache] + clang_command(entry, output)
        env = dict(os.environ, CCACHE_BASEDIR=base_dir)
    else:
        output = None
        cmd = clang_command(entry)
    try:
        p = subprocess.run(cmd, cwd=entry["directory"], capture_output=True,
                           text=True, env=env)
    finally:
        if output:
            os.unlink(output)
    return entry["file"], p.returncode, p.stderr, time.monotonic() - start


def git_root():
    p = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else os.getcwd()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--exclude", action="append", default=[],
                    help="skip files under this path (repeatable)")
    ap.add_argument("--no-cache", action="store_true",
                    help="compile every file, without ccache")
    ap.add_argument("--base-dir", help="paths under it are hashed relative "
                    "(default: the git checkout of the current directory)")
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
    ccache = None if a.no_cache else shutil.which("ccache")
    base_dir = os.path.realpath(a.base_dir or git_root())
    start = time.monotonic()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="check-clang-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for path, rc, err, _ in pool.map(
                lambda e: check(e, ccache, base_dir, scratch), entries):
            if rc:
                failed += 1
                print("clang-19 rejects %s:\n%s" % (path, err.rstrip()), flush=True)
    print("clang-19: %d files compiled to LLVM IR, %d failed, %.0f s (%d jobs, %s)"
          % (len(entries), failed, time.monotonic() - start, a.jobs,
             "through ccache, base %s" % base_dir if ccache else "no cache"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
