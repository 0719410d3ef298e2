#!/usr/bin/python3
"""Quantizes an fp32 ONNX model into the QDQ form other tools export, from an
opscope calibration file, so that ONNX Runtime and opscope can run the same
int8 model (the int8 peer of scripts/bench_precision.py).

  make_qdq.py MODEL.onnx CALIBRATION.json -o QDQ.onnx

CALIBRATION.json is what `opscope-run MODEL.so --calibrate FILE` writes
(min-max of every inner product's input, keyed by its ONNX source nodes).
For every MatMul, Gemm, Conv or ungrouped ConvTranspose with a constant
weight that the calibration covers:

- its activation input gets QuantizeLinear -> DequantizeLinear, u8, with the
  min-max range widened to hold 0 (scale = (max - min) / 255, zero point
  round(-min / scale)); one pair per tensor, shared by every consumer
  (the Q, K and V projections read the same input);
- its weight becomes an int8 initializer, per output channel symmetric
  (scale = max |w| / 127 per channel, zero point 0), read through
  DequantizeLinear (axis 1 for MatMul's K x N weight and ConvTranspose's
  C x OC x k, 0 for Gemm's N x K with transB and for Conv's output
  channels);
- a Conv's or ConvTranspose's constant bias becomes int32 with scale input scale x weight
  scale per channel, read through DequantizeLinear; a BatchNormalization
  that is a Conv's only reader is first folded into the Conv's weight and
  bias (as ONNX Runtime's quantization pre-processing does).

This is the layout ONNX Runtime's quantization tool writes for static QDQ
models with per-channel weights. Prints how many inner products it
quantized and exits 1 when the calibration covers none.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("calibration")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        model = onnx.load(a.model)
    except Exception as e:  # onnx raises several types for bad files
        sys.exit("%s: cannot read the model: %s" % (a.model, e))
    g = model.graph
    try:
        with open(a.calibration) as f:
            cal = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("%s: cannot read the calibration: %s" % (a.calibration, e))
    if not isinstance(cal, dict) or cal.get("schema") != "opscope-calibration":
        sys.exit("%s: not an opscope calibration file" % a.calibration)
    inits = {t.name: t for t in g.initializer}
    by_name = {n.name: n for n in g.node}

    qdq = {}  # activation tensor -> its dequantized name
    new_nodes, new_inits, quantized = [], [], 0
    for t in cal["tensors"]:
        node = next((by_name[s] for s in t["source_nodes"] if s in by_name and
                     by_name[s].op_type in ("MatMul", "Gemm", "Conv",
                                            "ConvTranspose")), None)
        if node is None or len(node.input) < 2 or node.input[1] not in inits:
            continue
        w = numpy_helper.to_array(inits[node.input[1]])
        conv = node.op_type == "Conv"
        deconv = node.op_type == "ConvTranspose"
        if deconv and any(at.name == "group" and at.i != 1 for at in node.attribute):
            continue  # per-channel axis 1 covers only one group's channels
        if (w.ndim != 2 and not conv and not deconv) or w.dtype != np.float32:
            continue
        if conv:
            w = fold_batch_norm(g, node, w, inits)
        trans_b = node.op_type == "Gemm" and any(
            at.name == "transB" and at.i for at in node.attribute)
        if node.op_type == "Gemm" and any(at.name == "transA" and at.i for at in node.attribute):
            continue
        x = node.input[0]
        if x not in qdq:
            lo, hi = min(float(t["min"]), 0.0), max(float(t["max"]), 0.0)
            scale = (hi - lo) / 255.0 if hi > lo else 1.0
            zp = int(np.clip(np.round(-lo / scale), 0, 255))
            s_name, z_name = x + "_scale", x + "_zero_point"
            new_inits += [numpy_helper.from_array(np.array(scale, np.float32), s_name),
                          numpy_helper.from_array(np.array(zp, np.uint8), z_name)]
            new_nodes.append((x, [
                helper.make_node("QuantizeLinear", [x, s_name, z_name], [x + "_quantized"],
                                 name=x + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [x + "_quantized", s_name, z_name],
                                 [x + "_dequantized"], name=x + "_DequantizeLinear")]))
            qdq[x] = x + "_dequantized"
        node.input[0] = qdq[x]
        axis = 0 if trans_b or conv else 1
        flat = w.reshape(w.shape[0], -1) if axis == 0 else \
            np.moveaxis(w, 1, 0).reshape(w.shape[1], -1)
        amax = np.abs(flat).max(axis=1)
        scales = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        wq = np.clip(np.round(w / scales.reshape(shape)), -127, 127).astype(np.int8)
        wname = node.input[1]
        if (conv or deconv) and len(node.input) > 2 and node.input[2] in inits:
            bname = node.input[2]
            b = numpy_helper.to_array(inits[bname]).astype(np.float64)
            bscale = (scale_of(new_inits, x) * scales).astype(np.float32)
            bq = np.round(b / bscale).astype(np.int32)
            new_inits += [numpy_helper.from_array(bq, bname + "_quantized"),
                          numpy_helper.from_array(bscale, bname + "_scale"),
                          numpy_helper.from_array(np.zeros(bq.shape, np.int32),
                                                  bname + "_zero_point")]
            new_nodes.append((None, [helper.make_node(
                "DequantizeLinear", [bname + "_quantized", bname + "_scale",
                                     bname + "_zero_point"],
                [bname + "_dequantized"], name=bname + "_DequantizeLinear", axis=0)]))
            node.input[2] = bname + "_dequantized"
        new_inits += [numpy_helper.from_array(wq, wname + "_quantized"),
                      numpy_helper.from_array(scales, wname + "_scale"),
                      numpy_helper.from_array(np.zeros(scales.shape, np.int8),
                                              wname + "_zero_point")]
        new_nodes.append((None, [helper.make_node(
            "DequantizeLinear", [wname + "_quantized", wname + "_scale", wname + "_zero_point"],
            [wname + "_dequantized"], name=wname + "_DequantizeLinear", axis=axis)]))
        node.input[1] = wname + "_dequantized"
        quantized += 1
    if not quantized:
        sys.exit("%s covers no MatMul, Gemm, Conv or ConvTranspose with a "
                 "constant weight of %s"
                 % (a.calibration, a.model))

    # Weights whose every reader now reads the quantized copy are dropped.
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    # Topological order: each activation's QDQ pair right after its producer
    # (or first, for graph inputs); weight dequantizers first.
    producers = {o: i for i, n in enumerate(g.node) for o in n.output}
    nodes = list(g.node)
    after = {}
    first = []
    for x, pair in new_nodes:
        if x is None or x not in producers:
            first += pair
        else:
            after.setdefault(producers[x], []).extend(pair)
    ordered = list(first)
    for i, n in enumerate(nodes):
        ordered.append(n)
        ordered += after.get(i, [])
    del g.node[:]
    g.node.extend(ordered)
    if not all(op.domain not in ("", "ai.onnx") or op.version >= 13
               for op in model.opset_import):
        sys.exit("%s: per-channel DequantizeLinear needs opset 13 or later" % a.model)
    onnx.checker.check_model(model)
    tmp = a.output + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, a.output)
    print("quantized %d inner products and convolutions (%d activation QDQ "
          "pairs): %s" % (quantized, len(qdq), a.output))


def scale_of(inits, x):
    """The activation scale written for tensor x."""
    return next(float(numpy_helper.to_array(t)) for t in inits
                if t.name == x + "_scale")


def fold_batch_norm(g, conv, w, inits):
    """Folds a BatchNormalization that is the Conv's only reader into the
    Conv's weight and bias (updating the initializers and removing the
    node); returns the weight to quantize."""
    out = conv.output[0]
    readers = [n for n in g.node if out in n.input]
    if len(readers) != 1 or readers[0].op_type != "BatchNormalization" or \
            out in (o.name for o in g.output) or \
            not all(i in inits for i in readers[0].input[1:5]):
        return w
    bn = readers[0]
    gamma, beta, mean, var = (numpy_helper.to_array(inits[i]).astype(np.float64)
                              for i in bn.input[1:5])
    eps = next((at.f for at in bn.attribute if at.name == "epsilon"), 1e-5)
    k = gamma / np.sqrt(var + eps)
    w = (w * k.reshape(-1, *([1] * (w.ndim - 1)))).astype(np.float32)
    b = numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64) \
        if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0])
    b = ((b - mean) * k + beta).astype(np.float32)
    wname, bname = conv.input[1] + "_bn_folded", conv.output[0] + "_bn_bias"
    for name, v in ((wname, w), (bname, b)):
        t = numpy_helper.from_array(v, name)
        g.initializer.append(t)
        inits[name] = t
    x = conv.input[0]
    del conv.input[:]
    conv.input.extend([x, wname, bname])
    conv.output[0] = bn.output[0]
    g.node.remove(bn)
    return w


if __name__ == "__main__":
    main()
