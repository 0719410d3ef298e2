"""Writes the model of vision-linalg-ort.test into DIR: one input x (2x6x5x4
f32, x.npy) and one f32 output per case of the image and linear-algebra
ops issue 54 added (InstanceNormalization, MeanVarianceNormalization, LRN
on each of its power forms, Einsum's f32 lowerings), with weights as
initializers; DIR/vision.outputs lists the output names. LRN sizes are odd:
ONNX Runtime refuses even ones, which the spec allows (VisionKernelsTest
covers them).

  make_vision_linalg.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(54)
f32 = T.FLOAT
# An offset mean, so that normalisations that do not centre lose digits.
x = (rng.standard_normal((2, 6, 5, 4)) * 2 + 3).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)


def init(name, shape):
    return nh.from_array(rng.standard_normal(shape).astype(np.float32), name)


n = h.make_node
nodes = [
    n("InstanceNormalization", ["x", "scale", "bias"], ["inorm"], epsilon=1e-3),
    n("MeanVarianceNormalization", ["x"], ["mvn"]),
    n("MeanVarianceNormalization", ["x"], ["mvn_hw"], axes=[2, 3]),
    n("LRN", ["x"], ["lrn_default"], size=3),
    n("LRN", ["x"], ["lrn_sqrt"], size=5, alpha=0.02, beta=0.5, bias=2.0),
    n("LRN", ["x"], ["lrn_pow"], size=3, alpha=0.1, beta=0.6, bias=1.5),
    n("Einsum", ["x", "x"], ["e_att"], equation="bchw,bcjw->bchj"),
    n("Einsum", ["x"], ["e_perm"], equation="bchw->bwhc"),
    n("Einsum", ["x"], ["e_sum"], equation="bchw->b"),
    n("Einsum", ["x"], ["e_ell"], equation="...hw->...h"),
    n("Einsum", ["x", "w"], ["e_proj"], equation="bchw,wk->bchk"),
    n("Einsum", ["x", "w", "v"], ["e_three"], equation="bchw,wk,k->bch"),
    n("Einsum", ["s"], ["e_diag"], equation="ii->i"),
    n("Einsum", ["s", "w"], ["e_trace_outer"], equation="ii,jk->jk"),
    n("Einsum", ["v", "w"], ["e_outer"], equation="k,wj->kwj"),
]
outputs = {
    "inorm": [2, 6, 5, 4], "mvn": [2, 6, 5, 4], "mvn_hw": [2, 6, 5, 4],
    "lrn_default": [2, 6, 5, 4], "lrn_sqrt": [2, 6, 5, 4],
    "lrn_pow": [2, 6, 5, 4], "e_att": [2, 6, 5, 5], "e_perm": [2, 4, 5, 6],
    "e_sum": [2], "e_ell": [2, 6, 5], "e_proj": [2, 6, 5, 3],
    "e_three": [2, 6, 5], "e_diag": [4], "e_trace_outer": [4, 3],
    "e_outer": [3, 4, 3],
}
graph = h.make_graph(
    nodes, "vision", [h.make_tensor_value_info("x", f32, [2, 6, 5, 4])],
    [h.make_tensor_value_info(o, f32, s) for o, s in outputs.items()],
    initializer=[init("scale", [6]), init("bias", [6]), init("w", [4, 3]),
                 init("v", [3]), init("s", [4, 4])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)],
                     producer_name="make_vision_linalg")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "vision.onnx"))
with open(os.path.join(out, "vision.outputs"), "w") as f:
    f.write("\n".join(outputs) + "\n")

# sampling.onnx: input x (2x3x6x5, xs.npy). GridSample in every mode,
# padding and corner alignment at a grid reaching past the image;
# RoiAlign avg and max, half_pixel and output_half_pixel; MaxUnpool without
# output_shape (with it, ONNX Runtime 1.30 scatters the indices into the
# given shape, where ONNX's reference and backend test pad the formula's
# shape; opscope does what the backend test expects).
xs = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
np.save(os.path.join(out, "xs.npy"), xs)
grid = rng.uniform(-1.3, 1.3, (2, 4, 3, 2)).astype(np.float32)
rois = np.array([[0.5, 1.0, 3.5, 4.2], [1.2, 0.3, 4.9, 5.7],
                 [2.0, 2.0, 2.4, 2.6], [-1.0, -0.5, 3.0, 7.5]], np.float32)
unpool_idx = np.zeros((2, 3, 6, 5), np.int64)
for b in range(2):
    for c in range(3):
        for i in range(6):
            for j in range(5):
                # One position of each 2x2 window of the 12 x 10 output.
                di, dj = rng.integers(0, 2, 2)
                unpool_idx[b, c, i, j] = ((b * 3 + c) * 12 + 2 * i + di) * 10 \
                    + 2 * j + dj
nodes, outputs = [], {}
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        for align in (0, 1):
            name = "gs_%s_%s_%d" % (mode, pad, align)
            nodes.append(n("GridSample", ["xs", "grid"], [name], mode=mode,
                           padding_mode=pad, align_corners=align))
            outputs[name] = [2, 3, 4, 3]
for mode in ("avg", "max"):
    for ctm in ("half_pixel", "output_half_pixel"):
        name = "roi_%s_%s" % (mode, ctm)
        nodes.append(n("RoiAlign", ["xs", "rois", "roi_batch"], [name],
                       mode=mode, coordinate_transformation_mode=ctm,
                       output_height=3, output_width=2, sampling_ratio=0,
                       spatial_scale=0.9))
        outputs[name] = [4, 3, 3, 2]
nodes.append(n("MaxUnpool", ["xs", "unpool_idx"], ["unpool"],
               kernel_shape=[2, 2], strides=[2, 2]))
outputs["unpool"] = [2, 3, 12, 10]
graph = h.make_graph(
    nodes, "sampling", [h.make_tensor_value_info("xs", f32, [2, 3, 6, 5])],
    [h.make_tensor_value_info(o, f32, s) for o, s in outputs.items()],
    initializer=[nh.from_array(grid, "grid"), nh.from_array(rois, "rois"),
                 nh.from_array(np.array([0, 1, 1, 0], np.int64), "roi_batch"),
                 nh.from_array(unpool_idx, "unpool_idx")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)],
                     producer_name="make_vision_linalg")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "sampling.onnx"))
with open(os.path.join(out, "sampling.outputs"), "w") as f:
    f.write("\n".join(outputs) + "\n")

# sampling20.onnx: GridSample-20 on a 3-D volume (v, 1x2x3x4x5, v.npy),
# linear and nearest in each padding mode (ONNX Runtime has no cubic
# volumes).
v = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
np.save(os.path.join(out, "v.npy"), v)
grid3 = rng.uniform(-1.2, 1.2, (1, 2, 3, 2, 3)).astype(np.float32)
nodes, outputs = [], {}
for mode in ("linear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        name = "gs3_%s_%s" % (mode, pad)
        nodes.append(n("GridSample", ["v", "grid3"], [name], mode=mode,
                       padding_mode=pad, align_corners=int(pad == "border")))
        outputs[name] = [1, 2, 2, 3, 2]
graph = h.make_graph(
    nodes, "sampling20", [h.make_tensor_value_info("v", f32, [1, 2, 3, 4, 5])],
    [h.make_tensor_value_info(o, f32, s) for o, s in outputs.items()],
    initializer=[nh.from_array(grid3, "grid3")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 20)],
                     producer_name="make_vision_linalg")
model.ir_version = 9
# Not onnx.checker: libonnx 1.12's knows no GridSample-20.
onnx.save(model, os.path.join(out, "sampling20.onnx"))
with open(os.path.join(out, "sampling20.outputs"), "w") as f:
    f.write("\n".join(outputs) + "\n")
