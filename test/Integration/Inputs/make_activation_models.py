"""Activations with parameters as exporters write them
(test/Integration/activation-post-ops-ort.test).

darknet (opset 13): a YOLOv3-tiny-like stem, Darknet's Conv -> BatchNorm ->
LeakyRelu(0.1) (the BatchNorm folds into the convolution): a 3x3 stride-1
convolution (a Winograd shape), MaxPool, a 3x3 stride-2 convolution, a 1x1
convolution, YOLOv3-tiny's zero Pad + MaxPool 2x2 stride 1; a depthwise 3x3 -> Clip(-1, 1) with the bounds as constant
inputs; a squeeze-excite gate as Paddle2ONNX writes MobileNetV3's
(GlobalAveragePool -> 1x1 Conv -> Relu -> 1x1 Conv -> HardSigmoid(0.2, 0.5)
-> Mul); a ConvTranspose -> Elu(0.5); a Gemm -> LeakyRelu(0.2), a Gemm ->
Elu (ONNX's default alpha 1), a Gemm -> HardSigmoid(0.2, 0.5), a MatMul +
Add -> Clip(-2, 3). One Clip with only a maximum stays an op.
Weights are scaled so that activations cross every bound and knee. Writes
the model, the input x.npy and the output names.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(55)
inits, nodes = [], []


def const(name, a):
    inits.append(numpy_helper.from_array(np.asarray(a, dtype=np.float32), name))
    return name


def w(name, shape, scale):
    return const(name, rng.normal(0, scale, shape))


def node(op, ins, name, **attrs):
    nodes.append(helper.make_node(op, ins, [name], name=name, **attrs))
    return name


def conv(x, y, cin, cout, k, stride=1, group=1, scale=0.3, bn=True):
    wn = w(y + "_w", (cout, cin // group, k, k), scale)
    c = node("Conv", [x, wn], y, kernel_shape=[k, k], strides=[stride] * 2,
             pads=[k // 2] * 4, group=group)
    if not bn:
        return c
    g = const(y + "_g", rng.uniform(0.5, 1.5, cout))
    b = const(y + "_beta", rng.normal(0, 0.5, cout))
    mu = const(y + "_mean", rng.normal(0, 0.2, cout))
    var = const(y + "_var", rng.uniform(0.5, 2.0, cout))
    return node("BatchNormalization", [c, g, b, mu, var], y + "_bn",
                epsilon=1e-5)


def leaky(x, y, alpha=0.1):
    return node("LeakyRelu", [x], y, alpha=alpha)


def clip(x, y, lo, hi):
    ins = [x, const(y + "_min", lo) if lo is not None else "",
           const(y + "_max", hi) if hi is not None else ""]
    while ins[-1] == "":
        ins.pop()
    return node("Clip", ins, y)


a = leaky(conv("x", "c1", 8, 32, 3), "leaky1")
p = node("MaxPool", [a], "pool", kernel_shape=[2, 2], strides=[2, 2])
b = leaky(conv(p, "c2", 32, 48, 3, stride=2), "leaky2")
c = leaky(conv(b, "c3", 48, 32, 1), "leaky3")
# YOLOv3-tiny's ZeroPad2d((0, 1, 0, 1)) + MaxPool 2x2 stride 1: zeros, not
# -inf, at the right and bottom edge (windows there hold negative values).
inits.append(numpy_helper.from_array(
    np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64), "pad_pads"))
c = node("MaxPool", [node("Pad", [c, "pad_pads"], "zero_pad", mode="constant")],
         "pool_s1", kernel_shape=[2, 2], strides=[1, 1])
d = clip(conv(c, "dw", 32, 32, 3, group=32, scale=0.6, bn=False), "clip_dw",
         -1.0, 1.0)
# Squeeze-excite (Paddle2ONNX's MobileNetV3): the gate multiplies d.
g = node("GlobalAveragePool", [d], "se_pool")
g = node("Relu", [conv(g, "se_fc1", 32, 8, 1, scale=0.8, bn=False)],
         "se_relu")
g = node("HardSigmoid", [conv(g, "se_fc2", 8, 32, 1, scale=1.5, bn=False)],
         "se_gate", alpha=0.2, beta=0.5)
se = node("Mul", [d, g], "se")
up = node("ConvTranspose", [se, w("up_w", (32, 16, 2, 2), 0.4)], "up",
          strides=[2, 2])
elu_up = node("Elu", [up], "elu_up", alpha=0.5)
capped = clip(conv(elu_up, "c4", 16, 16, 1, scale=0.8, bn=False), "cap",
              None, 0.5)
# The head: Gemms with each activation, and a MatMul + Add.
flat = node("Flatten", [node("GlobalAveragePool", [c], "head_pool")], "flat")


def gemm(x, y, k, n, scale):
    return node("Gemm", [x, w(y + "_w", (k, n), scale / np.sqrt(k)),
                         w(y + "_b", (n,), 0.5)], y)


h1 = leaky(gemm(flat, "fc1", 32, 40, 0.2), "fc1_leaky", 0.2)
h2 = node("Elu", [gemm(h1, "fc2", 40, 24, 1.5)], "fc2_elu")
h3 = node("HardSigmoid", [gemm(h2, "fc3", 24, 16, 2.0)], "fc3_gate", alpha=0.2,
          beta=0.5)
mm = node("MatMul", [h2, w("mm_w", (24, 12), 2.0 / np.sqrt(24))], "mm")
h4 = clip(node("Add", [mm, w("mm_b", (12,), 0.5)], "mm_bias"), "mm_clip",
          -2.0, 3.0)

outs = [elu_up, capped, h3, h4]
graph = helper.make_graph(
    nodes, "darknet_like",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32, 32])],
    [helper.make_tensor_value_info(o, TensorProto.FLOAT, s) for o, s in
     zip(outs, [[1, 16, 16, 16], [1, 16, 16, 16], [1, 16], [1, 12]])],
    inits)
m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
onnx.checker.check_model(m)
onnx.save(m, "%s/darknet.onnx" % out)
with open("%s/darknet.outputs" % out, "w") as f:
    f.write(" ".join(outs) + "\n")
np.save("%s/x.npy" % out, rng.normal(0, 1.5, (1, 8, 32, 32)).astype(np.float32))
