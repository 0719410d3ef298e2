"""Writes tiny models that ask for huge tensors into DIR: each is a few
hundred bytes, and none may cost the compiler more than a small fixed amount
of time and memory.

  make_memory_bombs.py DIR

  cos28.onnx   ConstantOfShape 2^28 f32 (1 GiB) as the graph output
  cos31.onnx   ConstantOfShape 2^31 f32 (8 GiB) as the graph output
  cosadd.onnx  x + ConstantOfShape(shape of x): a splat feeding a kernel
  range24.onnx Range(0, 2^24, 1) as the graph output
  big_input.onnx  Relu on an input whose shape --input-shape gives
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def const_of_shape(name, dims):
    shape = numpy_helper.from_array(np.array(dims, dtype=np.int64), "shape")
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [1.5])
    save(name,
         [helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill",
                           value=value)],
         [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)],
         [shape])


const_of_shape("cos28", [1 << 14, 1 << 14])
const_of_shape("cos31", [1 << 16, 1 << 15])

# A splat a kernel reads: y = x + fill(x's shape).
save("cosadd",
     [helper.make_node("Shape", ["x"], ["s"], name="shape"),
      helper.make_node("ConstantOfShape", ["s"], ["c"], name="fill",
                       value=helper.make_tensor("value", TensorProto.FLOAT,
                                                [1], [2.0])),
      helper.make_node("Add", ["x", "c"], ["y"], name="add")],
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 512])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 512])])

scalars = [numpy_helper.from_array(np.array(v, dtype=np.int64), n)
           for n, v in (("start", 0), ("limit", 1 << 24), ("delta", 1))]
save("range24",
     [helper.make_node("Range", ["start", "limit", "delta"], ["y"],
                       name="range")],
     [], [helper.make_tensor_value_info("y", TensorProto.INT64, [1 << 24])],
     scalars)

save("big_input", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "m"])])
