#!/usr/bin/python3
"""Data-dependent output shapes (issue 54, docs/architecture.md,
"Data-dependent output shapes") against ONNX Runtime: a detector-style tail
(scores -> threshold -> Compress of the boxes, NonZero of the kept mask ->
Gather of their scores) compiled once by opscope and run on two inputs that
keep different numbers of boxes, so the extent must be carried at run time
through Mul, Gather (along another axis and by bounded indices) to the
graph outputs, which opscope-run writes and compares in their actual shape.
  extents_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per run and output; exits 1 on any mismatch.
"""

import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def detector_tail(n=20):
    consts = [numpy_helper.from_array(np.array(0.5, np.float32), "thr"),
              numpy_helper.from_array(np.array([[2, 2, 3, 3]], np.float32), "scale"),
              numpy_helper.from_array(np.array(0, np.int64), "zero")]
    nodes = [
        helper.make_node("Greater", ["scores", "thr"], ["keep"], name="keep"),
        helper.make_node("Compress", ["boxes", "keep"], ["sel"], axis=0, name="sel"),
        helper.make_node("Mul", ["sel", "scale"], ["scaled"], name="scaled"),
        helper.make_node("NonZero", ["keep"], ["nz"], name="nz"),
        helper.make_node("Gather", ["nz", "zero"], ["idx"], axis=0, name="idx"),
        helper.make_node("Gather", ["scores", "idx"], ["picked"], axis=0, name="picked"),
    ]
    graph = helper.make_graph(
        nodes, "tail",
        [helper.make_tensor_value_info("scores", F32, [n]),
         helper.make_tensor_value_info("boxes", F32, [n, 4])],
        [helper.make_tensor_value_info("scaled", F32, ["k", 4]),
         helper.make_tensor_value_info("idx", I64, ["k"]),
         helper.make_tensor_value_info("picked", F32, ["k"]),
         helper.make_tensor_value_info("nz", I64, [1, "k"])], consts)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--work", required=True)
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--ort-run", required=True)
    args = p.parse_args()
    m = detector_tail()
    path = os.path.join(args.work, "model.onnx")
    onnx.save(m, path)
    lib = os.path.join(args.work, "model.so")
    subprocess.run([args.compile, path, "-o", lib], check=True)
    rng = np.random.default_rng(54)
    boxes = rng.random((20, 4)).astype(np.float32)
    runs = {
        "few": np.where(np.arange(20) % 7 == 3, 0.9, 0.1).astype(np.float32),
        "many": rng.random(20).astype(np.float32),
        "none": np.zeros(20, np.float32),
    }
    failures = 0
    for name, scores in runs.items():
        d = os.path.join(args.work, name)
        os.makedirs(os.path.join(d, "ort"), exist_ok=True)
        cmd_in = []
        for k, v in (("scores", scores), ("boxes", boxes)):
            np.save(os.path.join(d, k + ".npy"), v)
            cmd_in += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        subprocess.run(shlex.split(args.ort_run) + [path, "--output-dir", os.path.join(d, "ort")] + cmd_in,
                       check=True, capture_output=True)
        cmd = [args.run, lib, "--iterations", "1", "--warmup", "0", "-q", "--rtol", "1e-6",
               "--atol", "0"] + cmd_in
        for o in m.graph.output:
            cmd += ["--expect", "%s=%s" % (o.name, os.path.join(d, "ort", o.name + ".npy"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        failures += r.returncode != 0
        kept = int((scores > 0.5).sum())
        print("%s: %d of 20 kept" % (name, kept))
        for line in r.stdout.splitlines():
            if line.startswith("output "):
                print("%s: %s" % (name, line))
        if r.returncode and "MISMATCH" not in r.stdout:
            print("%s: ERROR %s" % (name, r.stderr.strip()))
    print("extent cases: %d of %d failed" % (failures, len(runs)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
