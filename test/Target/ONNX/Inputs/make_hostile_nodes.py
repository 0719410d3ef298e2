"""Writes models that ONNX 1.12's checker (or --no-check) lets through but
whose nodes are malformed, into DIR: each must be refused with an error
naming the node, never a crash.

nms-no-outputs.onnx (issue 54, a fuzzed model): an unnamed
NonMaxSuppression with no outputs, beside an Expand to 2^28 elements.
expand-2p28.onnx: that Expand alone.

  make_hostile_nodes.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
f32 = TensorProto.FLOAT


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


x = helper.make_tensor_value_info("x", f32, [2, 3])
y = helper.make_tensor_value_info("y", f32, [2, 3])
save("no-outputs", [helper.make_node("Relu", ["x"], [], name="r")], [x], [y])
save("sum-empty-input", [helper.make_node("Sum", ["x", ""], ["y"], name="s")], [x], [y])
save("relu-no-input", [helper.make_node("Relu", [], ["y"], name="r")], [x], [y])
img = helper.make_tensor_value_info("img", f32, [1, 1, 8, 8])
w = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
save("conv-stride0",
     [helper.make_node("Conv", ["img", "w"], ["c"], name="conv", strides=[0, 0],
                       auto_pad="SAME_UPPER")],
     [img], [helper.make_tensor_value_info("c", f32, [1, 1, 8, 8])], [w])
small = numpy_helper.from_array(np.array([[1, 2]], np.float32), "small")
shape = numpy_helper.from_array(np.array([1 << 20, 2], np.int64), "shape")
save("expand-huge",
     [helper.make_node("Expand", ["small", "shape"], ["big"], name="expand")],
     [], [helper.make_tensor_value_info("big", f32, [1 << 20, 2])], [small, shape])

# No name and no outputs: nothing could read it, yet it is malformed.
boxes = helper.make_tensor_value_info("boxes", f32, [1, 4, 4])
scores = helper.make_tensor_value_info("scores", f32, [1, 1, 4])
one = numpy_helper.from_array(np.array([1], np.float32), "one")
side = numpy_helper.from_array(np.array([1 << 14, 1 << 14], np.int64), "side")
expand = helper.make_node("Expand", ["one", "side"], ["big"], name="expand")
big = helper.make_tensor_value_info("big", f32, [1 << 14, 1 << 14])
save("nms-no-outputs",
     [expand, helper.make_node("NonMaxSuppression", ["boxes", "scores"], [])],
     [boxes, scores], [big], [one, side])
save("expand-2p28", [expand], [], [big], [one, side])
