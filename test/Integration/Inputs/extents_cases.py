#!/usr/bin/python3
"""Data-dependent output shapes (issue 54, docs/architecture.md,
"Data-dependent output shapes") against ONNX Runtime: a detector-style tail
(scores -> threshold -> Compress of the boxes, NonZero of the kept mask ->
Gather of their scores) compiled once by opscope and run on two inputs that
keep different numbers of boxes, so the extent must be carried at run time
through Mul, Gather (along another axis and by bounded indices) to the
graph outputs, which opscope-run writes and compares in their actual shape.
Then TopK with k a graph input (two TopKs: largest along axis 0, smallest
along the last axis, each scaled by a Mul) compiled once and run with
different k, 0 and the axis length among them; a k beyond the axis must
stop the run with an error naming the node.
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


def topk_tail(rows=4, cols=6):
    consts = [numpy_helper.from_array(np.array(3, np.float32), "three")]
    nodes = [
        helper.make_node("TopK", ["x", "k0"], ["top", "top_i"], axis=0, name="top"),
        helper.make_node("Mul", ["top", "three"], ["top_s"], name="top_s"),
        helper.make_node("TopK", ["x", "k1"], ["low", "low_i"], axis=1, largest=0,
                         name="low"),
        helper.make_node("Mul", ["low", "three"], ["low_s"], name="low_s"),
    ]
    graph = helper.make_graph(
        nodes, "topk",
        [helper.make_tensor_value_info("x", F32, [rows, cols]),
         helper.make_tensor_value_info("k0", I64, [1]),
         helper.make_tensor_value_info("k1", I64, [1])],
        [helper.make_tensor_value_info("top_s", F32, ["a", cols]),
         helper.make_tensor_value_info("top_i", I64, ["a", cols]),
         helper.make_tensor_value_info("low_s", F32, [rows, "b"]),
         helper.make_tensor_value_info("low_i", I64, [rows, "b"])], consts)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def run_case(args, m, path, lib, d, inputs, label):
    """Runs opscope and ONNX Runtime on one set of inputs; prints each
    output's comparison. Returns whether opscope's outputs differ."""
    os.makedirs(os.path.join(d, "ort"), exist_ok=True)
    cmd_in = []
    for k, v in inputs.items():
        np.save(os.path.join(d, k + ".npy"), v)
        cmd_in += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    subprocess.run(shlex.split(args.ort_run) + [path, "--output-dir", os.path.join(d, "ort")] + cmd_in,
                   check=True, capture_output=True)
    cmd = [args.run, lib, "--iterations", "1", "--warmup", "0", "-q", "--rtol", "1e-6",
           "--atol", "0"] + cmd_in
    for o in m.graph.output:
        cmd += ["--expect", "%s=%s" % (o.name, os.path.join(d, "ort", o.name + ".npy"))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("output "):
            print("%s: %s" % (label, line))
    if r.returncode and "MISMATCH" not in r.stdout:
        print("%s: ERROR %s" % (label, r.stderr.strip()))
    return r.returncode != 0


def topk_cases(args):
    m = topk_tail()
    path = os.path.join(args.work, "topk.onnx")
    onnx.save(m, path)
    lib = os.path.join(args.work, "topk.so")
    subprocess.run([args.compile, path, "-o", lib], check=True)
    x = np.random.default_rng(11).permutation(24).astype(np.float32).reshape(4, 6) - 7
    failures = 0
    ks = [(2, 3), (0, 6), (4, 0), (1, 1)]
    for k0, k1 in ks:
        label = "topk k0=%d k1=%d" % (k0, k1)
        d = os.path.join(args.work, "topk_%d_%d" % (k0, k1))
        failures += run_case(args, m, path, lib, d,
                             {"x": x, "k0": np.array([k0], np.int64),
                              "k1": np.array([k1], np.int64)}, label)
    # k beyond the axis (4 rows): a run-time error naming the node.
    d = os.path.join(args.work, "topk_bad")
    os.makedirs(d, exist_ok=True)
    cmd = [args.run, lib, "--iterations", "1", "--warmup", "0", "-q"]
    for k, v in (("x", x), ("k0", np.array([5], np.int64)), ("k1", np.array([2], np.int64))):
        np.save(os.path.join(d, k + ".npy"), v)
        cmd += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    print("topk k0=5: exit %d: %s" % (r.returncode, lines[-1] if lines else ""))
    failures += r.returncode == 0
    print("topk cases: %d of %d failed" % (failures, len(ks) + 1))
    return failures


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
        print("%s: %d of 20 kept" % (name, int((scores > 0.5).sum())))
        failures += run_case(args, m, path, lib, os.path.join(args.work, name),
                             {"scores": scores, "boxes": boxes}, name)
    print("extent cases: %d of %d failed" % (failures, len(runs)))
    failures += topk_cases(args)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
