"""Writes the small models the opscope-prune tests use into DIR:

  mixed.onnx     every kind of layer and non-layer: MatMul with a raw_data
                 weight already 25% zero in 1x4 blocks (one block -0.0, one
                 element NaN), Gemm transB=1 with a float_data weight, Gemm
                 transB=0 (alpha 0.5), an unnamed MatMul whose weight is a
                 Constant node; not layers: a MatMul of two constants, a
                 MatMul of two activations, a MatMul whose weight is also a
                 graph output, a FLOAT16 MatMul; an int64 shape initializer,
                 metadata and doc strings that must survive as they are.
  external/mixed.onnx   the same model with every tensor in external data
                        (external/weights.bin).
  nothing.onnx   no prunable layer.

  make_models.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "external"), exist_ok=True)
rng = np.random.default_rng(13)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def mixed():
    w1 = randn(16, 8)  # MatMul B: K=16 x N=8, 32 blocks of 1x4
    view = w1.T.reshape(8, 4, 4)  # [N, K/4, 4]
    view[0:2, :, :] = 0.0  # 8 zero blocks ...
    view[2, 0, :] = -0.0  # ... one of them negative zeros: 9 of 32
    view[3, 1, 2] = np.nan  # a NaN: its block is kept
    view[4, 2, 1] = -0.0  # a -0.0 inside a non-zero block
    w1 = np.ascontiguousarray(view.reshape(8, 16).T)
    w2 = randn(12, 8)  # Gemm transB=1: N=12 x K=8
    w3 = randn(12, 20)  # Gemm transB=0: K=12 x N=20
    wc = randn(20, 4)  # Constant node, unnamed MatMul: K=20 x N=4
    inits = [
        numpy_helper.from_array(w1, "w1"),
        # float_data storage, as some exporters write it.
        helper.make_tensor("w2", TensorProto.FLOAT, w2.shape, w2.flatten().tolist()),
        numpy_helper.from_array(w3, "w3"),
        numpy_helper.from_array(np.arange(1, 5, dtype=np.int64), "shape_unused"),
        numpy_helper.from_array(np.array([2, 20], dtype=np.int64), "shape2"),
        numpy_helper.from_array(randn(4, 4), "c1"),
        numpy_helper.from_array(randn(4, 4), "c2"),
        numpy_helper.from_array(randn(16, 4), "ws"),
        numpy_helper.from_array(randn(16, 4).astype(np.float16), "wh"),
        numpy_helper.from_array(randn(12), "b2"),
    ]
    inits[0].doc_string = "kept"
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="mm1", doc_string="first"),
        helper.make_node("Gemm", ["h1", "w2", "b2"], ["h2"], name="gemm_t", transB=1),
        helper.make_node("Gemm", ["h2", "w3"], ["h3"], name="gemm", alpha=0.5),
        helper.make_node("Reshape", ["h3", "shape2"], ["h3r"], name="reshape"),
        helper.make_node("Constant", [], ["wc"], name="wc_const",
                         value=numpy_helper.from_array(wc, "wc_value")),
        helper.make_node("MatMul", ["h3r", "wc"], ["out"]),  # unnamed
        helper.make_node("MatMul", ["c1", "c2"], ["cc"], name="const_mm"),
        helper.make_node("Transpose", ["h1"], ["h1t"], name="tr"),
        helper.make_node("MatMul", ["h1", "h1t"], ["gram"], name="dyn_mm"),
        helper.make_node("MatMul", ["x", "ws"], ["s"], name="shared_mm"),
        helper.make_node("Cast", ["x"], ["xh"], name="cast", to=TensorProto.FLOAT16),
        helper.make_node("MatMul", ["xh", "wh"], ["hh"], name="half_mm"),
    ]
    graph = helper.make_graph(
        nodes, "mixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in (
            ("out", TensorProto.FLOAT, [2, 4]), ("cc", TensorProto.FLOAT, [4, 4]),
            ("gram", TensorProto.FLOAT, [2, 2]), ("s", TensorProto.FLOAT, [2, 4]),
            ("ws", TensorProto.FLOAT, [16, 4]), ("hh", TensorProto.FLOAT16, [2, 4]))],
        inits, doc_string="a graph to prune")
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                          producer_name="opscope-tests", producer_version="1")
    m.ir_version = 8
    m.doc_string = "model doc"
    helper.set_model_props(m, {"author": "tests", "purpose": "pruning"})
    onnx.checker.check_model(m)
    return m


def nothing():
    nodes = [helper.make_node("Add", ["x", "b"], ["y"], name="add"),
             helper.make_node("MatMul", ["y", "x"], ["z"], name="dyn")]
    graph = helper.make_graph(
        nodes, "nothing",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 4])],
        [numpy_helper.from_array(randn(4, 4), "b")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    return m


m = mixed()
onnx.save(m, os.path.join(out, "mixed.onnx"))
onnx.save_model(m, os.path.join(out, "external", "mixed.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
onnx.save(nothing(), os.path.join(out, "nothing.onnx"))
