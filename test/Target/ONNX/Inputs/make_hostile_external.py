"""Writes models whose external data tries to leave the model's directory
(or is not data at all) into DIR/models, with a real data file beside
them and a file outside: the importer must refuse each, naming the tensor.

  make_hostile_external.py DIR

Every place a model names a file is tried with every escape:
  sites    init      an initializer
           constant  a Constant node's value
           cos       a ConstantOfShape's value
           freeze    a TensorProto given to --freeze-input (freeze-ATTACK.pb,
                     used with freeze.onnx), relative to the .pb's directory
  attacks  dotdot    ../secret.bin
           absolute  /etc/passwd
           symlink   escape.bin, a symlink to ../secret.bin
           device    /dev/zero
           devlink   zero.bin, a symlink to /dev/zero
           fifo      pipe.bin, a FIFO in the model's directory
The other models (ok, badoffset, ...) check offsets, lengths and sizes.
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
for name, target in (("escape.bin", os.path.join(out, "secret.bin")),
                     ("zero.bin", "/dev/zero")):
    link = os.path.join(models, name)
    if not os.path.lexists(link):
        os.symlink(target, link)
if not os.path.exists(os.path.join(models, "pipe.bin")):
    os.mkfifo(os.path.join(models, "pipe.bin"))

ATTACKS = {"dotdot": "../secret.bin", "absolute": "/etc/passwd",
           "symlink": "escape.bin", "device": "/dev/zero",
           "devlink": "zero.bin", "fifo": "pipe.bin"}


def external(name, location, dims, extra=None):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in dict({"location": location}, **(extra or {})).items():
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    with open(os.path.join(models, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def vi(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(dims))


def model(name, ext, dims=(8,), x_dims=None):
    """y = x + w, w an initializer in external data."""
    save(name, [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
         [vi("x", x_dims or dims)], [vi("y", dims)],
         [external("w", ext.pop("location"), dims, ext)])


def constant_model(name, location):
    """y = x + w, w a Constant node whose value is in external data."""
    value = external("w", location, (8,))
    save(name, [helper.make_node("Constant", [], ["w"], name="const",
                                 value=value),
                helper.make_node("Add", ["x", "w"], ["y"], name="add")],
         [vi("x", (8,))], [vi("y", (8,))])


def cos_model(name, location):
    """y = x + ConstantOfShape([8]) whose value is in external data."""
    shape = helper.make_tensor("shape", TensorProto.INT64, [1], [8])
    save(name, [helper.make_node("ConstantOfShape", ["shape"], ["c"],
                                 name="fill",
                                 value=external("v", location, (1,))),
                helper.make_node("Add", ["x", "c"], ["y"], name="add")],
         [vi("x", (8,))], [vi("y", (8,))], [shape])


for attack, location in ATTACKS.items():
    model("init-" + attack, {"location": location})
    constant_model("constant-" + attack, location)
    cos_model("cos-" + attack, location)
    with open(os.path.join(models, "freeze-%s.pb" % attack), "wb") as f:
        f.write(external("c", location, (8,)).SerializeToString())
# --freeze-input c=freeze-ATTACK.pb replaces input c.
save("freeze", [helper.make_node("Add", ["x", "c"], ["y"], name="add")],
     [vi("x", (8,)), vi("c", (8,))], [vi("y", (8,))])

model("ok", {"location": "w.bin"})
model("badoffset", {"location": "w.bin", "offset": "12abc"})
model("negative", {"location": "w.bin", "length": "-4"})
model("pastend", {"location": "w.bin", "offset": "16", "length": "32"})
model("huge", {"location": "w.bin"}, dims=(2**62 + 1, 4), x_dims=(4,))
