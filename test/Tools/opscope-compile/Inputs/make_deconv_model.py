"""Two transposed convolutions that fusion leaves as they are (deconv-as-conv
rewrites undilated, ungrouped ones into their sub-pixel convolution and a
pixel shuffle): 3x3 stride 2 dilation 2 with output padding (8 -> 6
channels, ReLU) then 4x4 stride 2 pad 1 in 2 groups (6 -> 4). Both weights
and biases are constants.

  make_deconv_model.py OUT.onnx [--relu-only]

With --relu-only the model is a single Relu: nothing in it computes in a
lower precision.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
w1 = (rng.standard_normal((8, 6, 3, 3)) * 0.2).astype(np.float32)
b1 = (rng.standard_normal(6) * 0.1).astype(np.float32)
w2 = (rng.standard_normal((6, 2, 4, 4)) * 0.2).astype(np.float32)
b2 = (rng.standard_normal(4) * 0.1).astype(np.float32)
nodes = [
    helper.make_node("ConvTranspose", ["x", "w1", "b1"], ["d1"], name="/up1/ConvTranspose",
                     kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                     output_padding=[1, 1], dilations=[2, 2]),
    helper.make_node("Relu", ["d1"], ["r1"], name="/up1/Relu"),
    helper.make_node("ConvTranspose", ["r1", "w2", "b2"], ["y"], name="/up2/ConvTranspose",
                     kernel_shape=[4, 4], strides=[2, 2], pads=[1, 1, 1, 1], group=2),
]
if "--relu-only" in sys.argv:
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="/relu/Relu")], "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 7, 7])]),
        opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[1])
    sys.exit(0)
graph = helper.make_graph(
    nodes, "deconv",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 7, 7])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 32, 32])],
    [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, sys.argv[1])
