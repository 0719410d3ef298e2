#!/usr/bin/python3
"""NonMaxSuppression (issue 54) against ONNX Runtime on inputs larger than
the backend node tests': a detector-style tail (NMS over several classes
with run-time thresholds -> the kept boxes' indices -> their coordinates
and scores, through Gather), run on seeded random boxes with flipped
corners and scores full of ties; center-point boxes with a run-time
limit; opset 10 without thresholds (IoU 0: any overlap suppresses); no
limit (nothing selected); a negative run-time limit; no IoU threshold
before a score threshold; and an iou_threshold
above 1 given at run time, which ends the run with an error naming the op.
Every output must match ONNX Runtime's in shape and values.
  nms_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per case and output; exits 1 on any mismatch.
"""

import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from indexing_cases import case_arguments, check_against_ort  # noqa: E402

F32, I64 = TensorProto.FLOAT, TensorProto.INT64


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def nms_model(inputs, nms_inputs, consts=(), opset=11, outputs=None, extra=(),
              **attrs):
    """NonMaxSuppression reading `nms_inputs` ("" for absent ones), its
    graph inputs `inputs` and initializers `consts`, plus the nodes
    `extra` after it; `outputs` default to the selected rows alone."""
    nodes = [helper.make_node("NonMaxSuppression", nms_inputs, ["sel"], name="nms",
                              **attrs)] + list(extra)
    outs = outputs or [info("sel", I64, ["k", 3])]
    g = helper.make_graph(nodes, "nms", inputs, outs, list(consts))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def corners(rng, batches, n, flip=True):
    """Clustered [y1, x1, y2, x2] boxes (so that many overlap), with the
    corners of about half of them given in the other order."""
    centre = rng.random((batches, n, 2)).astype(np.float32) * 4
    size = (0.5 + rng.random((batches, n, 2))).astype(np.float32)
    lo, hi = centre - size / 2, centre + size / 2
    b = np.concatenate([lo, hi], axis=-1)
    if flip:
        swap = rng.random((batches, n)) < 0.5
        b[swap] = np.concatenate([hi, lo], axis=-1)[swap]
    return b.astype(np.float32)


def cases():
    rng = np.random.default_rng(54)
    c = {}
    # A detector's tail: 3 classes over 60 boxes of one image, a constant
    # limit, run-time IoU and score thresholds; scores in steps of 1/8 (many
    # ties, taken by ascending index). The kept boxes' indices (Gather along
    # axis 1 of the bounded rows), then their coordinates and first-class
    # scores (Gather by bounded indices).
    n, classes = 60, 3
    boxes = corners(rng, 1, n)
    scores = (rng.integers(0, 8, (1, classes, n)) / 8).astype(np.float32)
    flat_boxes = boxes.reshape(n, 4)
    tail = [
        helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1, name="idx"),
        helper.make_node("Gather", ["flat_boxes", "idx"], ["kept_boxes"], axis=0,
                         name="kept_boxes"),
        helper.make_node("Gather", ["first_scores", "idx"], ["kept_scores"], axis=0,
                         name="kept_scores"),
    ]
    c["detector-tail"] = (
        nms_model([info("boxes", F32, [1, n, 4]), info("scores", F32, [1, classes, n]),
                   info("iou", F32, []), info("score_thr", F32, []),
                   info("flat_boxes", F32, [n, 4]), info("first_scores", F32, [n])],
                  ["boxes", "scores", "max", "iou", "score_thr"],
                  [numpy_helper.from_array(np.array(7, np.int64), "max"),
                   numpy_helper.from_array(np.array(2, np.int64), "two")],
                  outputs=[info("sel", I64, ["k", 3]), info("idx", I64, ["k"]),
                           info("kept_boxes", F32, ["k", 4]),
                           info("kept_scores", F32, ["k"])],
                  extra=tail),
        {"boxes": boxes, "scores": scores, "iou": np.array(0.3, np.float32),
         "score_thr": np.array(0.2, np.float32), "flat_boxes": flat_boxes,
         "first_scores": scores[0, 0].copy()})
    # Center-point boxes, 2 batches x 2 classes, a run-time limit.
    n = 40
    cb = np.concatenate([rng.random((2, n, 2)) * 3, 0.4 + rng.random((2, n, 2))],
                        axis=-1).astype(np.float32)
    cs = rng.random((2, 2, n)).astype(np.float32)
    run_inputs = [info("boxes", F32, [2, n, 4]), info("scores", F32, [2, 2, n]),
                  info("max", I64, [1]), info("iou", F32, [1]), info("score_thr", F32, [1])]
    feeds = {"boxes": cb, "scores": cs, "max": np.array([5], np.int64),
             "iou": np.array([0.45], np.float32), "score_thr": np.array([0.1], np.float32)}
    c["center-point-runtime-limit"] = (
        nms_model(run_inputs, ["boxes", "scores", "max", "iou", "score_thr"],
                  center_point_box=1),
        feeds)
    # A negative run-time limit counts as 0: nothing selected.
    c["negative-limit"] = (
        nms_model(run_inputs, ["boxes", "scores", "max", "iou", "score_thr"],
                  center_point_box=1),
        dict(feeds, max=np.array([-3], np.int64)))
    # Opset 10, no thresholds: IoU 0 (any overlap suppresses), every score
    # a candidate.
    b10 = corners(rng, 1, 30)
    s10 = rng.standard_normal((1, 2, 30)).astype(np.float32)
    c["opset10-no-thresholds"] = (
        nms_model([info("boxes", F32, [1, 30, 4]), info("scores", F32, [1, 2, 30])],
                  ["boxes", "scores", "max"],
                  [numpy_helper.from_array(np.array([30], np.int64), "max")], opset=10),
        {"boxes": b10, "scores": s10})
    # No iou_threshold (an empty input name) before a score threshold.
    c["iou-absent"] = (
        nms_model([info("boxes", F32, [1, 30, 4]), info("scores", F32, [1, 2, 30]),
                   info("score_thr", F32, [1])],
                  ["boxes", "scores", "max", "", "score_thr"],
                  [numpy_helper.from_array(np.array([4], np.int64), "max")]),
        {"boxes": b10, "scores": s10, "score_thr": np.array([-0.5], np.float32)})
    # No limit: ONNX's default, 0, selects nothing (a 0 x 3 result).
    c["no-limit"] = (
        nms_model([info("boxes", F32, [1, 30, 4]), info("scores", F32, [1, 2, 30])],
                  ["boxes", "scores"]),
        {"boxes": b10, "scores": s10})
    return c


def main():
    args = case_arguments(__doc__)
    all_cases = cases()
    failures = check_against_ort(args, all_cases, 0, 0)
    # An iou_threshold outside [0, 1] at run time: ONNX Runtime refuses it,
    # and so does opscope, naming the op (exit 1).
    m, feeds = all_cases["center-point-runtime-limit"]
    d = os.path.join(args.work, "bad-iou")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    onnx.save(m, path)
    cmd = [args.run, path, "--iterations", "1", "--warmup", "0", "-q"]
    for k, v in dict(feeds, iou=np.array([1.5], np.float32)).items():
        np.save(os.path.join(d, k + ".npy"), v)
        cmd += ["--input", "%s=%s" % (k, os.path.join(d, k + ".npy"))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bad-iou: exit %d: %s" % (r.returncode, r.stderr.strip()))
    print("nms cases: %d of %d failed" % (failures, len(all_cases)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
