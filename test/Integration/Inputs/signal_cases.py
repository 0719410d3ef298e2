#!/usr/bin/python3
"""DFT and STFT (issue 54) against ONNX Runtime, shaped the way audio front
ends use them: a 400-point real frame to 201 one-sided bins (Whisper's
frame), an inverse complex DFT along a middle axis, dft_length padding and
cutting the signal, opset 20's axis input, an STFT with a constant Hann
window and a hop of 160 (a speech model's log-mel front end), and a
two-sided STFT of a complex signal. Each is compiled by opscope and run
against ONNX Runtime on seeded random inputs.
  signal_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per case and output; exits 1 on any mismatch.
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from indexing_cases import case_arguments, check_against_ort, const, model

F32 = TensorProto.FLOAT


def opset20_dft(x_shape, axis):
    """DFT-20 with its axis as an input: built without ONNX's checker,
    which (Debian's onnx 1.12) knows opsets up to 17."""
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], name="dft")
    y_shape = list(x_shape[:-1]) + [2]
    graph = helper.make_graph(
        [node], "dft20", [helper.make_tensor_value_info("x", F32, x_shape)],
        [helper.make_tensor_value_info("y", F32, y_shape)], [const("axis", axis)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    return m


def cases():
    rng = np.random.default_rng(1754)
    c = {}
    x = rng.standard_normal((2, 400, 1)).astype(np.float32)
    c["dft-real-onesided-400"] = (
        model("DFT", [("x", F32, x.shape)], [("y", F32, [2, 201, 2])], 17,
              axis=1, onesided=1), {"x": x})
    x = rng.standard_normal((2, 6, 48, 2)).astype(np.float32)
    c["dft-complex-inverse-axis2"] = (
        model("DFT", [("x", F32, x.shape)], [("y", F32, x.shape)], 17,
              axis=2, inverse=1), {"x": x})
    x = rng.standard_normal((3, 100, 1)).astype(np.float32)
    for name, n in (("padded", 128), ("cut", 64)):
        c["dft-length-" + name] = (
            model("DFT", [("x", F32, x.shape)], [("y", F32, [3, n, 2])], 17,
                  [const("n", n)], axis=1), {"x": x})
    x = rng.standard_normal((2, 32, 5, 1)).astype(np.float32)
    c["dft-opset20-axis-input"] = (opset20_dft(x.shape, 1), {"x": x})
    signal = rng.standard_normal((1, 4000, 1)).astype(np.float32)
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(np.float32)
    c["stft-hann-400-hop-160"] = (
        model("STFT", [("signal", F32, signal.shape)], [("y", F32, [1, 23, 201, 2])], 17,
              [const("step", 160), numpy_helper.from_array(hann, "window")]),
        {"signal": signal})
    signal = rng.standard_normal((2, 256, 2)).astype(np.float32)
    stft = model("STFT", [("signal", F32, signal.shape)], [("y", F32, [2, 7, 64, 2])], 17,
                 [const("step", 32)], onesided=0)
    # No window: frame_length (input 3) after an empty window name.
    stft.graph.node[0].input[:] = ["signal", "step", "", "frame_length"]
    stft.graph.initializer.append(const("frame_length", 64))
    c["stft-complex-twosided"] = (stft, {"signal": signal})
    return c


def main():
    args = case_arguments(__doc__)
    all_cases = cases()
    # Sums of up to 400 products of O(1) values: outputs up to about 60.
    failures = check_against_ort(args, all_cases, 1e-3, 1e-3)
    print("signal cases: %d of %d failed" % (failures, len(all_cases)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
