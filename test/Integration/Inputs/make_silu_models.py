"""SiLU models as torch exports them (test/Integration/silu-post-op-ort.test).

yolo: a YOLOv8-style stem and C2f block at opset 18, every nn.SiLU written
as Sigmoid and Mul (torch.onnx's form): a 3x3 stride-2 convolution, a 1x1
convolution split in two halves, a bottleneck of two 3x3 convolutions with
a residual Add, Concat and a SiLU of it (its own op), a 1x1 convolution, a depthwise 3x3 convolution,
then global pooling, Gemm and SiLU. One Sigmoid whose product is with
another tensor stays as it is. Writes the model, the input x.npy and the
output names.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(9)
inits, nodes = [], []


def w(name, shape, scale):
    inits.append(numpy_helper.from_array(
        rng.normal(0, scale, shape).astype(np.float32), name))
    return name


def silu(x, y):
    nodes.append(helper.make_node("Sigmoid", [x], [y + "_sig"], name=y + "/Sigmoid"))
    nodes.append(helper.make_node("Mul", [x, y + "_sig"], [y], name=y + "/Mul"))
    return y


def conv(x, y, cin, cout, k, stride=1, group=1, scale=None):
    scale = scale or 1.5 / np.sqrt(cin // group * k * k)
    wn = w(y + "_w", (cout, cin // group, k, k), scale)
    bn = w(y + "_b", (cout,), 0.5)
    nodes.append(helper.make_node(
        "Conv", [x, wn, bn], [y + "_conv"], name=y + "/Conv", kernel_shape=[k, k],
        strides=[stride, stride], pads=[k // 2] * 4, group=group))
    return silu(y + "_conv", y)


stem = conv("x", "stem", 3, 32, 3, stride=2)
cv1 = conv(stem, "cv1", 32, 64, 1)
nodes.append(helper.make_node("Split", [cv1, w("split", (2,), 0)], ["a", "b"],
                              name="split", axis=1))
inits[-1] = numpy_helper.from_array(np.array([32, 32], np.int64), "split")
m1 = conv("b", "m1", 32, 32, 3)
m2 = conv(m1, "m2", 32, 32, 3)
nodes.append(helper.make_node("Add", ["b", m2], ["res"], name="res"))
nodes.append(helper.make_node("Concat", ["a", "b", "res"], ["cat"], name="cat", axis=1))
# A SiLU of a concat: no producer to fuse into, it runs as its own op.
cat = silu("cat", "cat_act")
cv2 = conv(cat, "cv2", 96, 64, 1)
dw = conv(cv2, "dw", 64, 64, 3, group=64)
# A sigmoid gate on another tensor (attention-like): not a SiLU.
nodes.append(helper.make_node("Sigmoid", [cv2], ["gate"], name="gate"))
nodes.append(helper.make_node("Mul", [dw, "gate"], ["gated"], name="gated"))
nodes.append(helper.make_node("GlobalAveragePool", ["gated"], ["gap"], name="gap"))
nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flat"))
nodes.append(helper.make_node("Gemm", ["flat", w("fc_w", (64, 40), 0.5),
                                       w("fc_b", (40,), 1.0)], ["fc"], name="fc"))
fc = silu("fc", "head")
graph = helper.make_graph(
    nodes, "silu_yolo",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64])],
    [helper.make_tensor_value_info("gated", TensorProto.FLOAT, [1, 64, 32, 32]),
     helper.make_tensor_value_info(fc, TensorProto.FLOAT, [1, 40])],
    inits)
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, out + "/yolo.onnx")
np.save(out + "/x.npy", rng.normal(0, 1.5, (1, 3, 64, 64)).astype(np.float32))
with open(out + "/yolo.outputs", "w") as f:
    f.write("gated %s\n" % fc)
