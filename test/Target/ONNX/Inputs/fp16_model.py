# An fp16 model as an fp16 converter without keep_io_types writes it: an
# f16 graph input, an f16 weight (with a subnormal, the largest half, -0
# and inf), an f16 MatMul, a Cast to f16 and one back to float.
# fp16-widen.test imports it. Usage: fp16_model.py OUT.onnx
import sys, numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh
w = np.array([[1.5, -2.0], [2**-24, 65504.0], [-0.0, np.inf]], dtype=np.float16)
g = h.make_graph(
    [h.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
     h.make_node("Cast", ["m"], ["m16"], to=T.FLOAT16, name="to16"),
     h.make_node("Cast", ["m16"], ["y"], to=T.FLOAT, name="to32")],
    "fp16", [h.make_tensor_value_info("x", T.FLOAT16, [2, 3])],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 2])], [nh.from_array(w, "w")])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, sys.argv[1])
