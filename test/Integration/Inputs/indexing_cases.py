#!/usr/bin/python3
"""The indexing ops (issue 54) on inputs larger than the ONNX backend node
tests', the way exported transformers and detectors use them (top-k scores
full of ties, cache updates at negative positions, duplicate scatter
indices under a reduction), each compiled by opscope and run against ONNX
Runtime on seeded random inputs; and an index out of range at run time,
which must end the run with an error naming the op.
  indexing_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per case and output; exits 1 on any mismatch.
"""

import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
NP = {F32: np.float32, I64: np.int64, I32: np.int32}


def model(op, inputs, outputs, opset, consts=(), **attrs):
    """One node of `op`: inputs and outputs as (name, type, shape), constant
    inputs as initializers."""
    node = helper.make_node(op, [n for n, _, _ in inputs] + [c.name for c in consts],
                            [n for n, _, _ in outputs], name=op.lower(), **attrs)
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], list(consts))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def ties(rng, shape, dtype=np.float32):
    """Values from a range of 7: most top-k slices hold equal values."""
    return rng.integers(-3, 4, shape).astype(dtype)


def distinct_tuples(rng, dims, count, negative=True):
    """`count` distinct index tuples into `dims`, some negative."""
    flat = rng.choice(int(np.prod(dims)), size=count, replace=False)
    t = np.stack(np.unravel_index(flat, dims), axis=-1).astype(np.int64)
    if negative:
        t = np.where(rng.random(t.shape) < 0.5, t - np.array(dims), t)
    return t


def cases():
    rng = np.random.default_rng(54)
    c = {}
    # TopK over a vocabulary-sized last axis (sampling), with ties.
    x = ties(rng, (3, 101))
    c["topk-largest-ties"] = (
        model("TopK", [("x", F32, x.shape)],
              [("v", F32, [3, 10]), ("i", I64, [3, 10])], 11,
              [const("k", [10])], axis=-1),
        {"x": x})
    x = ties(rng, (19, 3, 5), np.int64)
    c["topk-smallest-axis0-int64"] = (
        model("TopK", [("x", I64, x.shape)],
              [("v", I64, [4, 3, 5]), ("i", I64, [4, 3, 5])], 11,
              [const("k", [4])], axis=0, largest=0),
        {"x": x})
    x = rng.standard_normal((5, 33)).astype(np.float32)
    c["topk-opset1"] = (
        model("TopK", [("x", F32, x.shape)],
              [("v", F32, [5, 7]), ("i", I64, [5, 7])], 9, k=7),
        {"x": x})
    # ScatterND as a key/value cache update: rows written at (batch,
    # position) tuples, positions negative from the end.
    cache = rng.standard_normal((2, 12, 8)).astype(np.float32)
    idx = distinct_tuples(rng, (2, 12), 6).reshape(2, 3, 2)
    upd = rng.standard_normal((2, 3, 8)).astype(np.float32)
    c["scatternd-cache-update"] = (
        model("ScatterND", [("cache", F32, cache.shape), ("idx", I64, idx.shape),
                            ("upd", F32, upd.shape)], [("y", F32, cache.shape)], 13),
        {"cache": cache, "idx": idx, "upd": upd})
    # Duplicate tuples under add and mul (opset 16), max and min (18).
    data = rng.standard_normal((6, 5)).astype(np.float32)
    dup = rng.integers(-6, 6, (9, 1)).astype(np.int64)
    upd = rng.standard_normal((9, 5)).astype(np.float32)
    for red, opset in (("add", 16), ("mul", 16), ("max", 18), ("min", 18)):
        c["scatternd-duplicates-" + red] = (
            model("ScatterND", [("data", F32, data.shape), ("idx", I64, dup.shape),
                                ("upd", F32, upd.shape)], [("y", F32, data.shape)],
                  opset, reduction=red),
            {"data": data, "idx": dup, "upd": upd})
    # CumSum as exported transformers make position ids from an attention
    # mask (int64, axis 1), and an exclusive reverse f32 scan along a middle
    # axis (the kernel table's row adds).
    mask = (rng.random((3, 17)) < 0.8).astype(np.int64)
    c["cumsum-position-ids"] = (
        model("CumSum", [("mask", I64, mask.shape)], [("pos", I64, mask.shape)], 14,
              [const("axis", 1)]),
        {"mask": mask})
    x = rng.standard_normal((2, 9, 19)).astype(np.float32)
    c["cumsum-exclusive-reverse"] = (
        model("CumSum", [("x", F32, x.shape)], [("y", F32, x.shape)], 14,
              [const("axis", -2, np.int32)], exclusive=1, reverse=1),
        {"x": x})
    # GatherND with batch_dims (a detector's per-image box selection).
    boxes = rng.standard_normal((2, 50, 4)).astype(np.float32)
    pick = rng.integers(-50, 50, (2, 7, 1)).astype(np.int64)
    c["gathernd-batch-dims"] = (
        model("GatherND", [("boxes", F32, boxes.shape), ("pick", I64, pick.shape)],
              [("y", F32, [2, 7, 4])], 13, batch_dims=1),
        {"boxes": boxes, "pick": pick})
    # ScatterElements along a middle axis with duplicates, and Scatter-10.
    data = rng.standard_normal((4, 7, 3)).astype(np.float32)
    idx = rng.integers(-7, 7, (4, 5, 3)).astype(np.int64)
    upd = rng.standard_normal((4, 5, 3)).astype(np.float32)
    for red, opset in (("add", 16), ("max", 18)):
        c["scatterelements-axis1-" + red] = (
            model("ScatterElements", [("data", F32, data.shape), ("idx", I64, idx.shape),
                                      ("upd", F32, upd.shape)], [("y", F32, data.shape)],
                  opset, axis=1, reduction=red),
            {"data": data, "idx": idx, "upd": upd})
    perm = np.stack([rng.permutation(7)[:5] - 7 * (i % 2) for i in range(12)]).reshape(4, 3, 5)
    perm = np.ascontiguousarray(perm.transpose(0, 2, 1)).astype(np.int64)
    c["scatter-opset10"] = (
        model("Scatter", [("data", F32, data.shape), ("idx", I64, perm.shape),
                          ("upd", F32, upd.shape)], [("y", F32, data.shape)], 10, axis=1),
        {"data": data, "idx": perm, "upd": upd})
    # ReverseSequence of a batch-major sequence (lengths 0 to full).
    x = rng.standard_normal((4, 9, 5)).astype(np.float32)
    lens = np.array([9, 0, 4, 1], dtype=np.int64)
    c["reversesequence-batch-major"] = (
        model("ReverseSequence", [("x", F32, x.shape), ("lens", I64, [4])],
              [("y", F32, x.shape)], 10, batch_axis=0, time_axis=1),
        {"x": x, "lens": lens})
    return c


def bad_index_cases():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    return {
        "gathernd-bad-index": (
            model("GatherND", [("data", F32, [3, 4]), ("idx", I64, [2, 2])],
                  [("y", F32, [2])], 13),
            {"data": data, "idx": np.array([[0, 1], [-4, 0]], dtype=np.int64)}),
        "scatternd-bad-index": (
            model("ScatterND", [("data", F32, [3, 4]), ("idx", I64, [2, 1]),
                                ("upd", F32, [2, 4])], [("y", F32, [3, 4])], 13),
            {"data": data, "idx": np.array([[0], [3]], dtype=np.int64),
             "upd": np.ones((2, 4), np.float32)}),
    }


def check_against_ort(args, all_cases, rtol, atol):
    """Saves each case's model and inputs under --work, runs ONNX Runtime
    on them, compiles the model with opscope and runs it against ONNX
    Runtime's outputs within rtol/atol. Prints one line per output; returns
    the number of failed cases."""
    failures = 0
    for name, (m, feeds) in all_cases.items():
        d = os.path.join(args.work, name)
        os.makedirs(os.path.join(d, "ort"), exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        cmd_in = []
        for k, v in feeds.items():
            np.save(os.path.join(d, k + ".npy"), v)
            cmd_in += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        subprocess.run(shlex.split(args.ort_run) + [path, "--output-dir", os.path.join(d, "ort")] + cmd_in,
                       check=True, capture_output=True)
        lib = os.path.join(d, "model.so")
        subprocess.run([args.compile, path, "-o", lib], check=True)
        cmd = [args.run, lib, "--iterations", "1", "--warmup", "0", "-q", "--rtol", str(rtol),
               "--atol", str(atol)] + cmd_in
        for o in m.graph.output:
            cmd += ["--expect", "%s=%s" % (o.name, os.path.join(d, "ort", o.name + ".npy"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        failures += r.returncode != 0
        for line in r.stdout.splitlines():
            if line.startswith("output "):
                print("%s: %s" % (name, line))
        if r.returncode and "MISMATCH" not in r.stdout:
            print("%s: ERROR %s" % (name, r.stderr.strip()))
    return failures


def case_arguments(doc):
    """--work, --compile, --run and --ort-run, which every *_cases.py
    script that checks against ONNX Runtime takes."""
    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--work", required=True)
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--ort-run", required=True)
    return p.parse_args()


def main():
    args = case_arguments(__doc__)
    all_cases = cases()
    failures = check_against_ort(args, all_cases, 1e-5, 1e-6)
    # An index out of range at run time: the run stops with an error naming
    # the op and exit code 1, not a read or write outside a buffer.
    for name, (m, feeds) in bad_index_cases().items():
        d = os.path.join(args.work, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        cmd = [args.run, path, "--iterations", "1", "--warmup", "0", "-q"]
        for k, v in feeds.items():
            np.save(os.path.join(d, k + ".npy"), v)
            cmd += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        print("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
    print("indexing cases: %d of %d failed" % (failures, len(all_cases)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
