"""Writes the models of unsorted-graph.test into DIR: graphs whose nodes are
not topologically sorted (as fp16 converters write them; ONNX Runtime sorts
them), which the importer sorts, and graphs with a real cycle, which it
refuses.

  make_unsorted_graphs.py DIR

unsorted.onnx: every graph out of order. The main graph lists its nodes
  from the output back to the input; an If decided at run time (input c)
  and a Loop (three iterations) come before the node producing the value
  their subgraphs read from the outer scope (h), and the then-branch and
  the Loop's body list their own nodes backwards too. Inputs x.npy, c1.npy,
  c0.npy.
unsorted-main.onnx: the same with the subgraphs in order, which is what
  ONNX Runtime (1.30) accepts: it sorts a model's main graph, not its
  subgraphs.
cycle.onnx: /enc/add -> /enc/relu -> /enc/neg -> /enc/add, behind an
  Identity that reads the cycle.
cycle-branch.onnx: a cycle of two nodes inside an If's then-branch.
cycle-outer.onnx: a cycle through a subgraph's outer-scope read: the If's
  branch reads z, which /after computes from the If's output.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(54)
f32 = T.FLOAT


def save(graph, name):
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 16)])
    model.ir_version = 8
    # Not onnx.checker: it refuses unsorted graphs, which is the point.
    with open(os.path.join(out, name), "wb") as f:
        f.write(model.SerializeToString())


def vi(name, shape, t=f32):
    return h.make_tensor_value_info(name, t, shape)


w = nh.from_array((rng.standard_normal((8, 8)) * 0.4).astype(np.float32), "w")
s = nh.from_array(np.array(1.5, np.float32), "s")
half = nh.from_array(np.array(0.5, np.float32), "half")
trips = nh.from_array(np.array(3, np.int64), "trips")
true = nh.from_array(np.array(True), "true")



def unsorted_model(name, subgraphs_backwards):
    """The main graph lists its nodes backwards; so do the then-branch and
    the Loop's body when `subgraphs_backwards`."""
    def order(nodes):
        return nodes[::-1] if subgraphs_backwards else nodes

    # Both branches read h, from the main graph, where h's producer comes
    # after the If.
    then_g = h.make_graph(
        order([h.make_node("Relu", ["h"], ["t1"], name="then_relu"),
               h.make_node("Mul", ["t1", "s"], ["t2"], name="then_scale")]),
        "then", [], [vi("t2", [2, 8])])
    else_g = h.make_graph(
        [h.make_node("Neg", ["h"], ["e1"], name="else_neg")],
        "else", [], [vi("e1", [2, 8])])
    # acc <- acc * 0.5 + h, three times.
    body = h.make_graph(
        order([h.make_node("Mul", ["acc", "half"], ["acc2"], name="body_halve"),
               h.make_node("Add", ["acc2", "h"], ["acc_out"], name="body_add"),
               h.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond")]),
        "body", [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("acc", [2, 8])],
        [vi("cond_out", [], T.BOOL), vi("acc_out", [2, 8])])
    save(h.make_graph(
        [h.make_node("Add", ["ifout", "loopout"], ["y"], name="/out"),
         h.make_node("If", ["c"], ["ifout"], name="/If", then_branch=then_g,
                     else_branch=else_g),
         h.make_node("Loop", ["trips", "true", "h"], ["loopout"], name="/Loop",
                     body=body),
         h.make_node("Relu", ["mm"], ["h"], name="/relu"),
         h.make_node("MatMul", ["x", "w"], ["mm"], name="/matmul")],
        "unsorted", [vi("c", [], T.BOOL), vi("x", [2, 8])], [vi("y", [2, 8])],
        [w, s, half, trips, true]), name)


unsorted_model("unsorted.onnx", True)
unsorted_model("unsorted-main.onnx", False)
np.save(os.path.join(out, "x.npy"), rng.standard_normal((2, 8)).astype(np.float32))
np.save(os.path.join(out, "c1.npy"), np.array(True))
np.save(os.path.join(out, "c0.npy"), np.array(False))

save(h.make_graph(
    [h.make_node("Identity", ["r"], ["y"], name="/out"),
     h.make_node("Add", ["x", "back"], ["sum"], name="/enc/add"),
     h.make_node("Relu", ["sum"], ["r"], name="/enc/relu"),
     h.make_node("Neg", ["r"], ["back"], name="/enc/neg")],
    "cycle", [vi("x", [2])], [vi("y", [2])]), "cycle.onnx")

then_cycle = h.make_graph(
    [h.make_node("Add", ["x", "b"], ["a"], name="a"),
     h.make_node("Relu", ["a"], ["b"], name="b")],
    "then", [], [vi("b", [2])])
save(h.make_graph(
    [h.make_node("If", ["c"], ["y"], name="/If", then_branch=then_cycle,
                 else_branch=h.make_graph(
                     [h.make_node("Neg", ["x"], ["e"], name="e")],
                     "else", [], [vi("e", [2])]))],
    "cycle_branch", [vi("c", [], T.BOOL), vi("x", [2])], [vi("y", [2])]),
    "cycle-branch.onnx")

save(h.make_graph(
    [h.make_node("If", ["c"], ["ifout"], name="/If",
                 then_branch=h.make_graph(
                     [h.make_node("Relu", ["z"], ["t"], name="t")],
                     "then", [], [vi("t", [2])]),
                 else_branch=h.make_graph(
                     [h.make_node("Neg", ["x"], ["e"], name="e")],
                     "else", [], [vi("e", [2])])),
     h.make_node("Add", ["ifout", "x"], ["z"], name="/after"),
     h.make_node("Identity", ["z"], ["y"], name="/out")],
    "cycle_outer", [vi("c", [], T.BOOL), vi("x", [2])], [vi("y", [2])]),
    "cycle-outer.onnx")
