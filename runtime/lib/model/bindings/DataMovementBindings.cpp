//===- DataMovementBindings.cpp - transpose, gather, concat, pad, resize --===//
//
// Part of opscope's runtime. Data movement on the generic kernels
// (generic.h). Strided copies (transpose, broadcast_to, slice) have their
// walk planned here, once per session.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/half.h"

using namespace opscope;
using namespace opscope::rt;

namespace {
/// The buffers every single-input data-movement kernel reads and writes.
struct Movement {
  const void *x;
  void *y;
  Shape xs, ys;
  size_t es;
  explicit Movement(const OpContext &c)
      : x(c.ptr(c.in(0))), y(c.ptr(c.out())), xs(c.in(0).shape),
        ys(c.out().shape), es(dtypeSize(c.in(0).dtype)) {}
};

BoundKernel stridedCopyKernel(const Movement &m, StridedWalk w) {
  return [=, w = std::move(w)] {
    stridedCopy(m.x, m.y, w, m.es);
    return std::string();
  };
}

/// The input (of shape m.xs, a view of its buffer) permuted by `perm`.
BoundKernel permuteKernel(const OpContext &c, const Movement &m,
                          const std::vector<int64_t> &perm,
                          std::string &kernel) {
  // Matrix transposes of 32-bit elements (the reorders osc-sparse-layout
  // inserts, attention's head split of a single head) go by register
  // blocks; other perms walk strided rows.
  int64_t batch, rows, cols;
  if (m.es == 4 && asMatrixTranspose(m.xs, perm, batch, rows, cols) &&
      rows > 1 && cols > 1) {
    kernel = c.ownKernel();
    return [=] {
      transposeMatrices32(m.x, batch, rows, cols, m.y);
      return std::string();
    };
  }
  StridedWalk walk = transposeWalk(m.xs, perm);
  size_t r = walk.dims.size();
  bool byRows = r > 0 && walk.strides.size() == 2 &&
                walk.strides[0][r - 1] == 1 && walk.strides[1][r - 1] == 1;
  kernel = byRows ? c.copyKernel() : c.ownKernel(false);
  if (auto shuffle = shortInnerWalk(walk)) {
    // Pairs of 32-bit lanes interleave by AVX-512 permutes.
    kernel = c.ownKernel(shuffle->inner == 2 && m.es == 4);
    return [=, w = std::move(*shuffle)] {
      stridedCopyShortInner(m.x, m.y, w, m.es);
      return std::string();
    };
  }
  return stridedCopyKernel(m, std::move(walk));
}

BoundKernel transposeOp(const OpContext &c, std::string &kernel) {
  return permuteKernel(c, Movement(c), c.ints("perm"), kernel);
}

/// A transpose of a 6-D view of the buffer. NCHW: the channels split as
/// (b, b, C) in DCR order or (C, b, b) in CRD order, permuted to
/// (N, C, H, b, W, b). Channels-last (osc-conv-layout): the same split of
/// the last axis, permuted to (N, H, b, W, b, C); in DCR order that moves
/// rows of b*C contiguous values.
BoundKernel depthToSpaceOp(const OpContext &c, std::string &kernel) {
  Movement m(c);
  int64_t b = c.intAttr("blocksize");
  bool crd = c.flag("crd"), nhwc = c.flag("nhwc");
  if (m.xs.size() != 4 || b < 1 || m.xs[1] % (b * b))
    c.fail("depth_to_space needs a 4-D input whose channels are a multiple "
           "of blocksize^2");
  int64_t n = m.xs[0], ch = m.xs[1] / (b * b), h = m.xs[2], w = m.xs[3];
  std::vector<int64_t> perm;
  if (nhwc && !crd) {
    m.xs = {n, h, w, b, b, ch};
    perm = {0, 1, 3, 2, 4, 5};
  } else if (nhwc) {
    m.xs = {n, h, w, ch, b, b};
    perm = {0, 1, 4, 2, 5, 3};
  } else if (!crd) {
    m.xs = {n, b, b, ch, h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else {
    m.xs = {n, ch, b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  }
  return permuteKernel(c, m, perm, kernel);
}

BoundKernel broadcastToOp(const OpContext &c, std::string &kernel) {
  Movement m(c);
  kernel = c.ownKernel(false);
  return stridedCopyKernel(m, broadcastWalk(m.ys, {m.xs}));
}

/// A 4-D NCHW shape or index list in channels-last memory order.
Shape nhwcOrder(const OpContext &c, Shape v) {
  if (v.size() != 4)
    c.fail("a channels-last (nhwc) op needs 4-D operands");
  return {v[0], v[2], v[3], v[1]};
}

BoundKernel sliceOp(const OpContext &c, std::string &kernel) {
  Movement m(c);
  Shape starts = c.ints("starts"), steps = c.ints("steps");
  if (c.flag("nhwc")) {
    // Channels-last buffers (osc-conv-layout): the same slice in memory
    // order.
    m.xs = nhwcOrder(c, m.xs);
    m.ys = nhwcOrder(c, m.ys);
    starts = nhwcOrder(c, starts);
    steps = nhwcOrder(c, steps);
  }
  kernel = c.ownKernel(false);
  return stridedCopyKernel(m, sliceWalk(m.xs, starts, m.ys, steps));
}

BoundKernel gatherOp(const OpContext &c, std::string &kernel) {
  Movement m(c);
  const BufferRef &idx = c.in(1);
  int64_t axis = c.intAttr("axis");
  const void *ip = c.ptr(idx);
  DType it = idx.dtype;
  int64_t ni = idx.elements();
  std::string where = "op '" + c.op.name + "' (gather): index out of range";
  kernel = c.ownKernel(false);
  return [=] {
    if (!gather(m.x, m.xs, ip, it, ni, axis, m.y, m.es))
      return where;
    return std::string();
  };
}

BoundKernel gatherElementsOp(const OpContext &c, std::string &kernel) {
  const BufferRef &idx = c.in(1);
  const void *xp = c.ptr(c.in(0)), *ip = c.ptr(idx);
  void *yp = c.ptr(c.out());
  Shape ds = c.in(0).shape, is = idx.shape;
  DType it = idx.dtype;
  int64_t axis = c.intAttr("axis");
  size_t es = dtypeSize(c.in(0).dtype);
  std::string where =
      "op '" + c.op.name + "' (gather_elements): index out of range";
  kernel = c.ownKernel(false);
  return [=] {
    if (!gatherElements(xp, ds, ip, it, is, axis, yp, es))
      return where;
    return std::string();
  };
}

BoundKernel maxUnpoolOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &idx = c.in(1);
  if (idx.dtype != DType::I64)
    c.fail("max_unpool's indices must be i64");
  const void *xp = c.ptr(x);
  const int64_t *ip = c.ptr<const int64_t>(idx);
  void *yp = c.ptr(c.out());
  int64_t n = x.elements(), yn = c.out().elements();
  size_t es = dtypeSize(x.dtype);
  std::string where = "op '" + c.op.name +
                      "' (max_unpool): index out of range [0, " +
                      std::to_string(yn) + ")";
  kernel = c.ownKernel(false);
  return [=] {
    if (!maxUnpool(xp, ip, n, yp, yn, es))
      return where;
    return std::string();
  };
}

BoundKernel gridSampleOp(const OpContext &c, std::string &kernel) {
  c.requireF32(c.in(0), "input");
  c.requireF32(c.in(1), "grid");
  const float *xp = c.ptr<const float>(c.in(0)),
              *gp = c.ptr<const float>(c.in(1));
  float *yp = c.ptr<float>(c.out());
  Shape xs = c.in(0).shape, gs = c.in(1).shape;
  ResizeMode mode = c.enumAttr<ResizeMode>("mode");
  PadMode pad = c.enumAttr<PadMode>("padding_mode");
  bool align = c.flag("align_corners");
  kernel = c.ownKernel(false);
  return [=] {
    gridSample(xp, xs, gp, gs, mode, pad, align, yp);
    return std::string();
  };
}

BoundKernel roiAlignOp(const OpContext &c, std::string &kernel) {
  c.requireF32(c.in(0), "input");
  c.requireF32(c.in(1), "rois");
  if (c.in(2).dtype != DType::I64)
    c.fail("roi_align's batch indices must be i64");
  const float *xp = c.ptr<const float>(c.in(0)),
              *rp = c.ptr<const float>(c.in(1));
  const int64_t *ip = c.ptr<const int64_t>(c.in(2));
  float *yp = c.ptr<float>(c.out());
  Shape xs = c.in(0).shape, ys = c.out().shape;
  int64_t ratio = c.intAttr("sampling_ratio");
  float scale = static_cast<float>(c.floatAttr("spatial_scale", 1.0));
  bool half = c.flag("half_pixel"), isMax = c.flag("max");
  std::string where =
      "op '" + c.op.name + "' (roi_align): batch index out of range";
  kernel = c.ownKernel(false);
  return [=] {
    if (!roiAlign(xp, xs, rp, ip, ys[0], ys[2], ys[3], ratio, scale, half,
                  isMax, yp))
      return where;
    return std::string();
  };
}

BoundKernel concatOp(const OpContext &c, std::string &kernel) {
  std::vector<const void *> ins;
  std::vector<Shape> shapes;
  for (const BufferRef &r : c.op.operands) {
    ins.push_back(c.ptr(r));
    shapes.push_back(r.shape);
  }
  int64_t axis = c.intAttr("axis");
  if (c.flag("nhwc")) {
    // Channels-last buffers (osc-conv-layout): the same concat over the
    // NHWC shapes, along the memory axis of the NCHW axis.
    static const int64_t memoryAxis[] = {0, 3, 1, 2};
    for (Shape &s : shapes)
      s = nhwcOrder(c, s);
    if (axis < 0 || axis > 3)
      c.fail("axis " + std::to_string(axis) + " out of range");
    axis = memoryAxis[axis];
  }
  void *yp = c.ptr(c.out());
  size_t es = dtypeSize(c.out().dtype);
  kernel = c.copyKernel();
  return [=] {
    concat(ins, shapes, axis, yp, es);
    return std::string();
  };
}

BoundKernel padOp(const OpContext &c, std::string &kernel) {
  c.requireComputable(c.in(0));
  Movement m(c);
  PadMode mode = c.enumAttr<PadMode>("mode");
  Shape pads = c.ints("pads");
  double value = c.floatAttr("value", 0.0);
  DType t = c.in(0).dtype;
  // Each output row: one copy of its inside, the few border elements
  // filled or mirrored (generic.h's pad), from a plan made here once.
  kernel = c.copyKernel();
  return [=, plan = planPad(mode, t, m.xs, pads, value, m.ys)] {
    pad(plan, m.x, m.y);
    return std::string();
  };
}

BoundKernel castOp(const OpContext &c, std::string &kernel) {
  // f16 and bf16 are cast from and to every type (through f32): an fp16
  // model's graph inputs and outputs around its f32 computation (the
  // importer widens the rest), a bf16 graph input or output.
  if (!isHalfFloat(c.in(0).dtype))
    c.requireComputable(c.in(0));
  if (!isHalfFloat(c.out().dtype))
    c.requireComputable(c.out());
  Movement m(c);
  DType from = c.in(0).dtype, to = c.out().dtype;
  int64_t n = c.in(0).elements();
  kernel = c.ownKernel(castVectorized(from, to));
  return [=] {
    cast(from, m.x, to, m.y, n);
    return std::string();
  };
}

BoundKernel resizeOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  ResizeParams p;
  p.mode = c.enumAttr<ResizeMode>("mode");
  p.transform =
      c.enumAttr<CoordinateTransform>("coordinate_transformation_mode");
  p.nearest = c.enumAttr<NearestMode>("nearest_mode");
  p.cubicA = static_cast<float>(c.floatAttr("cubic_coeff_a", -0.75));
  p.excludeOutside = c.flag("exclude_outside");
  p.scales = c.floats("scales");
  p.roi = c.floats("roi");
  p.extrapolationValue =
      static_cast<float>(c.floatAttr("extrapolation_value", 0.0));
  Shape xs = x.shape, ys = c.out().shape;
  if (p.transform == CoordinateTransform::TfCropAndResize &&
      p.roi.size() != 2 * xs.size())
    c.fail("tf_crop_and_resize needs a roi of two entries per dimension");
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(c.out());
  kernel = c.ownKernel(false);
  // Nearest and linear over the last two dimensions (upsampling in CNNs):
  // taps planned once, rows resampled once per plane.
  bool nhwc = c.flag("nhwc");
  if (auto plan = planResize2D(p, xs, ys)) {
    kernel = std::string(kernelFamily(OpKind::Resize)) + (nhwc ? ":2d_nhwc" : ":2d");
    if (nhwc && xs.size() == 4)
      return [=, plan = std::move(*plan), channels = xs[1]] {
        resize2DNhwc(plan, channels, xp, yp);
        return std::string();
      };
    return [=, plan = std::move(*plan)] {
      resize2D(plan, xp, yp);
      return std::string();
    };
  }
  if (nhwc)
    c.fail("a channels-last (nhwc) resize must be a nearest or linear resize "
           "of H and W");
  return [=] {
    resize(p, xp, xs, yp, ys);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerDataMovementKernels(KernelRegistry &r) {
  r.add(OpKind::Transpose, {"opscope", {}, transposeOp});
  r.add(OpKind::DepthToSpace, {"opscope", {}, depthToSpaceOp});
  r.add(OpKind::BroadcastTo, {"opscope", {}, broadcastToOp});
  r.add(OpKind::Slice, {"opscope", {}, sliceOp});
  r.add(OpKind::Gather, {"opscope", {}, gatherOp});
  r.add(OpKind::GatherElements, {"opscope", {}, gatherElementsOp});
  r.add(OpKind::MaxUnpool, {"opscope", {}, maxUnpoolOp});
  r.add(OpKind::GridSample, {"opscope", {}, gridSampleOp});
  r.add(OpKind::RoiAlign, {"opscope", {}, roiAlignOp});
  r.add(OpKind::Concat, {"opscope", {}, concatOp});
  r.add(OpKind::Pad, {"opscope", {}, padOp});
  r.add(OpKind::Cast, {"opscope", {}, castOp});
  r.add(OpKind::Resize, {"opscope", {}, resizeOp});
}
