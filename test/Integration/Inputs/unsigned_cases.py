#!/usr/bin/python3
"""The unsigned element types (uint8/16/32/64) and BitShift against ONNX
Runtime on values the backend node tests lack: each type's upper half
(above the signed maximum: 2^31 and more in uint32, 2^63 and more in
uint64), where a kernel computing through the signed type of the same
width, or through double, would compare, divide and take remainders
wrongly. Each case is compiled by opscope and run; its outputs must equal
ONNX Runtime's bit for bit (opscope-run --output-dir, compared here: its
--expect compares through double, which cannot tell u64 values apart
above 2^53). Checked against numpy instead: shifts by the bit width or
more (0; ONNX Runtime's results follow the CPU's shift instruction
there), BitShift, Max and Min on uint16 (ONNX Runtime has no kernel for
them) and fmod on uint64 (ONNX Runtime's goes through double).
  unsigned_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per case and output; exits 1 on any mismatch.
"""

import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto

from indexing_cases import case_arguments, model

TYPES = {np.uint8: TensorProto.UINT8, np.uint16: TensorProto.UINT16,
         np.uint32: TensorProto.UINT32, np.uint64: TensorProto.UINT64}


def wide(rng, dtype, shape):
    """Values over the whole range, half of them in the upper half."""
    top = np.iinfo(dtype).max
    lo = rng.integers(0, top // 2, shape, dtype=np.uint64, endpoint=True)
    hi = rng.integers(top // 2 + 1, top, shape, dtype=np.uint64, endpoint=True)
    return np.where(rng.random(shape) < 0.5, lo, hi).astype(dtype)


def binary_case(op, dtype, a, b, out_dtype=None, opset=13, **attrs):
    t = TYPES[dtype]
    ot = TYPES.get(out_dtype, out_dtype) if out_dtype is not None else t
    return (model(op, [("a", t, a.shape), ("b", TYPES.get(b.dtype.type, t), b.shape)],
                  [("y", ot, list(np.broadcast_shapes(a.shape, b.shape)))], opset,
                  **attrs),
            {"a": a, "b": b})


def numpy_where_ort_lacks(case, lacks, want):
    """The case against numpy's result `want` where ONNX Runtime has no
    kernel for it (BitShift, Max, Min on uint16) or an inexact one."""
    return case + ({"y": want},) if lacks else case


def cases():
    rng = np.random.default_rng(54)
    c = {}
    for dtype in TYPES:
        name = np.dtype(dtype).name
        bits = np.iinfo(dtype).bits
        a = wide(rng, dtype, (3, 16))
        # Shift counts below the width, broadcast along the rows.
        s = rng.integers(0, bits, (16,)).astype(dtype)
        for direction, fn in (("LEFT", np.left_shift), ("RIGHT", np.right_shift)):
            c["bitshift-%s-%s" % (direction.lower(), name)] = numpy_where_ort_lacks(
                binary_case("BitShift", dtype, a, s, opset=11, direction=direction),
                dtype == np.uint16, fn(a, s))
        b = wide(rng, dtype, (3, 16))
        b[b == 0] = 1  # ONNX Runtime refuses a remainder by zero
        for op, fn in (("Max", np.maximum), ("Min", np.minimum)):
            c["%s-%s" % (op.lower(), name)] = numpy_where_ort_lacks(
                binary_case(op, dtype, a, b), dtype == np.uint16, fn(a, b))
        c["mod-%s" % name] = binary_case("Mod", dtype, a, b)
        # ONNX Runtime's integer fmod goes through double: inexact above
        # 2^53. numpy's (C's) remainder is exact.
        c["fmod-%s" % name] = numpy_where_ort_lacks(
            binary_case("Mod", dtype, a, b, fmod=1), dtype == np.uint64,
            np.fmod(a, b))
    for dtype in (np.uint32, np.uint64):
        name = np.dtype(dtype).name
        a, b = wide(rng, dtype, (4, 9)), wide(rng, dtype, (9,))
        b[b == 0] = 1
        for op in ("Add", "Sub", "Mul", "Div"):
            c["%s-%s" % (op.lower(), name)] = binary_case(op, dtype, a, b)
        for op in ("Less", "Greater", "Equal"):
            c["%s-%s" % (op.lower(), name)] = binary_case(op, dtype, a, b,
                                                          TensorProto.BOOL)
        # Casts across the signed boundary.
        for to, np_to in ((TensorProto.INT64, np.int64), (TensorProto.DOUBLE, np.float64)):
            c["cast-%s-to-%s" % (name, np.dtype(np_to).name)] = (
                model("Cast", [("a", TYPES[dtype], a.shape)], [("y", to, a.shape)], 13,
                      to=to),
                {"a": a})
    # Shift counts at and beyond the width: numpy's results (0); ONNX
    # Runtime's follow the CPU's shift instruction there.
    for dtype in TYPES:
        name = np.dtype(dtype).name
        bits = np.iinfo(dtype).bits
        a = np.array([1, 3, np.iinfo(dtype).max, 5], dtype=dtype)
        s = np.array([bits, bits + 1, bits, np.iinfo(dtype).max], dtype=dtype)
        for direction, fn in (("LEFT", np.left_shift), ("RIGHT", np.right_shift)):
            m, feeds = binary_case("BitShift", dtype, a, s, opset=11,
                                   direction=direction)
            c["bitshift-%s-%s-beyond-width" % (direction.lower(), name)] = (
                m, feeds, {"y": fn(a, s)})
    return c


def run_opscope(args, d, m, feeds):
    """Saves the model and inputs under d, compiles and runs it; returns
    the outputs (or an error text)."""
    path = os.path.join(d, "model.onnx")
    onnx.save(m, path)
    cmd_in = []
    for k, v in feeds.items():
        np.save(os.path.join(d, k + ".npy"), v)
        cmd_in += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    lib = os.path.join(d, "model.so")
    r = subprocess.run([args.compile, path, "-o", lib], capture_output=True, text=True)
    if r.returncode:
        return None, cmd_in, r.stderr.strip()
    out = os.path.join(d, "opscope")
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([args.run, lib, "--iterations", "1", "--warmup", "0", "-q",
                        "--output-dir", out] + cmd_in, capture_output=True, text=True)
    if r.returncode:
        return None, cmd_in, r.stderr.strip()
    return {o.name: np.load(os.path.join(out, o.name + ".npy"))
            for o in m.graph.output}, cmd_in, ""


def compare(name, got, want):
    """One line per output; whether all are equal (dtype, shape, bits)."""
    ok = True
    for k, w in want.items():
        g = got[k]
        same = g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w)
        ok &= same
        if same:
            detail = "%s%s exact" % (w.dtype, list(w.shape))
        else:
            detail = "got %s %s, want %s %s" % (g.dtype, g.ravel()[:8], w.dtype, w.ravel()[:8])
        print("%s: output %s: %s -> %s" % (name, k, detail, "match" if same else "MISMATCH"))
    return ok


def main():
    args = case_arguments(__doc__)
    failures, total = 0, 0
    for name, case in cases().items():
        m, feeds = case[:2]
        total += 1
        d = os.path.join(args.work, name)
        os.makedirs(os.path.join(d, "ort"), exist_ok=True)
        got, cmd_in, error = run_opscope(args, d, m, feeds)
        if got is None:
            print("%s: ERROR %s" % (name, error))
            failures += 1
            continue
        if len(case) == 3:
            failures += not compare(name + " (numpy)", got, case[2])
            continue
        r = subprocess.run(shlex.split(args.ort_run) + [os.path.join(d, "model.onnx"),
                           "--output-dir", os.path.join(d, "ort")] + cmd_in,
                           capture_output=True, text=True)
        if r.returncode:
            print("%s: ORT ERROR %s" % (name, r.stderr.strip().splitlines()[-1]))
            failures += 1
            continue
        want = {o.name: np.load(os.path.join(d, "ort", o.name + ".npy"))
                for o in m.graph.output}
        failures += not compare(name, got, want)
    print("unsigned cases: %d of %d failed" % (failures, total))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
