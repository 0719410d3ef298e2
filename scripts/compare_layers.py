#!/usr/bin/python3
"""opscope against ONNX Runtime layer by layer on a quantized model.

  compare_layers.py --compile opscope-compile --run opscope-run --work DIR
                    MODEL.onnx NAME=SHAPE [NAME=SHAPE ...] [--ops OP,OP]

Makes every output of the listed ops (default: DynamicQuantizeLinear,
ConvInteger, MatMulInteger, QuantizeLinear, QLinearConv, QLinearMatMul) a
graph output, runs the model once in ONNX Runtime and once in opscope on the
same random inputs, and compares each such tensor EXACTLY: an integer result
or a quantization scale that differs by any amount is a disagreement. Prints
one line per op kind with the number of tensors compared and how many
differ, and, for the first tensor in graph order that differs, its name, how
many elements differ and the largest difference, with the float tensors that
feed its producer and differ too (where a divergence starts). Exit status 1
when any tensor differs, 2 on usage errors.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OPS = ("DynamicQuantizeLinear", "ConvInteger", "MatMulInteger",
               "QuantizeLinear", "QLinearConv", "QLinearMatMul")


def fail(msg, code=1):
    print("compare_layers.py: " + msg, file=sys.stderr)
    sys.exit(code)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--ops", default=",".join(DEFAULT_OPS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("model")
    p.add_argument("shapes", nargs="+", metavar="NAME=SHAPE")
    args = p.parse_args()
    if not os.path.exists(args.model):
        fail("%s: no such file" % args.model)
    shapes = {}
    for s in args.shapes:
        name, _, dims = s.partition("=")
        try:
            shapes[name] = [int(d) for d in dims.split("x")]
        except ValueError:
            fail("bad shape '%s' (want NAME=AxBxC)" % s, 2)
    ops = set(args.ops.split(","))

    model = onnx.load(args.model)
    # Shape inference on the given input shapes. Where ONNX's inference
    # still leaves a tensor without a shape (a Slice whose bounds come from
    # Shape), its graph output has none: ONNX Runtime takes that, and the
    # ONNX checker, which does not, is skipped (opscope infers every shape
    # on import).
    static = onnx.ModelProto()
    static.CopyFrom(model)
    for v in static.graph.input:
        if v.name in shapes:
            dims = v.type.tensor_type.shape.dim
            del dims[:]
            for d in shapes[v.name]:
                dims.add().dim_value = d
    inferred = onnx.shape_inference.infer_shapes(static)
    infos = {v.name: v for v in inferred.graph.value_info}
    producer, watched = {}, []
    for node in model.graph.node:
        for o in node.output:
            producer[o] = node
        if node.op_type in ops:
            watched += [o for o in node.output if o and o in infos]
    outputs = {o.name for o in model.graph.output}
    for name in watched:
        if name not in outputs:
            model.graph.output.append(infos[name])
    # The float tensors that feed a watched op: reported where they differ.
    feeders = []
    for node in model.graph.node:
        if node.op_type in ops:
            for i in node.input:
                v = infos.get(i)
                if v is not None and v.type.tensor_type.elem_type == onnx.TensorProto.FLOAT \
                        and i not in outputs and i not in feeders:
                    feeders.append(i)
                    model.graph.output.append(v)
    os.makedirs(args.work, exist_ok=True)
    probe_path = os.path.join(args.work, "layers.onnx")
    onnx.save(model, probe_path)

    # The inputs compare_ort.py gives (make_inputs.py): floats in [-1, 1),
    # token ids and attention masks of the model's integer types.
    cmd = ["/usr/bin/python3", os.path.join(HERE, "make_inputs.py"), args.model,
           "--out", os.path.join(args.work, "inputs"), "--seed", str(args.seed)]
    for name, dims in shapes.items():
        cmd += ["--input-shape", "%s=%s" % (name, "x".join(map(str, dims)))]
    made = subprocess.run(cmd, capture_output=True, text=True)
    if made.returncode:
        fail("make_inputs.py: " + made.stderr.strip())
    inputs = []
    for spec in made.stdout.split():
        inputs += ["--input", spec]
    ort_dir, osc_dir = os.path.join(args.work, "ort"), os.path.join(args.work, "opscope")
    lib = os.path.join(args.work, "layers.so")
    cmd = [args.compile, probe_path, "-o", lib, "--no-check"]
    for name, dims in shapes.items():
        cmd += ["--input-shape", "%s=%s" % (name, "x".join(map(str, dims)))]
    steps = [cmd,
             [args.run, lib, "--iterations", "0", "--warmup", "0", "-q",
              "--output-dir", osc_dir] + inputs,
             ["node", os.path.join(HERE, "ort_run.js"), probe_path, "--iterations", "0",
              "--warmup", "0", "--output-dir", ort_dir] + inputs]
    for c in steps:
        r = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            fail("command failed: %s\n%s" % (" ".join(c), r.stderr.strip()))

    def load(d, name):
        return np.load(os.path.join(d, name.replace("/", "_") + ".npy"))

    def diff(name):
        a, b = load(ort_dir, name), load(osc_dir, name)
        if a.shape != b.shape:
            return a.size, float("inf")
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        return int((d > 0).sum()), float(d.max()) if d.size else 0.0

    per_kind, first = {}, None
    for name in watched:
        kind = producer[name].op_type
        n, worst = diff(name)
        seen, bad = per_kind.get(kind, (0, 0))
        per_kind[kind] = (seen + 1, bad + (n > 0))
        if n and first is None:
            first = (name, n, worst)
    for kind in sorted(per_kind):
        seen, bad = per_kind[kind]
        print("%-22s %4d tensors, %d differ" % (kind, seen, bad))
    if first is None:
        print("every quantized layer agrees with ONNX Runtime bit for bit")
        return 0
    name, n, worst = first
    node = producer[name]
    print("first difference: %s (%s '%s'): %d elements, max %g" % (
        name, node.op_type, node.name, n, worst))
    for i in node.input:
        if i in feeders:
            fn, fworst = diff(i)
            if fn:
                print("  its input %s differs already: %d elements, max %g" % (i, fn, fworst))
    return 1


if __name__ == "__main__":
    sys.exit(main())
