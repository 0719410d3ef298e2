#!/usr/bin/python3
"""Writes a one-node QLinearConv model (u8 input 1x64x56x56 with zero point 128,
a constant 64x64x3x3 weight, per-channel weight scales, pads 1) for timing
conv_integer: with `--weight i8` (values in [-100, 100), zero point 0) it runs
on oneDNN's int8 convolution, with `--weight u8` (values in [0, 255), zero
point 0, which does not fit s8) on the portable integer kernel.

  make_qlinearconv.py OUT.onnx [--weight i8|u8]
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--weight", choices=["i8", "u8"], default="i8")
    a = p.parse_args()
    rng = np.random.default_rng(0)
    if a.weight == "i8":
        w, wz = rng.integers(-100, 100, (64, 64, 3, 3)).astype(np.int8), np.int8(0)
    else:
        w, wz = rng.integers(0, 255, (64, 64, 3, 3)).astype(np.uint8), np.uint8(0)
    inits = [numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
             numpy_helper.from_array(np.array(128, np.uint8), "xz"),
             numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(np.full(64, 0.01, np.float32), "ws"),
             numpy_helper.from_array(np.array(wz), "wz"),
             numpy_helper.from_array(np.array(0.5, np.float32), "ys"),
             numpy_helper.from_array(np.array(100, np.uint8), "yz")]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
                            ["y"], pads=[1, 1, 1, 1], name="qc")
    graph = helper.make_graph(
        [node], "qlinearconv",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 64, 56, 56])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 64, 56, 56])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, a.out)


if __name__ == "__main__":
    main()
