#!/usr/bin/python3
"""Inputs of the vad-opset16 end-to-end test: two audio chunks of 512
samples (seeded), a zero initial state (2 x 1 x 64) and the sample rates,
as .npy files (for opscope-run and ort_run.js) and as TensorProto .pb files
(for --freeze-input).

  vad_inputs.py DIR
"""
import os
import sys

import numpy as np
from onnx import numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(2026)
for i in (1, 2):
    np.save(os.path.join(out, "chunk%d.npy" % i),
            (rng.standard_normal((1, 512)) * 0.5).astype(np.float32))
np.save(os.path.join(out, "zero_state.npy"), np.zeros((2, 1, 64), np.float32))
for sr in (16000, 8000):
    value = np.array(sr, dtype=np.int64)
    np.save(os.path.join(out, "sr%d.npy" % sr), value)
    with open(os.path.join(out, "sr%d.pb" % sr), "wb") as f:
        f.write(numpy_helper.from_array(value).SerializeToString())
