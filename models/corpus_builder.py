"""The corpus generator's graph builder (models/generate.py): nodes and
initializers with torch-style names, seeded weights, block pruning."""

import re

import numpy as np
from onnx import helper, numpy_helper


class Builder:
    """Accumulates nodes and initializers with torch-style names."""

    def __init__(self, seed, sparse=False, dynq=False):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.sparse = sparse
        self.count = 0
        # quantize_dynamic's form of the encoders' linear layers (dynq_matmul):
        # the DynamicQuantizeLinear outputs of each quantized input.
        self.dynq = dynq
        self.dynq_inputs = {}

    def node(self, op, inputs, name, outputs=1, **attrs):
        outs = ["%s_output_%d" % (name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value, name, dtype=np.int64):
        """A Constant node, as torch.onnx emits for literals."""
        arr = np.array(value, dtype=dtype)
        return self.node("Constant", [], name,
                         value=numpy_helper.from_array(arr, name + "_value"))

    def init(self, array, name):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, shape, name, scale=0.02, prune=False):
        w = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        if prune and self.sparse == "4x4":
            w = prune_4x4(w)
        elif prune and self.sparse:
            w = prune_1x4(w)
        return self.init(w, name)


def prune_1x4(w, ratio=0.8):
    """Zeroes `ratio` of the 1x4 blocks (4 consecutive input features of one
    output; ONNX MatMul weights are K x N) with the smallest L1 norm."""
    k, n = w.shape
    assert k % 4 == 0
    blocks = np.abs(w.reshape(k // 4, 4, n)).sum(axis=1)  # (k/4, n)
    cut = np.quantile(blocks, ratio)
    keep = blocks > cut
    return (w.reshape(k // 4, 4, n) * keep[:, None, :]).reshape(k, n)


def prune_4x4(w, ratio=0.8):
    """Zeroes `ratio` of the 4x4 blocks (4 consecutive input features of 4
    consecutive outputs) with the smallest L1 norm."""
    k, n = w.shape
    assert k % 4 == 0 and n % 4 == 0
    blocks = np.abs(w.reshape(k // 4, 4, n // 4, 4)).sum(axis=(1, 3))
    cut = np.quantile(blocks, ratio)
    keep = blocks > cut
    return (w.reshape(k // 4, 4, n // 4, 4) * keep[:, None, :, None]).reshape(k, n)


def scope(prefix):
    """torch.onnx's node scope: module path with '/', list indices kept
    (encoder.layer.0.attention -> /encoder/layer.0/attention)."""
    return "/" + re.sub(r"/(\d+)", r".\1", prefix.replace(".", "/"))
