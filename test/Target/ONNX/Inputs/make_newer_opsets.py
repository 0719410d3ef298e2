"""Writes the models of newer-opsets.test and errors/newer-opsets.test into
DIR: graphs at opsets 18 to 21 (the IR versions torch writes with them)
using the op versions those opsets introduced, which Debian's libonnx 1.12
does not know, and models those versions make invalid.

  make_newer_opsets.py DIR

opset18.onnx .. opset21.onnx: one input x (2x6x5x4 f32, x.npy) and one
  f32 output per case, declared with the shape ONNX gives it (the importer
  checks it); DIR/opsetN.outputs lists the output names.
bad-*.onnx: one failing node each (see the dictionary at the end).
opset22.onnx: a Relu at opset 22, past what opscope imports.
bool-empty.onnx: boolean ReduceMax/ReduceMin over an empty axis, with
  e.npy and the expected emax.npy, emin.npy.
"""
import os
import sys

import numpy as np
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1821)
f32 = T.FLOAT
IR = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10}
X_SHAPE = [2, 6, 5, 4]


def const(name, values, dtype):
    return nh.from_array(np.array(values, dtype=dtype), name)


def save(name, opset, nodes, outputs, inits=(), inputs=None):
    graph = h.make_graph(
        nodes, name, inputs or [h.make_tensor_value_info("x", f32, X_SHAPE)],
        [h.make_tensor_value_info(o, f32, shape) for o, shape in outputs],
        initializer=list(inits))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)],
                         producer_name="make_newer_opsets")
    model.ir_version = IR[opset]
    # Not onnx.checker: libonnx 1.12's knows none of these op versions.
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())
    with open(os.path.join(out, name + ".outputs"), "w") as f:
        f.write("\n".join(o for o, _ in outputs) + "\n")


n = h.make_node

# Opset 18: reductions with axes as an input, Split's num_outputs, Pad's
# axes, Resize's axes / keep_aspect_ratio_policy / antialias, Mish,
# GroupNormalization (scale and bias per group).
save("opset18", 18, [
    n("ReduceMean", ["x", "ax13"], ["rmean"], name="/rmean", keepdims=1),
    n("ReduceMax", ["x", "ax2"], ["rmax"], name="/rmax", keepdims=0),
    n("ReduceL2", ["x"], ["rl2"], name="/rl2", keepdims=0),
    n("ReduceLogSumExp", ["x", "ax3"], ["rlse"], name="/rlse"),
    n("ReduceSumSquare", ["x", "ax02"], ["rss"], name="/rss", keepdims=0),
    n("ReduceProd", ["x", "empty"], ["rnoop"], name="/rnoop",
      noop_with_empty_axes=1),
    n("Split", ["x"], ["s0", "s1"], name="/split", axis=2, num_outputs=2),
    n("Pad", ["x", "pads4", "half", "ax23"], ["padc"], name="/pad_axes"),
    n("Pad", ["x", "pads2", "", "ax1"], ["padr"], name="/pad_reflect",
      mode="reflect"),
    n("Resize", ["x", "", "sc2"], ["rsz_axes"], name="/resize_axes",
      mode="linear", axes=[2, 3]),
    n("Resize", ["x", "", "", "sz79"], ["rsz_notlarger"], name="/resize_nl",
      mode="nearest", axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
    n("Resize", ["x", "", "", "sz33"], ["rsz_notsmaller"], name="/resize_ns",
      mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_smaller"),
    n("Resize", ["x", "", "sc2"], ["rsz_aa_up"], name="/resize_aa_up",
      mode="linear", axes=[2, 3], antialias=1),
    n("Mish", ["x"], ["mish"], name="/mish"),
    n("GroupNormalization", ["x", "gscale", "gbias"], ["gn"], name="/gn",
      num_groups=3, epsilon=1e-3),
], [("rmean", [2, 1, 5, 1]), ("rmax", [2, 6, 4]), ("rl2", []),
    ("rlse", [2, 6, 5, 1]), ("rss", [6, 4]), ("rnoop", X_SHAPE),
    ("s0", [2, 6, 3, 4]), ("s1", [2, 6, 2, 4]), ("padc", [2, 6, 6, 7]),
    ("padr", [2, 9, 5, 4]), ("rsz_axes", [2, 6, 10, 6]),
    # not_larger: one scale, min(7/5, 9/4) = 1.4; not_smaller: max(3/5,
    # 3/4) = 0.75; sizes round(scale * size).
    ("rsz_notlarger", [2, 6, 7, 6]), ("rsz_notsmaller", [2, 6, 4, 3]),
    ("rsz_aa_up", [2, 6, 10, 6]), ("mish", X_SHAPE), ("gn", X_SHAPE)], [
    const("ax13", [1, -1], np.int64), const("ax2", [2], np.int64),
    const("ax3", [3], np.int64), const("ax02", [0, 2], np.int64),
    const("empty", [], np.int64),
    const("pads4", [1, 2, 0, 1], np.int64), const("half", 0.5, np.float32),
    const("ax23", [2, -1], np.int64), const("pads2", [1, 2], np.int64),
    const("ax1", [1], np.int64), const("sc2", [2.0, 1.5], np.float32),
    const("sz79", [7, 9], np.int64), const("sz33", [3, 3], np.int64),
    const("gscale", [0.5, 1.5, -1.0], np.float32),
    const("gbias", [0.1, -0.2, 0.3], np.float32)])

# Opset 19: Pad's wrap mode, Cast's saturate, AveragePool's dilations,
# Resize's half_pixel_symmetric, and versions that only widen types
# (Reshape, Shape, Equal), which ONNX's checker checks.
save("opset19", 19, [
    n("Pad", ["x", "pads8"], ["padw"], name="/pad_wrap", mode="wrap"),
    n("Cast", ["x"], ["i16"], name="/to_i32", to=T.INT32, saturate=1),
    n("Cast", ["i16"], ["cast"], name="/to_f32", to=T.FLOAT),
    n("AveragePool", ["x"], ["apool"], name="/avgpool", kernel_shape=[2, 2],
      dilations=[2, 1], strides=[1, 2]),
    n("Resize", ["x", "", "sc4"], ["rsz_sym"], name="/resize_sym",
      mode="linear", coordinate_transformation_mode="half_pixel_symmetric"),
    n("Shape", ["x"], ["shp"], name="/shape", start=1),
    n("Reshape", ["x", "flat"], ["resh"], name="/reshape"),
    n("Equal", ["x", "x"], ["eq"], name="/equal"),
    n("Cast", ["eq"], ["eqf"], name="/eq_f32", to=T.FLOAT),
], [("padw", [2, 6, 8, 7]), ("cast", X_SHAPE), ("apool", [2, 6, 3, 2]),
    ("rsz_sym", [2, 6, 7, 3]), ("resh", [2, 120]), ("eqf", X_SHAPE)], [
    const("pads8", [0, 0, 1, 2, 0, 0, 2, 1], np.int64),
    const("sc4", [1.0, 1.0, 1.5, 0.75], np.float32),
    const("flat", [2, -1], np.int64)])

# Opset 20: Gelu (exact and tanh), ReduceMax/ReduceMin of booleans,
# IsNaN/IsInf and ConstantOfShape (types only).
save("opset20", 20, [
    n("Gelu", ["x"], ["gelu"], name="/gelu"),
    n("Gelu", ["x"], ["gelu_tanh"], name="/gelu_tanh", approximate="tanh"),
    n("Greater", ["x", "zero"], ["pos"], name="/pos"),
    n("ReduceMax", ["pos", "ax1"], ["anyb"], name="/any", keepdims=1),
    n("ReduceMin", ["pos", "ax1"], ["allb"], name="/all", keepdims=0),
    n("Cast", ["anyb"], ["any"], name="/any_f32", to=T.FLOAT),
    n("Cast", ["allb"], ["all"], name="/all_f32", to=T.FLOAT),
    n("IsNaN", ["x"], ["nan"], name="/isnan"),
    n("Cast", ["nan"], ["nanf"], name="/nan_f32", to=T.FLOAT),
    n("ConstantOfShape", ["shape"], ["cos"], name="/cos",
      value=nh.from_array(np.array([1.5], np.float32))),
    n("Add", ["x", "cos"], ["plus"], name="/plus"),
], [("gelu", X_SHAPE), ("gelu_tanh", X_SHAPE), ("any", [2, 1, 5, 4]),
    ("all", [2, 5, 4]), ("nanf", X_SHAPE), ("plus", X_SHAPE)], [
    const("zero", 0.0, np.float32), const("ax1", [1], np.int64),
    const("shape", [5, 4], np.int64)])

# Opset 21: GroupNormalization with scale and bias per channel, and the
# versions that only widen types (Cast, Flatten, Transpose, Squeeze,
# Unsqueeze, Pad, Reshape).
save("opset21", 21, [
    n("GroupNormalization", ["x", "cscale", "cbias"], ["gn"], name="/gn",
      num_groups=2, stash_type=1),
    n("Transpose", ["x"], ["tr"], name="/transpose", perm=[0, 2, 3, 1]),
    n("Unsqueeze", ["tr", "ax0"], ["un"], name="/unsqueeze"),
    n("Squeeze", ["un", "ax0"], ["sq"], name="/squeeze"),
    n("Flatten", ["sq"], ["flat"], name="/flatten", axis=2),
    n("Pad", ["x", "pads2", "", "ax3"], ["pade"], name="/pad_edge",
      mode="edge"),
    n("Cast", ["x"], ["i32"], name="/to_i32", to=T.INT32),
    n("Cast", ["i32"], ["trunc"], name="/to_f32", to=T.FLOAT),
], [("gn", X_SHAPE), ("flat", [10, 24]), ("pade", [2, 6, 5, 7]),
    ("trunc", X_SHAPE)], [
    const("cscale", rng.uniform(0.5, 1.5, 6), np.float32),
    const("cbias", rng.uniform(-0.5, 0.5, 6), np.float32),
    const("ax0", [0], np.int64), const("ax3", [3], np.int64),
    const("pads2", [2, 1], np.int64)])

np.save(os.path.join(out, "x.npy"),
        (rng.standard_normal(X_SHAPE) * 2).astype(np.float32))

# ReduceMax/ReduceMin of booleans over an empty axis: the spec's False and
# True (the type's lowest and highest value). ONNX Runtime refuses them,
# so the expected outputs are written here.
empty = h.make_graph(
    [n("ReduceMax", ["e", "ax1"], ["emax"], name="/empty_any", keepdims=0),
     n("ReduceMin", ["e", "ax1"], ["emin"], name="/empty_all", keepdims=0)],
    "bool_empty", [h.make_tensor_value_info("e", T.BOOL, [3, 0])],
    [h.make_tensor_value_info(o, T.BOOL, [3]) for o in ("emax", "emin")],
    [const("ax1", [1], np.int64)])
model = h.make_model(empty, opset_imports=[h.make_opsetid("", 20)])
model.ir_version = IR[20]
with open(os.path.join(out, "bool-empty.onnx"), "wb") as f:
    f.write(model.SerializeToString())
np.save(os.path.join(out, "e.npy"), np.zeros((3, 0), np.bool_))
np.save(os.path.join(out, "emax.npy"), np.zeros(3, np.bool_))
np.save(os.path.join(out, "emin.npy"), np.ones(3, np.bool_))

# Models opscope refuses, each naming its node.
bad = {
    # A wrong attribute type on a post-17 op version (keepdims a float).
    "bad-attr-type": (18, [n("ReduceMean", ["x", "ax1"], ["y"],
                             name="/bad_keepdims", keepdims=1.0)]),
    # An attribute the version does not have.
    "bad-attr-name": (18, [n("Mish", ["x"], ["y"], name="/bad_mish",
                             alpha=1.0)]),
    # A string value the spec does not allow.
    "bad-attr-value": (20, [n("Gelu", ["x"], ["y"], name="/bad_gelu",
                              approximate="fast")]),
    # A required attribute missing.
    "bad-missing-attr": (18, [n("GroupNormalization", ["x", "g", "g"], ["y"],
                                name="/bad_gn")]),
    # Too many inputs for Split-18.
    "bad-arity": (18, [n("Split", ["x", "ax1", "ax1"], ["y"],
                         name="/bad_split")]),
    # Resize-18's half_pixel_symmetric arrived at 19.
    "bad-ctm-18": (18, [n("Resize", ["x", "", "sc"], ["y"],
                          name="/bad_resize",
                          coordinate_transformation_mode="half_pixel_symmetric")]),
    # num_outputs that cannot split 6 channels (chunks of 2: 2+2+2+2 > 6).
    "bad-num-outputs": (18, [n("Split", ["x"], ["y", "a", "b", "c", "d"],
                               name="/bad_chunks", axis=1, num_outputs=5)]),
    # antialias on a linear downscale: refused.
    "bad-antialias": (18, [n("Resize", ["x", "", "sc"], ["y"],
                             name="/aa_down", mode="linear", antialias=1)]),
    # Gelu before opset 20.
    "bad-gelu-18": (18, [n("Gelu", ["x"], ["y"], name="/early_gelu")]),
    # An op opset 18 added that opscope does not convert.
    "bad-unsupported": (18, [n("BitwiseNot", ["i"], ["y"], name="/bitnot")]),
    # A malformed Split-18 (num_outputs a float) in the branch a constant If
    # does not take: refused all the same.
    "bad-untaken-branch": (18, [n(
        "If", ["t"], ["y"], name="/const_if",
        then_branch=h.make_graph(
            [n("Relu", ["x"], ["yt"], name="/taken_relu")], "then", [],
            [h.make_tensor_value_info("yt", f32, X_SHAPE)]),
        else_branch=h.make_graph(
            [n("Split", ["x"], ["ye"], name="/untaken_split", axis=1,
               num_outputs=1.0)], "else", [],
            [h.make_tensor_value_info("ye", f32, X_SHAPE)]))]),
    # Blocked quantization (opset 21).
    "bad-blocked": (21, [n("QuantizeLinear", ["x", "s"], ["y"],
                           name="/blocked_q", axis=1, block_size=2)]),
}
inits = [const("ax1", [1], np.int64), const("g", [1.0, 1.0], np.float32),
         const("sc", [1.0, 1.0, 0.5, 0.5], np.float32),
         const("s", np.full((2, 3, 5, 4), 0.1), np.float32),
         const("t", True, np.bool_)]
for name, (opset, nodes) in bad.items():
    used = {i for node in nodes for i in node.input}
    inputs = [h.make_tensor_value_info("x", f32, X_SHAPE)]
    if "i" in used:
        inputs = [h.make_tensor_value_info("i", T.INT32, [4])]
    outs = [(o, X_SHAPE) for o in nodes[0].output]
    save(name, opset, nodes, outs, [i for i in inits if i.name in used],
         inputs)

save("opset22", 22, [n("Relu", ["x"], ["y"], name="/relu")], [("y", X_SHAPE)])
