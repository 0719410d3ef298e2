"""fp16 models for fp16.test, written to the directory argv[1]:
keep-io.onnx  as onnxconverter-common's convert_float16 with keep_io_types
              writes them: f32 graph input and output, Casts to and from
              FLOAT16 at the edges, fp16 weights (a raw_data blob, a bias) and
              activations inside;
io16.onnx     FLOAT16 graph input and output, and a FLOAT16 Constant stored
              in int32_data (the typed field: 16-bit patterns) with a
              subnormal, -inf and the largest half."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

w = nh.from_array(np.full((3, 2, 3, 3), 1.5, np.float16), "conv.weight")
b = nh.from_array(np.full((3,), 0.5, np.float16), "conv.bias")
nodes = [
    h.make_node("Cast", ["x"], ["x16"], to=T.FLOAT16, name="graph_input_cast0"),
    h.make_node("Conv", ["x16", "conv.weight", "conv.bias"], ["c"], pads=[1, 1, 1, 1], name="conv"),
    h.make_node("Relu", ["c"], ["r"], name="relu"),
    h.make_node("Cast", ["r"], ["y"], to=T.FLOAT, name="graph_output_cast0"),
]
g = h.make_graph(nodes, "keep_io", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 4, 4])],
                 [h.make_tensor_value_info("y", T.FLOAT, [1, 3, 4, 4])], [w, b],
                 value_info=[h.make_tensor_value_info(n, T.FLOAT16, None) for n in ("x16", "c", "r")])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "keep-io.onnx"))

bits = [0x0001, 0xFC00, 0x3C00, 0x7BFF]  # 2^-24, -inf, 1, 65504
k = onnx.TensorProto()
k.name = "k"
k.data_type = T.FLOAT16
k.dims.append(4)
k.int32_data.extend(bits)
nodes = [
    h.make_node("Constant", [], ["k"], value=k, name="const"),
    h.make_node("Add", ["x", "k"], ["a"], name="add"),
    h.make_node("Cast", ["a"], ["a32"], to=T.FLOAT, name="up"),
    h.make_node("Cast", ["a32"], ["y"], to=T.FLOAT16, name="down"),
]
g = h.make_graph(nodes, "io16", [h.make_tensor_value_info("x", T.FLOAT16, [2, 4])],
                 [h.make_tensor_value_info("y", T.FLOAT16, [2, 4])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 14)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "io16.onnx"))
