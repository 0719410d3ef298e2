#!/usr/bin/env python3
"""Writes deterministic .npy inputs for an ONNX model with given shapes.

  make_inputs.py MODEL.onnx --input-shape NAME=DIMS ... --out DIR [--seed N]

Float inputs are uniform in [-1, 1); integer inputs whose name contains
"mask" are 1 except for the last quarter of each row (padding); other integer
inputs (ids) are uniform in [0, --int-max) (default 1000). Prints one
NAME=PATH per input, ready for --input flags.
"""
import argparse
import os
import sys

import numpy as np
import onnx

TYPES = {1: np.float32, 11: np.float64, 10: np.float16, 7: np.int64, 6: np.int32, 9: np.bool_}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--input-shape", action="append", default=[])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--int-max", type=int, default=1000)
    a = p.parse_args()
    shapes = {}
    for spec in a.input_shape:
        name, dims = spec.split("=")
        shapes[name] = [int(d) for d in dims.split("x")]
    model = onnx.load(a.model, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        t = inp.type.tensor_type
        dims = shapes.get(inp.name) or [d.dim_value for d in t.shape.dim]
        if any(d <= 0 for d in dims):
            sys.exit(f"make_inputs: no shape for input {inp.name}")
        dtype = TYPES.get(t.elem_type)
        if dtype is None:
            sys.exit(f"make_inputs: unsupported type of input {inp.name}")
        if np.issubdtype(dtype, np.floating):
            v = rng.uniform(-1, 1, dims).astype(dtype)
        elif "mask" in inp.name:
            v = np.ones(dims, dtype=dtype)
            v[..., dims[-1] - dims[-1] // 4:] = 0
        elif dtype == np.bool_:
            v = rng.integers(0, 2, dims).astype(dtype)
        else:
            v = rng.integers(0, a.int_max, dims).astype(dtype)
        path = os.path.join(a.out, inp.name + ".npy")
        np.save(path, v)
        print(f"{inp.name}={path}")


if __name__ == "__main__":
    main()
