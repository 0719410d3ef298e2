"""Writes small binary ONNX models for the importer tests into DIR:

mlp.onnx           two Gemm layers with initializers in the model
external.onnx      the same weights stored as external data (external.bin)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
w1 = rng.standard_normal((16, 32)).astype(np.float32)
b1 = rng.standard_normal(32).astype(np.float32)
w2 = rng.standard_normal((32, 4)).astype(np.float32)


def model(name):
    inits = [numpy_helper.from_array(w1, "fc1.weight"),
             numpy_helper.from_array(b1, "fc1.bias"),
             numpy_helper.from_array(w2, "fc2.weight")]
    nodes = [helper.make_node("MatMul", ["x", "fc1.weight"], ["h0"], name="fc1/MatMul"),
             helper.make_node("Add", ["h0", "fc1.bias"], ["h1"], name="fc1/Add"),
             helper.make_node("Relu", ["h1"], ["h2"], name="relu"),
             helper.make_node("MatMul", ["h2", "fc2.weight"], ["y"], name="fc2/MatMul")]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


onnx.save(model("mlp"), os.path.join(out, "mlp.onnx"))
ext = model("external")
onnx.save(ext, os.path.join(out, "external.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="external.bin", size_threshold=0)
