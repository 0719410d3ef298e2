"""Writes the control-flow models and inputs of control-flow-ort.test.

if.onnx: an If on a graph input; each branch runs a MatMul (+ bias, an
activation) on the input, the outer graph adds a residual.
loop.onnx: a recurrence written as a Loop, h = tanh(h W + b), run while the
trip count M and a condition computed in the body (the sum of |h| below a
limit) allow; inside the body an If on the iteration's parity picks how h is
scaled, so control flow nests.
scan.onnx: a bidirectional-style Elman recurrence written as a Scan over
two sequences (x forward along axis 1, z backward along axis 0), with a
running state and two scan outputs (one reversed, one stacked along axis 1).
loop_scan.onnx: a Loop with a constant trip count whose body's scan output
(the state after each iteration) is used.
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

# --- Scan -------------------------------------------------------------------
wx = rng.standard_normal((3, 5)).astype(np.float32) * 0.5
wh = rng.standard_normal((5, 5)).astype(np.float32) * 0.5
scan_body = h.make_graph(
    [h.make_node("MatMul", ["xt", "wx"], ["a"], name="input_proj"),
     h.make_node("MatMul", ["s_in", "wh"], ["r"], name="recurrent_proj"),
     h.make_node("Add", ["a", "r"], ["ar"], name="sum"),
     h.make_node("Add", ["ar", "zt"], ["pre"], name="add_z"),
     h.make_node("Tanh", ["pre"], ["s_out"], name="tanh"),
     h.make_node("ReduceMean", ["s_out"], ["energy"], axes=[1], keepdims=0,
                 name="energy")],
    "scan_body",
    [h.make_tensor_value_info("s_in", T.FLOAT, [2, 5]),
     h.make_tensor_value_info("xt", T.FLOAT, [2, 3]),
     h.make_tensor_value_info("zt", T.FLOAT, [2, 5])],
    [h.make_tensor_value_info("s_out", T.FLOAT, [2, 5]),
     h.make_tensor_value_info("s_out_copy", T.FLOAT, [2, 5]),
     h.make_tensor_value_info("energy", T.FLOAT, [2])],
    [const("wx", wx), const("wh", wh)])
scan_body.node.append(h.make_node("Identity", ["s_out"], ["s_out_copy"],
                                  name="copy"))
save(h.make_graph(
    [h.make_node("Scan", ["s0", "xs", "zs"], ["s_last", "states", "energies"],
                 name="/Scan", body=scan_body, num_scan_inputs=2,
                 scan_input_axes=[1, 0], scan_input_directions=[0, 1],
                 scan_output_axes=[0, 1], scan_output_directions=[1, 0])],
    "scan_model",
    [h.make_tensor_value_info("s0", T.FLOAT, [2, 5]),
     h.make_tensor_value_info("xs", T.FLOAT, [2, 7, 3]),
     h.make_tensor_value_info("zs", T.FLOAT, [7, 2, 5])],
    [h.make_tensor_value_info("s_last", T.FLOAT, [2, 5]),
     h.make_tensor_value_info("states", T.FLOAT, [7, 2, 5]),
     h.make_tensor_value_info("energies", T.FLOAT, [2, 7])]), "scan.onnx")

# --- Loop with a scan output -------------------------------------------------
loop_scan_body = h.make_graph(
    [h.make_node("MatMul", ["v_in", "w"], ["vw"], name="matmul"),
     h.make_node("Tanh", ["vw"], ["v_out"], name="tanh"),
     h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT, name="iteration"),
     h.make_node("Mul", ["v_out", "fi"], ["row"], name="row"),
     h.make_node("Identity", ["c_in"], ["c_out"], name="keep_going")],
    "loop_scan_body",
    [h.make_tensor_value_info("i", T.INT64, []),
     h.make_tensor_value_info("c_in", T.BOOL, []),
     h.make_tensor_value_info("v_in", T.FLOAT, [2, 8])],
    [h.make_tensor_value_info("c_out", T.BOOL, []),
     h.make_tensor_value_info("v_out", T.FLOAT, [2, 8]),
     h.make_tensor_value_info("row", T.FLOAT, [2, 8])])
save(h.make_graph(
    [h.make_node("Loop", ["M5", "", "h0"], ["v", "rows"], name="/LoopScan",
                 body=loop_scan_body)],
    "loop_scan_model",
    [h.make_tensor_value_info("h0", T.FLOAT, [2, 8])],
    [h.make_tensor_value_info("v", T.FLOAT, [2, 8]),
     h.make_tensor_value_info("rows", T.FLOAT, [5, 2, 8])],
    [const("w", w), const("M5", np.int64(5))]), "loop_scan.onnx")

# --- inputs -----------------------------------------------------------------
np.save(os.path.join(out, "x.npy"), rng.standard_normal((4, 16)).astype(np.float32))
np.save(os.path.join(out, "h0.npy"), rng.standard_normal((2, 8)).astype(np.float32))
for v in (True, False):
    np.save(os.path.join(out, f"c{int(v)}.npy"), np.array(v))
for m in (0, 1, 6, 1000):
    np.save(os.path.join(out, f"m{m}.npy"), np.array(m, dtype=np.int64))
np.save(os.path.join(out, "s0.npy"), rng.standard_normal((2, 5)).astype(np.float32))
np.save(os.path.join(out, "xs.npy"), rng.standard_normal((2, 7, 3)).astype(np.float32))
np.save(os.path.join(out, "zs.npy"), rng.standard_normal((7, 2, 5)).astype(np.float32))
for limit in (2.0, 1e9):
    np.save(os.path.join(out, f"limit{int(limit)}.npy"), np.array(limit, dtype=np.float32))
