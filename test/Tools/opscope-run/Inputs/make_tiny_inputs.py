"""Writes the .npy files the opscope-run tests use into argv[1]."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
np.save(os.path.join(d, "x.npy"), np.array([[1, 2, 3, 4], [-1, -2, -3, -4]], np.float32))
np.save(os.path.join(d, "idx.npy"), np.array([4, -5], np.int64))
np.save(os.path.join(d, "idx_bad.npy"), np.array([5, 0], np.int64))
np.save(os.path.join(d, "x_shape.npy"), np.zeros((3, 4), np.float32))
np.save(os.path.join(d, "x_f64.npy"), np.zeros((2, 4), np.float64))
np.save(os.path.join(d, "y_expected.npy"), np.array([[5.5, 5.5, 7], [0, 0, 0]], np.float32))
np.save(os.path.join(d, "y_wrong.npy"), np.array([[5.5, 5.5, 7.1], [0, 0, 0]], np.float32))
with open(os.path.join(d, "garbage.so"), "wb") as f:
    f.write(os.urandom(4096))
