#!/usr/bin/python3
"""TfIdfVectorizer, MaxPool's Indices and integer MaxPool, and Resize's
TensorFlow coordinate modes (issue 54) beyond what the ONNX backend node
tests cover: TfIdfVectorizer in IDF and TFIDF modes with weights, permuted
ngram_indexes and 3-grams (the node tests are TF only); MaxPool indices in
column-major order, in 1-D and 3-D, with dilations; int8 and uint8 pooling;
tf_crop_and_resize with scales and a roi partly outside the input, and
tf_half_pixel_for_nn rounding up. Each compiled by opscope and run against
ONNX Runtime on seeded random inputs.
  tfidf_pool_resize_cases.py --work DIR --compile BIN --run BIN --ort-run "node .../ort_run.js"
Prints one line per case and output; exits 1 on any mismatch.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from indexing_cases import case_arguments, check_against_ort, const, model  # noqa: E402

F32, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
U8, I8 = TensorProto.UINT8, TensorProto.INT8


def resize(x, out_shape, roi, scales=None, sizes=None, **attrs):
    """Resize-13 of x with constant roi and scales or sizes (the other
    input left empty)."""
    consts = [const("roi", roi, np.float32)]
    names = ["x", "roi"]
    if scales is not None:
        consts.append(const("scales", scales, np.float32))
        names.append("scales")
    else:
        consts.append(const("sizes", sizes))
        names += ["", "sizes"]
    node = helper.make_node("Resize", names, ["y"], name="resize", **attrs)
    graph = helper.make_graph(
        [node], "resize", [helper.make_tensor_value_info("x", F32, x.shape)],
        [helper.make_tensor_value_info("y", F32, out_shape)], consts)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m, {"x": x}


def cases():
    rng = np.random.default_rng(54)
    c = {}
    # Pool: 1-grams 1..4, 2-grams (1,2) (2,3) (4,4) (3,1), 3-grams
    # (1,2,3) (2,2,2); columns permuted, two n-grams sharing column 0.
    pool = [1, 2, 3, 4, 1, 2, 2, 3, 4, 4, 3, 1, 1, 2, 3, 2, 2, 2]
    counts = [0, 4, 12]
    indexes = [5, 0, 3, 1, 6, 2, 7, 0, 4, 8]
    weights = [0.5, 2.0, 0.25, 3.0, 1.5, 0.75, 4.0, 8.0, 9.0, 1.25]
    tokens = rng.integers(0, 5, (3, 20)).astype(np.int64)
    for mode in ("IDF", "TFIDF"):
        c["tfidf-%s-weights" % mode.lower()] = (
            model("TfIdfVectorizer", [("x", I64, [3, 20])], [("y", F32, [3, 9])], 9,
                  mode=mode, min_gram_length=1, max_gram_length=3, max_skip_count=2,
                  ngram_counts=counts, ngram_indexes=indexes, pool_int64s=pool,
                  weights=weights),
            {"x": tokens})
    c["tfidf-tf-trigrams-int32"] = (
        model("TfIdfVectorizer", [("x", I32, [40])], [("y", F32, [9])], 9,
              mode="TF", min_gram_length=3, max_gram_length=3, max_skip_count=3,
              ngram_counts=counts, ngram_indexes=indexes, pool_int64s=pool),
        {"x": rng.integers(1, 4, 40).astype(np.int32)})
    # MaxPool's indices: values from a narrow range (ties: the first wins).
    x2 = rng.integers(-3, 4, (2, 3, 9, 8)).astype(np.float32)
    for order in (0, 1):
        c["maxpool-indices-2d-order%d" % order] = (
            model("MaxPool", [("x", F32, x2.shape)],
                  [("y", F32, [2, 3, 3, 4]), ("i", I64, [2, 3, 3, 4])], 12,
                  kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 0, 1],
                  dilations=[2, 1], storage_order=order),
            {"x": x2})
    x1 = rng.integers(-3, 4, (2, 2, 11)).astype(np.float32)
    c["maxpool-indices-1d-ceil"] = (
        model("MaxPool", [("x", F32, x1.shape)],
              [("y", F32, [2, 2, 5]), ("i", I64, [2, 2, 5])], 12,
              kernel_shape=[3], strides=[2], ceil_mode=1),
        {"x": x1})
    x3 = rng.integers(-3, 4, (1, 2, 4, 5, 6)).astype(np.float32)
    c["maxpool-indices-3d-order1"] = (
        model("MaxPool", [("x", F32, x3.shape)],
              [("y", F32, [1, 2, 3, 3, 3]), ("i", I64, [1, 2, 3, 3, 3])], 12,
              kernel_shape=[2, 3, 2], strides=[1, 2, 2], pads=[0, 1, 0, 0, 1, 0],
              storage_order=1),
        {"x": x3})
    for t, np_t, lo, hi in ((U8, np.uint8, 0, 256), (I8, np.int8, -128, 128)):
        xi = rng.integers(lo, hi, (1, 4, 7, 7)).astype(np_t)
        c["maxpool-%s" % np.dtype(np_t).name] = (
            model("MaxPool", [("x", t, xi.shape)], [("y", t, [1, 4, 4, 4])], 12,
                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
            {"x": xi})
    # tf_crop_and_resize with a roi partly outside the input (extrapolated
    # samples), from sizes and from scales (whose output is input x scale,
    # as ONNX Runtime sizes it, not the roi's share of it).
    xr = rng.standard_normal((1, 2, 6, 8)).astype(np.float32)
    roi = [0, 0, 0.25, -0.2, 1, 1, 0.9, 1.3]
    c["resize-crop-sizes-linear"] = resize(
        xr, [1, 2, 5, 9], roi, sizes=[1, 2, 5, 9], mode="linear",
        coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0)
    c["resize-crop-sizes-nearest"] = resize(
        xr, [1, 2, 4, 5], roi, sizes=[1, 2, 4, 5],
        coordinate_transformation_mode="tf_crop_and_resize")
    c["resize-crop-scales-linear"] = resize(
        xr, [1, 2, 12, 12], roi, scales=[1, 1, 2, 1.5], mode="linear",
        coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=2.5)
    c["resize-tf-half-pixel-ceil"] = resize(
        xr, [1, 2, 4, 11], [], sizes=[1, 2, 4, 11],
        coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="ceil")
    return c


def main():
    args = case_arguments(__doc__)
    all_cases = cases()
    failures = check_against_ort(args, all_cases, 1e-5, 1e-6)
    print("tfidf, pool and resize cases: %d of %d failed" % (failures, len(all_cases)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
