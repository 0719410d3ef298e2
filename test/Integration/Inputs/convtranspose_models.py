#!/usr/bin/python3
"""Writes ConvTranspose models with constant weights (which osc-fuse turns
into a convolution, a depth-to-space shuffle and a crop) into DIR, one per
geometry, each as ct-NAME.onnx: input x [1, 4, 5, 6], a bias, and a ReLU
after (a post-op the rewrite carries).

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


def model(name, kernel, strides, pads, output_padding, oc):
    rng = np.random.default_rng(sum(map(ord, name)))
    ic, h, w = 4, 5, 6
    weight = (rng.standard_normal((ic, oc, *kernel)) * 0.5).astype(np.float32)
    bias = (rng.standard_normal(oc) * 0.2).astype(np.float32)
    out = [strides[i] * ((h, w)[i] - 1) + output_padding[i] + kernel[i] - pads[i] - pads[2 + i]
           for i in range(2)]
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["t"], name="/up/ConvTranspose",
                         kernel_shape=kernel, strides=strides, pads=pads,
                         output_padding=output_padding),
        helper.make_node("Relu", ["t"], ["y"], name="/up/Relu"),
    ]
    graph = helper.make_graph(
        nodes, "ct-" + name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc] + out)],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, case in CASES.items():
        onnx.save(model(name, *case), os.path.join(out, "ct-%s.onnx" % name))
        print("ct-%s:x=1x4x5x6" % name)


if __name__ == "__main__":
    main()
