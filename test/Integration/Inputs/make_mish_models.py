"""Mish models as exporters write them (test/Integration/mish-post-op-ort.test).

csp: a YOLOv4-style CSPDarknet stem and CSP stage as torch.onnx exports
nn.Mish below opset 18 (opset 13): Softplus, Tanh and Mul after every
convolution. A 3x3 convolution with a BatchNormalization after it, a 3x3
stride-2 one, the CSP split into two 1x1 convolutions, a residual block (1x1
then 3x3, Add), Concat, a Mish of the concat (its own op), a 1x1
transition convolution, then global pooling and Gemm with Mish. A Softplus
whose Tanh gates another tensor stays as it is.
csp18: the same graph at opset 18 with ONNX's Mish op.
Writes csp.onnx, csp18.onnx and the input x.npy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def build(opset):
    rng = np.random.default_rng(13)
    inits, nodes = [], []

    def w(name, shape, scale, offset=0.0):
        inits.append(numpy_helper.from_array(
            (offset + rng.normal(0, scale, shape)).astype(np.float32), name))
        return name

    def mish(x, y):
        if opset >= 18:
            nodes.append(helper.make_node("Mish", [x], [y], name=y + "/Mish"))
            return y
        nodes.append(helper.make_node("Softplus", [x], [y + "_sp"], name=y + "/Softplus"))
        nodes.append(helper.make_node("Tanh", [y + "_sp"], [y + "_t"], name=y + "/Tanh"))
        nodes.append(helper.make_node("Mul", [x, y + "_t"], [y], name=y + "/Mul"))
        return y

    def conv(x, y, cin, cout, k, stride=1, bn=False):
        scale = 1.5 / np.sqrt(cin * k * k)
        wn = w(y + "_w", (cout, cin, k, k), scale)
        ins = [x, wn] if bn else [x, wn, w(y + "_b", (cout,), 0.5)]
        nodes.append(helper.make_node(
            "Conv", ins, [y + "_conv"], name=y + "/Conv", kernel_shape=[k, k],
            strides=[stride, stride], pads=[k // 2] * 4))
        t = y + "_conv"
        if bn:
            nodes.append(helper.make_node(
                "BatchNormalization",
                [t, w(y + "_g", (cout,), 0.2, 1.0), w(y + "_be", (cout,), 0.3),
                 w(y + "_m", (cout,), 0.3), w(y + "_v", (cout,), 0.1, 1.0)],
                [y + "_bn"], name=y + "/BatchNormalization", epsilon=1e-5))
            t = y + "_bn"
        return mish(t, y)

    stem = conv("x", "stem", 3, 32, 3, bn=True)
    down = conv(stem, "down", 32, 64, 3, stride=2)
    a = conv(down, "split0", 64, 32, 1)
    b = conv(down, "split1", 64, 32, 1)
    r1 = conv(b, "res1", 32, 32, 1)
    r2 = conv(r1, "res2", 32, 32, 3)
    nodes.append(helper.make_node("Add", [b, r2], ["res"], name="res"))
    nodes.append(helper.make_node("Concat", [a, "res"], ["cat"], name="cat", axis=1))
    # A Mish of a concat: no producer to fuse into, it runs as its own op.
    cat = mish("cat", "cat_act")
    trans = conv(cat, "trans", 64, 64, 1)
    # A softplus and tanh gating another tensor: not a Mish.
    nodes.append(helper.make_node("Softplus", [down], ["g_sp"], name="gate/Softplus"))
    nodes.append(helper.make_node("Tanh", ["g_sp"], ["g_t"], name="gate/Tanh"))
    nodes.append(helper.make_node("Mul", [trans, "g_t"], ["gated"], name="gate/Mul"))
    nodes.append(helper.make_node("GlobalAveragePool", ["gated"], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flat"))
    nodes.append(helper.make_node("Gemm", ["flat", w("fc_w", (64, 40), 0.5),
                                           w("fc_b", (40,), 1.0)], ["fc"], name="fc"))
    head = mish("fc", "head")
    graph = helper.make_graph(
        nodes, "mish_csp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 64, 64])],
        [helper.make_tensor_value_info("gated", TensorProto.FLOAT, [1, 64, 32, 32]),
         helper.make_tensor_value_info(head, TensorProto.FLOAT, [1, 40])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    # Debian's onnx (1.13) predates Mish-18 and its checker refuses it;
    # ONNX Runtime and opscope's importer know it (NewerOpsets.cpp).
    if opset < 18:
        onnx.checker.check_model(m)
    return m


onnx.save(build(13), out + "/csp.onnx")
onnx.save(build(18), out + "/csp18.onnx")
rng = np.random.default_rng(5)
np.save(out + "/x.npy", rng.normal(0, 1.5, (1, 3, 64, 64)).astype(np.float32))
