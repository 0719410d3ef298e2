"""Writes the inputs of extents.onnxtext into argv[1]: x with 3 nonzeros of
12 (NonZero's bound), and a mask keeping 2 of 5 boxes (Compress's bound);
nms-extent.onnxtext's boxes and scores (2 boxes kept of its bound's 3);
topk-extent.onnxtext's x and k (2 of its bound's 5)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
x = np.zeros((3, 4), np.float32)
x[0, 1], x[2, 0], x[2, 3] = 1, -2, 5
np.save(os.path.join(d, "x.npy"), x)
np.save(os.path.join(d, "boxes.npy"), np.arange(20, dtype=np.float32).reshape(5, 4))
np.save(os.path.join(d, "keep.npy"), np.array([0, 1, 0, 1, 0], bool))
# nms-extent.onnxtext: boxes 1 and 3 overlap box 0 (IoU > 0.5) and have
# lower scores, so NonMaxSuppression keeps boxes 0 and 2 of its bound's 3.
np.save(os.path.join(d, "nms_boxes.npy"),
        np.array([[[0, 0, 1, 1], [0, 0, 1, 1.05], [5, 5, 6, 6], [0, 0, 1, 0.98]]], np.float32))
np.save(os.path.join(d, "nms_scores.npy"), np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32))
# topk-extent.onnxtext: k = 2 of the axis's 5.
np.save(os.path.join(d, "topk_x.npy"), np.arange(15, dtype=np.float32).reshape(3, 5))
np.save(os.path.join(d, "topk_k.npy"), np.array([2], np.int64))
