#!/usr/bin/python3
"""Builds the seed corpus of each fuzz harness from the project's own files.

  fuzz_seeds.py --src REPO --build BUILD --out DIR

DIR/<harness>/ gets:
  fuzz-onnx-import  every test .onnxtext as a binary ModelProto, the small
                    corpus models (mlp, cnn) and the hostile test models
  fuzz-trace        the analyzer's test traces
  fuzz-npy          .npy files of every dtype and rank the reader accepts
  fuzz-plan         plan + NUL + .weights of small models compiled by BUILD
  fuzz-kernels      one input per kernel: its number, then random bytes
Regression files (test/fuzz-regressions/<harness>/) are seeds too.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.parser


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    src, build, out = a.src, os.path.abspath(a.build), a.out
    dirs = {h: os.path.join(out, h) for h in
            ("fuzz-onnx-import", "fuzz-trace", "fuzz-npy", "fuzz-plan",
             "fuzz-kernels")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="opscope-seeds-")

    # ONNX models.
    onnx_dir = dirs["fuzz-onnx-import"]
    n = 0
    for path in sorted(glob.glob(os.path.join(src, "test", "**", "*.onnxtext"),
                                 recursive=True)):
        try:
            model = onnx.parser.parse_model(open(path).read())
        except Exception:
            continue  # some test inputs are deliberately malformed
        n += 1
        with open(os.path.join(onnx_dir, "t%03d-%s.onnx" % (
                n, os.path.basename(path)[:-9])), "wb") as f:
            f.write(model.SerializeToString())
    subprocess.run([sys.executable, os.path.join(src, "models", "generate.py"),
                    "--out", tmp, "mlp-opset14", "cnn-opset14"], check=True,
                   stdout=subprocess.DEVNULL)
    for script in ("make_hostile_nodes.py", "make_memory_bombs.py"):
        subprocess.run([sys.executable,
                        os.path.join(src, "test", "Target", "ONNX", "Inputs",
                                     script), os.path.join(tmp, script)],
                       check=True, stdout=subprocess.DEVNULL)
    for path in glob.glob(os.path.join(tmp, "**", "*.onnx"), recursive=True):
        if os.path.getsize(path) < 1 << 20:
            shutil.copy(path, os.path.join(
                onnx_dir, os.path.relpath(path, tmp).replace("/", "-")))

    # Traces.
    for path in glob.glob(os.path.join(src, "test", "**", "*.json"),
                          recursive=True):
        if os.path.getsize(path) < 1 << 20:
            shutil.copy(path, os.path.join(dirs["fuzz-trace"],
                                           os.path.basename(path)))

    # .npy files.
    rng = np.random.default_rng(0)
    for dtype in ("<f4", "<f8", "<i8", "<i4", "<i2", "|i1", "|u1", "|b1"):
        for shape in ((), (3,), (2, 5), (1, 2, 3)):
            x = (rng.standard_normal(shape) * 10).astype(dtype)
            np.save(os.path.join(dirs["fuzz-npy"], "%s-%d.npy" % (
                dtype[1:], len(shape))), x)

    # Plans and weights, from models this build compiles.
    compile_ = os.path.join(build, "bin", "opscope-compile")
    models = sorted(glob.glob(os.path.join(src, "test", "Tools", "opscope-run",
                                           "Inputs", "*.onnxtext")))
    models.append(os.path.join(tmp, "make_memory_bombs.py", "cosadd.onnx"))
    for i, m in enumerate(models):
        lib = os.path.join(tmp, "plan%d.so" % i)
        args = [compile_, m, "-o", lib]
        if "cosadd" in m:
            args += ["--input-shape", "x=40x512"]
        if subprocess.run(args, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            print("fuzz_seeds: cannot compile %s (skipped)" % m)
            continue
        data = open(lib, "rb").read()
        start = data.find(b'{"abi":')
        end = data.find(b"\0", start)
        weights = open(lib[:-3] + ".weights", "rb").read()
        with open(os.path.join(dirs["fuzz-plan"], "plan%d" % i), "wb") as f:
            f.write(data[start:end] + b"\0" + weights)

    # The kernel harness reads a kernel number, then shape and value bytes.
    rng = np.random.default_rng(5)
    for kernel in range(16):
        with open(os.path.join(dirs["fuzz-kernels"], "kernel%d" % kernel),
                  "wb") as f:
            f.write(bytes([kernel]) + rng.integers(0, 256, 600, np.uint8).tobytes())

    # Regression files seed their harness too.
    for h, d in dirs.items():
        reg = os.path.join(src, "test", "fuzz-regressions", h)
        for path in glob.glob(os.path.join(reg, "*")):
            shutil.copy(path, d)
    shutil.rmtree(tmp)
    for h, d in sorted(dirs.items()):
        print("%s: %d seeds" % (h, len(os.listdir(d))))


if __name__ == "__main__":
    main()
