"""The exact outputs of a QDQ model of Gemms (what scripts/make_qdq.py
writes for an MLP), as the ONNX operators define them: QuantizeLinear
rounds half to even and saturates, DequantizeLinear scales per tensor or
per channel, Gemm multiplies the dequantized values in float64 and rounds
once to float32. A test oracle where ONNX Runtime is not one: on a CPU
without VNNI its u8 x s8 GEMMs sum pairs of products in saturating 16-bit
lanes (vpmaddubsw; ONNX Runtime's quantization documentation), 0.036 off
this result on make-qdq.test's MLP on an AVX2-only AMD EPYC Zen 3.

  qdq_reference.py MODEL.onnx NAME=INPUT.npy [NAME=INPUT.npy ...] -o DIR

Writes DIR/<output>.npy for each graph output. Other operators are an
error naming the node.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def attribute(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def per_axis(v, x, axis):
    """A per-channel scale or zero point shaped to broadcast along `axis`."""
    if v.ndim == 1 and v.size > 1:
        shape = [1] * x.ndim
        shape[axis] = -1
        return v.reshape(shape)
    return v


def evaluate(node, args):
    op = node.op_type
    if op == "QuantizeLinear":
        x, scale, zero = args[0], args[1], args[2]
        axis = attribute(node, "axis", 1)
        q = np.rint(x.astype(np.float64) / per_axis(scale, x, axis)) + \
            per_axis(zero, x, axis).astype(np.float64)
        info = np.iinfo(zero.dtype)
        return np.clip(q, info.min, info.max).astype(zero.dtype)
    if op == "DequantizeLinear":
        x, scale = args[0], args[1]
        zero = args[2] if len(args) > 2 and args[2] is not None else \
            np.zeros(scale.shape, dtype=x.dtype)
        axis = attribute(node, "axis", 1)
        return ((x.astype(np.float64) - per_axis(zero, x, axis).astype(np.float64)) *
                per_axis(scale, x, axis)).astype(np.float32)
    if op == "Gemm":
        a, b = args[0].astype(np.float64), args[1].astype(np.float64)
        if attribute(node, "transA", 0):
            a = a.T
        if attribute(node, "transB", 0):
            b = b.T
        y = attribute(node, "alpha", 1.0) * (a @ b)
        if len(args) > 2 and args[2] is not None:
            y = y + attribute(node, "beta", 1.0) * args[2].astype(np.float64)
        return y.astype(np.float32)
    if op == "Relu":
        return np.maximum(args[0], 0).astype(args[0].dtype)
    if op == "Identity":
        return args[0]
    sys.exit("qdq_reference.py: node %s: %s is not an operator this oracle computes"
             % (node.name or node.output[0], op))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("inputs", nargs="+", metavar="NAME=FILE.npy")
    p.add_argument("-o", "--out", required=True)
    args = p.parse_args()
    model = onnx.load(args.model)
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for spec in args.inputs:
        name, path = spec.split("=", 1)
        env[name] = np.load(path)
    for node in model.graph.node:
        values = [env[i] if i else None for i in node.input]
        env[node.output[0]] = evaluate(node, values)
    os.makedirs(args.out, exist_ok=True)
    for o in model.graph.output:
        np.save(os.path.join(args.out, o.name.replace("/", "_") + ".npy"), env[o.name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
