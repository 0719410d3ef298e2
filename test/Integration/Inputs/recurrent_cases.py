#!/usr/bin/python3
"""LSTM, GRU and RNN attribute combinations the ONNX backend node tests do
not cover (two directions, sequence_lens, clip, input_forget, peepholes,
linear_before_reset off and on, non-default activations), each compiled
by opscope and run against ONNX Runtime on seeded random inputs.
Each case also prints the kernel that ran it (the profile CSV's kernel
column): oneDNN's RNN primitive where it computes the layer as ONNX does,
opscope's own kernel where it does not.

  recurrent_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"

Prints one line per case and output; exits 1 on any mismatch.
"""
import argparse
import csv as csvmod
import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S, B, I, H = 5, 3, 7, 6  # odd sizes on purpose


def case(op, dirs, gates, attrs, lens=False, h0=False, c0=False, peep=False):
    xs, st, ys = [S, B, I], [dirs, B, H], [S, dirs, B, H]
    rng = np.random.default_rng(len(op) * 100 + dirs * 10 + len(attrs))
    inits = [numpy_helper.from_array((rng.standard_normal((dirs, gates * H, I)) * 0.4).astype(np.float32), "W"),
             numpy_helper.from_array((rng.standard_normal((dirs, gates * H, H)) * 0.4).astype(np.float32), "R"),
             numpy_helper.from_array((rng.standard_normal((dirs, 2 * gates * H)) * 0.2).astype(np.float32), "B")]
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, xs)]
    names = ["X", "W", "R", "B", "", "", "", ""]
    feeds = {"X": (rng.standard_normal(xs)).astype(np.float32)}
    if lens:
        names[4] = "L"
        inputs.append(helper.make_tensor_value_info("L", TensorProto.INT32, [B]))
        feeds["L"] = np.array([S, 2, 0][:B], dtype=np.int32)
    if h0:
        names[5] = "H0"
        inputs.append(helper.make_tensor_value_info("H0", TensorProto.FLOAT, st))
        feeds["H0"] = (rng.standard_normal(st) * 0.5).astype(np.float32)
    if c0:
        names[6] = "C0"
        inputs.append(helper.make_tensor_value_info("C0", TensorProto.FLOAT, st))
        feeds["C0"] = (rng.standard_normal(st) * 0.5).astype(np.float32)
    if peep:
        names[7] = "P"
        inits.append(numpy_helper.from_array((rng.standard_normal((dirs, 3 * H)) * 0.3).astype(np.float32), "P"))
    while names and names[-1] == "":
        names.pop()
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, names, outs, name=op.lower(), hidden_size=H, **attrs)
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ys),
               helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, st)]
    if op == "LSTM":
        outputs.append(helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, st))
    graph = helper.make_graph([node], op.lower(), inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, feeds, outs


CASES = {
    "lstm-bidirectional-lens-peepholes": ("LSTM", 2, 4, dict(direction="bidirectional"),
                                          dict(lens=True, h0=True, c0=True, peep=True)),
    "lstm-reverse-clip-input-forget": ("LSTM", 1, 4, dict(direction="reverse", clip=0.7, input_forget=1),
                                       dict(h0=True)),
    "lstm-activations": ("LSTM", 1, 4, dict(activations=["HardSigmoid", "Softsign", "Elu"],
                                            activation_alpha=[0.3, 0.8], activation_beta=[0.4]),
                         dict(lens=True)),
    "gru-bidirectional-lens": ("GRU", 2, 3, dict(direction="bidirectional"), dict(lens=True, h0=True)),
    "gru-linear-before-reset": ("GRU", 1, 3, dict(linear_before_reset=1, clip=1.5), dict(h0=True)),
    "rnn-bidirectional-relu": ("RNN", 2, 1, dict(direction="bidirectional", activations=["Relu", "Tanh"]),
                               dict(lens=True, h0=True)),
    # Layers oneDNN's RNN primitives compute as ONNX does.
    "onednn-lstm-bidirectional-peepholes": ("LSTM", 2, 4, dict(direction="bidirectional"),
                                            dict(h0=True, c0=True, peep=True)),
    "onednn-lstm-no-states": ("LSTM", 1, 4, {}, {}),
    "onednn-lstm-reverse-h0-only": ("LSTM", 1, 4, dict(direction="reverse"), dict(h0=True)),
    "onednn-gru-reverse": ("GRU", 1, 3, dict(direction="reverse"), dict(h0=True)),
    "onednn-gru-bidirectional-linear-before-reset": ("GRU", 2, 3, dict(direction="bidirectional",
                                                                      linear_before_reset=1), {}),
    "onednn-rnn-sigmoid": ("RNN", 1, 1, dict(activations=["Sigmoid"]), dict(h0=True)),
}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--work", required=True)
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--ort-run", required=True)
    args = p.parse_args()
    failures = 0
    for name, (op, dirs, gates, attrs, opts) in CASES.items():
        d = os.path.join(args.work, name)
        os.makedirs(os.path.join(d, "ort"), exist_ok=True)
        model, feeds, outs = case(op, dirs, gates, attrs, **opts)
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        cmd_in = []
        for k, v in feeds.items():
            np.save(os.path.join(d, k + ".npy"), v)
            cmd_in += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
        subprocess.run(shlex.split(args.ort_run) + [path, "--output-dir", os.path.join(d, "ort")] + cmd_in,
                       check=True, capture_output=True)
        lib = os.path.join(d, "model.so")
        subprocess.run([args.compile, path, "-o", lib], check=True)
        csv = os.path.join(d, "profile.csv")
        cmd = [args.run, lib, "--iterations", "1", "--warmup", "0", "-q", "--rtol", "1e-4",
               "--atol", "1e-5", "--csv", csv] + cmd_in
        for o in outs:
            cmd += ["--expect", "%s=%s" % (o, os.path.join(d, "ort", o + ".npy"))]
        r = subprocess.run(cmd, capture_output=True, text=True)
        failures += r.returncode != 0
        for line in r.stdout.splitlines():
            if line.startswith("output "):
                print("%s: %s" % (name, line))
        if r.returncode and "MISMATCH" not in r.stdout:
            print("%s: ERROR %s" % (name, r.stderr.strip()))
        elif os.path.exists(csv):
            with open(csv) as f:  # the op table, up to the blank line before the summary
                lines = f.read().split("\n\n")[0].splitlines()
            for row in csvmod.DictReader(lines):
                print("%s: kernel %s" % (name, row["kernel"]))
    print("recurrent cases: %d of %d failed" % (failures, len(CASES)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
