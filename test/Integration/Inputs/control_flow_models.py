"""Writes the control-flow models and inputs of control-flow-ort.test.

if.onnx: an If on a graph input; each branch runs a MatMul (+ bias, an
activation) on the input, the outer graph adds a residual.
loop.onnx: a recurrence written as a Loop, h = tanh(h W + b), run while the
trip count M and a condition computed in the body (the sum of |h| below a
limit) allow; inside the body an If on the iteration's parity picks how h is
scaled, so control flow nests.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.default_rng(7)


def const(name, array):
    return nh.from_array(np.asarray(array), name)


def save(graph, name):
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 16)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, name))


# --- If ---------------------------------------------------------------------
w1 = rng.standard_normal((16, 16)).astype(np.float32) * 0.3
w2 = rng.standard_normal((16, 16)).astype(np.float32) * 0.3
then_g = h.make_graph(
    [h.make_node("MatMul", ["x", "w1"], ["t0"], name="then_matmul"),
     h.make_node("Relu", ["t0"], ["t"], name="then_relu")],
    "then", [], [h.make_tensor_value_info("t", T.FLOAT, [4, 16])])
else_g = h.make_graph(
    [h.make_node("MatMul", ["x", "w2"], ["e0"], name="else_matmul"),
     h.make_node("Tanh", ["e0"], ["e"], name="else_tanh")],
    "else", [], [h.make_tensor_value_info("e", T.FLOAT, [4, 16])])
save(h.make_graph(
    [h.make_node("If", ["c"], ["y0"], name="/If", then_branch=then_g,
                 else_branch=else_g),
     h.make_node("Add", ["y0", "x"], ["y"], name="/residual")],
    "if_model",
    [h.make_tensor_value_info("c", T.BOOL, []),
     h.make_tensor_value_info("x", T.FLOAT, [4, 16])],
    [h.make_tensor_value_info("y", T.FLOAT, [4, 16])],
    [const("w1", w1), const("w2", w2)]), "if.onnx")

# --- Loop -------------------------------------------------------------------
w = rng.standard_normal((8, 8)).astype(np.float32) * 0.6
b = rng.standard_normal((8,)).astype(np.float32) * 0.1
even = h.make_graph([h.make_node("Mul", ["hn", "half"], ["he"], name="even_scale")],
                    "even", [], [h.make_tensor_value_info("he", T.FLOAT, [2, 8])])
odd = h.make_graph([h.make_node("Neg", ["hn"], ["ho"], name="odd_neg")],
                   "odd", [], [h.make_tensor_value_info("ho", T.FLOAT, [2, 8])])
body = h.make_graph(
    [h.make_node("MatMul", ["h_in", "w"], ["hw"], name="matmul"),
     h.make_node("Add", ["hw", "b"], ["hb"], name="bias"),
     h.make_node("Tanh", ["hb"], ["hn"], name="tanh"),
     h.make_node("Mod", ["i", "two"], ["parity"], name="parity"),
     h.make_node("Equal", ["parity", "zero"], ["is_even"], name="is_even"),
     h.make_node("If", ["is_even"], ["h_out"], name="/If",
                 then_branch=even, else_branch=odd),
     h.make_node("Abs", ["h_out"], ["a"], name="abs"),
     h.make_node("ReduceSum", ["a"], ["s"], keepdims=0, name="sum"),
     h.make_node("Less", ["s", "limit"], ["c_out"], name="below_limit")],
    "body",
    [h.make_tensor_value_info("i", T.INT64, []),
     h.make_tensor_value_info("c_in", T.BOOL, []),
     h.make_tensor_value_info("h_in", T.FLOAT, [2, 8])],
    [h.make_tensor_value_info("c_out", T.BOOL, []),
     h.make_tensor_value_info("h_out", T.FLOAT, [2, 8])],
    [const("two", np.int64(2)), const("zero", np.int64(0)),
     const("half", np.float32(0.5))])
save(h.make_graph(
    [h.make_node("Loop", ["M", "c", "h0"], ["h"], name="/Loop", body=body)],
    "loop_model",
    [h.make_tensor_value_info("M", T.INT64, []),
     h.make_tensor_value_info("c", T.BOOL, []),
     h.make_tensor_value_info("h0", T.FLOAT, [2, 8]),
     h.make_tensor_value_info("limit", T.FLOAT, [])],
    [h.make_tensor_value_info("h", T.FLOAT, [2, 8])],
    [const("w", w), const("b", b)]), "loop.onnx")

# --- inputs -----------------------------------------------------------------
np.save(os.path.join(out, "x.npy"), rng.standard_normal((4, 16)).astype(np.float32))
np.save(os.path.join(out, "h0.npy"), rng.standard_normal((2, 8)).astype(np.float32))
for v in (True, False):
    np.save(os.path.join(out, f"c{int(v)}.npy"), np.array(v))
for m in (0, 1, 6, 1000):
    np.save(os.path.join(out, f"m{m}.npy"), np.array(m, dtype=np.int64))
for limit in (2.0, 1e9):
    np.save(os.path.join(out, f"limit{int(limit)}.npy"), np.array(limit, dtype=np.float32))
