"""Writes models whose external data tries to leave the model's directory
(or is not data at all) into DIR/models, with a real data file beside
them and a file outside: the importer must refuse each, naming the tensor.

  make_hostile_external.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
models = os.path.join(out, "models")
os.makedirs(models, exist_ok=True)
w = np.arange(8, dtype=np.float32)
with open(os.path.join(models, "w.bin"), "wb") as f:
    f.write(w.tobytes())
with open(os.path.join(out, "secret.bin"), "wb") as f:
    f.write(w.tobytes())
link = os.path.join(models, "escape.bin")
if not os.path.lexists(link):
    os.symlink(os.path.join(out, "secret.bin"), link)


def model(name, external, dims=(8,)):
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in external.items():
        e = t.external_data.add()
        e.key, e.value = k, v
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    g = helper.make_graph([node], name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(dims))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))],
                          [t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    with open(os.path.join(models, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


model("ok", {"location": "w.bin"})
model("dotdot", {"location": "../secret.bin"})
model("absolute", {"location": "/etc/passwd"})
model("device", {"location": "/dev/zero"})
model("symlink", {"location": "escape.bin"})
model("badoffset", {"location": "w.bin", "offset": "12abc"})
model("negative", {"location": "w.bin", "length": "-4"})
model("pastend", {"location": "w.bin", "offset": "16", "length": "32"})
model("huge", {"location": "w.bin"}, dims=(2**62 + 1, 4))
