"""ReLU6 models as exporters write them (test/Integration/relu6-post-op-ort.test).

mobilenet13: a MobileNetV2 inverted residual block at opset 13, its ReLU6s
as Clip with min and max given as constant inputs (torch and Paddle2ONNX):
1x1 expand -> Clip -> 3x3 depthwise -> Clip -> 1x1 project -> Add (the
residual), then a 3x3 stride-2 convolution -> Clip, a transposed
convolution -> Clip, global pooling, Gemm -> Clip. One Clip to [0, 4]
is a clip post-op, not relu6.
mobilenet10: the same block at opset 10, Clip's min and max as attributes.
Weights are scaled so that activations cross both bounds. Writes the models,
the input x.npy and, per model, the output names.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(6)


def const(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


def model(opset):
    inits, nodes = [], []

    def w(name, shape, scale):
        inits.append(const(name, rng.normal(0, scale, shape)))
        return name

    def clip(x, y, lo=0.0, hi=6.0):
        if opset >= 11:
            lo_n, hi_n = y + "_min", y + "_max"
            inits.append(const(lo_n, lo))
            inits.append(const(hi_n, hi))
            nodes.append(helper.make_node("Clip", [x, lo_n, hi_n], [y], name=y))
        else:
            nodes.append(helper.make_node("Clip", [x], [y], name=y, min=lo, max=hi))
        return y

    def conv(x, y, cin, cout, k, stride=1, group=1, scale=0.6):
        wn = w(y + "_w", (cout, cin // group, k, k), scale)
        bn = w(y + "_b", (cout,), 0.5)
        nodes.append(helper.make_node(
            "Conv", [x, wn, bn], [y], name=y, kernel_shape=[k, k],
            strides=[stride, stride], pads=[k // 2] * 4, group=group))
        return y

    e = clip(conv("x", "expand", 16, 64, 1), "relu6_a")
    d = clip(conv(e, "dw", 64, 64, 3, group=64), "relu6_b")
    p = conv(d, "project", 64, 16, 1, scale=0.3)
    nodes.append(helper.make_node("Add", ["x", p], ["block"], name="block"))
    s = clip(conv("block", "down", 16, 32, 3, stride=2), "relu6_c")
    four = clip(conv(s, "mid", 32, 32, 1), "clip4", 0.0, 4.0)
    wt = w("up_w", (32, 16, 2, 2), 0.4)
    nodes.append(helper.make_node("ConvTranspose", [four, wt], ["up"],
                                  name="up", strides=[2, 2]))
    u = clip("up", "relu6_d")
    nodes.append(helper.make_node("GlobalAveragePool", [s], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flat"))
    wg = w("fc_w", (32, 24), 2.0)
    bg = w("fc_b", (24,), 1.0)
    nodes.append(helper.make_node("Gemm", ["flat", wg, bg], ["fc"], name="fc"))
    f = clip("fc", "relu6_e")
    graph = helper.make_graph(
        nodes, "relu6_%d" % opset,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 32, 32])],
        [helper.make_tensor_value_info(u, TensorProto.FLOAT, [1, 16, 32, 32]),
         helper.make_tensor_value_info(f, TensorProto.FLOAT, [1, 24])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m, [u, f]


for opset in (13, 10):
    m, outs = model(opset)
    onnx.save(m, "%s/mobilenet%d.onnx" % (out, opset))
    with open("%s/mobilenet%d.outputs" % (out, opset), "w") as f:
        f.write(" ".join(outs) + "\n")
np.save("%s/x.npy" % out, rng.normal(0, 2.0, (1, 16, 32, 32)).astype(np.float32))
