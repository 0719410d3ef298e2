"""A QDQ MLP as ONNX Runtime's quantize_static writes them (issue 12):
activations QuantizeLinear -> DequantizeLinear (u8, per tensor), weights
int8 per output channel (DequantizeLinear axis 1, zero point 0), then
MatMul + Add (+ Relu). Writes OUT/qdq.onnx, OUT/x.npy and OUT/want.npy, the
output computed with numpy in float64 from the same quantized values.

  make_qdq_model.py OUT_DIR [--int8-activations]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
s8 = "--int8-activations" in sys.argv
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3)
M, K, H, N = 8, 32, 64, 16
act_type = TensorProto.INT8 if s8 else TensorProto.UINT8
act_np = np.int8 if s8 else np.uint8
zp = 0 if s8 else 128
lo, hi = (-128, 127) if s8 else (0, 255)

nodes, inits = [], []


def q_dq(name, x, scale):
    inits.append(numpy_helper.from_array(np.array(scale, np.float32), name + "_s"))
    inits.append(numpy_helper.from_array(np.array(zp, act_np), name + "_z"))
    nodes.append(helper.make_node("QuantizeLinear", [x, name + "_s", name + "_z"], [name + "_q"], name=name + "_Q"))
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name + "_dq"], name=name + "_DQ"))
    return name + "_dq"


def weight(name, k, n):
    w = rng.standard_normal((k, n)).astype(np.float32) * 0.2
    scale = (np.abs(w).max(axis=0) / 127).astype(np.float32)
    wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    inits.append(numpy_helper.from_array(wq, name + "_wq"))
    inits.append(numpy_helper.from_array(scale, name + "_ws"))
    inits.append(numpy_helper.from_array(np.zeros(n, np.int8), name + "_wz"))
    nodes.append(helper.make_node("DequantizeLinear", [name + "_wq", name + "_ws", name + "_wz"], [name + "_w"], axis=1, name=name + "_wDQ"))
    b = (rng.standard_normal(n) * 0.1).astype(np.float32)
    inits.append(numpy_helper.from_array(b, name + "_b"))
    return wq.astype(np.float64) * scale.astype(np.float64), b.astype(np.float64)


def quant(x, scale):
    return (np.clip(np.rint(x / np.float32(scale)) + zp, lo, hi) - zp) * np.float64(np.float32(scale))


s1, s2 = 0.02, 0.05
w1, b1 = weight("fc1", K, H)
w2, b2 = weight("fc2", H, N)
a = q_dq("in", "x", s1)
nodes.append(helper.make_node("MatMul", [a, "fc1_w"], ["fc1_mm"], name="fc1/MatMul"))
nodes.append(helper.make_node("Add", ["fc1_mm", "fc1_b"], ["fc1_add"], name="fc1/Add"))
nodes.append(helper.make_node("Relu", ["fc1_add"], ["h"], name="fc1/Relu"))
a2 = q_dq("mid", "h", s2)
nodes.append(helper.make_node("MatMul", [a2, "fc2_w"], ["fc2_mm"], name="fc2/MatMul"))
nodes.append(helper.make_node("Add", ["fc2_mm", "fc2_b"], ["y"], name="fc2/Add"))
graph = helper.make_graph(nodes, "qdq_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "qdq.onnx"))

x = (rng.standard_normal((M, K)) * 1.5).astype(np.float32)
h = np.maximum(quant(x.astype(np.float64), s1) @ w1 + b1, 0).astype(np.float32)
y = quant(h.astype(np.float64), s2) @ w2 + b2
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "want.npy"), y.astype(np.float32))
