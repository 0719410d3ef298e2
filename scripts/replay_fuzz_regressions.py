#!/usr/bin/python3
"""Replays test/fuzz-regressions through the tools a user runs.

  replay_fuzz_regressions.py --src REPO --build BUILD --work DIR

Every file under test/fuzz-regressions/<harness>/ once crashed, hung or
exhausted memory. Each is given to the real tool that reads that format,
and to the harness itself (BUILD/bin/<harness>: libFuzzer in the sanitizer
build, a replay driver elsewhere):

  fuzz-onnx-import  opscope-translate --import-onnx FILE.onnx (with and
                    without --no-check)
  fuzz-trace        opscope-analyze FILE
  fuzz-npy          opscope-run tiny.so --input x=FILE
  fuzz-plan         the harness only (a plan lives inside a compiled .so)

A tool must exit 0, 1 or 2 (never a signal, a sanitizer's exit code or a
hang); the harness must exit 0. Prints one line per failure and a summary;
exits 1 if anything failed.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

TIMEOUT = 120


def run(cmd, ok_codes):
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "timed out after %ds" % TIMEOUT
    if p.returncode in ok_codes:
        return None
    tail = p.stderr.decode(errors="replace").strip().splitlines()[-5:]
    return "exit %d: %s" % (p.returncode, " | ".join(tail))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    bin_ = os.path.join(a.build, "bin")
    os.makedirs(a.work, exist_ok=True)
    tool_ok = {0, 1, 2}

    tiny = os.path.join(a.work, "tiny.so")
    err = run([os.path.join(bin_, "opscope-compile"),
               os.path.join(a.src, "test", "Tools", "opscope-run", "Inputs",
                            "tiny.onnxtext"), "-o", tiny], {0})
    if err:
        print("cannot compile tiny.onnxtext: " + err)
        return 1

    def tools_for(harness, path):
        if harness == "fuzz-onnx-import":
            model = os.path.join(a.work, "model.onnx")
            shutil.copy(path, model)
            translate = [os.path.join(bin_, "opscope-translate"),
                         "--import-onnx", model, "-o", os.devnull]
            return [translate + ["--no-check"], translate]
        if harness == "fuzz-trace":
            return [[os.path.join(bin_, "opscope-analyze"), path]]
        if harness == "fuzz-npy":
            return [[os.path.join(bin_, "opscope-run"), tiny, "--input",
                     "x=" + path, "--iterations", "1", "--warmup", "0"]]
        return []

    replayed = failed = 0
    root = os.path.join(a.src, "test", "fuzz-regressions")
    for harness in sorted(os.listdir(root)):
        files = sorted(f for f in glob.glob(os.path.join(root, harness, "*"))
                       if os.path.isfile(f) and not f.endswith(".md"))
        for f in files:
            replayed += 1
            checks = [(cmd, tool_ok) for cmd in tools_for(harness, f)]
            checks.append(([os.path.join(bin_, harness), f], {0}))
            for cmd, codes in checks:
                err = run(cmd, codes)
                if err:
                    failed += 1
                    print("FAIL %s/%s: %s: %s" % (
                        harness, os.path.basename(f),
                        os.path.basename(cmd[0]), err))
    print("fuzz regressions: %d replayed, %d failed" % (replayed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
