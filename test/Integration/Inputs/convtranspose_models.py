#!/usr/bin/python3
"""Writes ConvTranspose models with constant weights (which osc-fuse turns
into a convolution, a depth-to-space shuffle and a crop) into DIR, one per
geometry, each as ct-NAME.onnx: input x [1, 4, 5, 6], a bias, and a ReLU
after (a post-op the rewrite carries). Three of them again as
chain-NAME.onnx between two 3x3 convolutions, where osc-conv-layout keeps
the sub-pixel convolution and its shuffle channels-last, and two pixel
shuffles (DepthToSpace in DCR and CRD order between convolutions) as
d2s-MODE.onnx.

  convtranspose_models.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name: (kernel, strides, pads (begin..., end...), output_padding, out channels)
CASES = {
    "k3s2p1op1": ([3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 3),   # a U-Net's
    "k4s2p1": ([4, 4], [2, 2], [1, 1, 1, 1], [0, 0], 3),       # a GAN's
    "k3s2p0": ([3, 3], [2, 2], [0, 0, 0, 0], [0, 0], 2),       # no crop at the start
    "k5s3asym": ([5, 5], [3, 3], [2, 1, 1, 2], [1, 2], 2),     # uneven pads, output padding
    "k1s2": ([1, 1], [2, 2], [0, 0, 0, 0], [1, 1], 2),         # kernel < stride: bias-only outputs
    "k3s21": ([3, 3], [2, 1], [1, 1, 1, 1], [1, 0], 3),        # different strides per axis
    "k2s2": ([2, 2], [2, 2], [0, 0, 0, 0], [0, 0], 3),         # kernel == stride: 1x1
    "k3s1p1": ([3, 3], [1, 1], [1, 1, 1, 1], [0, 0], 3),       # stride 1
    "k4s2p3": ([4, 4], [2, 2], [3, 2, 2, 3], [0, 1], 2),       # pads past a stride: later first phase
}


# The geometries also run inside a chain of convolutions: no crop, a crop
# (which ends the chain), different strides per axis (a 6-D transpose).
CHAINED = ["k2s2", "k4s2p1", "k3s21"]


def conv3x3(rng, name, x, y, ic, oc):
    """A 3x3 convolution (pad 1) from x to y, its weights and bias."""
    w = (rng.standard_normal((oc, ic, 3, 3)) * 0.3).astype(np.float32)
    b = (rng.standard_normal(oc) * 0.1).astype(np.float32)
    node = helper.make_node("Conv", [x, name + "_w", name + "_b"], [y], name="/%s/Conv" % name,
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    return node, [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]


def finish(nodes, name, ic, h, w, out_shape, inits):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def model(name, kernel, strides, pads, output_padding, oc, chained=False):
    rng = np.random.default_rng(sum(map(ord, name)))
    ic, h, w = 4, 5, 6
    weight = (rng.standard_normal((ic, oc, *kernel)) * 0.5).astype(np.float32)
    bias = (rng.standard_normal(oc) * 0.2).astype(np.float32)
    out = [strides[i] * ((h, w)[i] - 1) + output_padding[i] + kernel[i] - pads[i] - pads[2 + i]
           for i in range(2)]
    nodes, inits = [], [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")]
    if chained:
        node, more = conv3x3(rng, "pre", "x", "c", ic, ic)
        nodes, inits = [node], inits + more
    nodes += [
        helper.make_node("ConvTranspose", ["c" if chained else "x", "w", "b"], ["t"],
                         name="/up/ConvTranspose", kernel_shape=kernel, strides=strides,
                         pads=pads, output_padding=output_padding),
        helper.make_node("Relu", ["t"], ["r" if chained else "y"], name="/up/Relu"),
    ]
    if chained:
        node, more = conv3x3(rng, "post", "r", "y", oc, 2)
        nodes, inits, oc = nodes + [node], inits + more, 2
    return finish(nodes, ("chain-" if chained else "ct-") + name, ic, h, w, [1, oc] + out, inits)


def pixel_shuffle(mode):
    """conv (4 -> 12 channels) -> DepthToSpace(2, mode) -> conv (3 -> 2)."""
    rng = np.random.default_rng(len(mode) + ord(mode[0]))
    first, w1 = conv3x3(rng, "pre", "x", "c", 4, 12)
    shuffle = helper.make_node("DepthToSpace", ["c"], ["s"], name="/shuffle/DepthToSpace",
                               blocksize=2, mode=mode)
    last, w2 = conv3x3(rng, "post", "s", "y", 3, 2)
    return finish([first, shuffle, last], "d2s-" + mode, 4, 5, 6, [1, 2, 10, 12], w1 + w2)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, case in CASES.items():
        onnx.save(model(name, *case), os.path.join(out, "ct-%s.onnx" % name))
        print("ct-%s:x=1x4x5x6" % name)
    for name in CHAINED:
        onnx.save(model(name, *CASES[name], chained=True),
                  os.path.join(out, "chain-%s.onnx" % name))
        print("chain-%s:x=1x4x5x6" % name)
    for mode in ("DCR", "CRD"):
        onnx.save(pixel_shuffle(mode), os.path.join(out, "d2s-%s.onnx" % mode))
        print("d2s-%s:x=1x4x5x6" % mode)


if __name__ == "__main__":
    main()
