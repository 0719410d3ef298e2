//===- ExtentBindings.cpp - ops whose output extent depends on the data ---===//
//
// Part of opscope's runtime. non_zero, compress, unique and
// non_max_suppression on the kernels of extents.h: each writes its bounded
// output and its run-time extent, the op's last result
// (docs/architecture.md, "Data-dependent output shapes").
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/extents.h"

#include <algorithm>
#include <cstring>
#include <sstream>

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel nonZeroOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  const void *xp = c.ptr(x);
  int64_t *ip = c.ptr<int64_t>(c.out(0));
  int64_t *np = c.ptr<int64_t>(c.out(1));
  Shape shape = x.shape;
  DType t = x.dtype;
  if (c.out(0).elements() != numElements(shape) * int64_t(shape.size()))
    c.fail("indices must be rank x elements of the input");
  kernel = c.ownKernel(false);
  return [=] {
    *np = nonZero(t, xp, shape, ip);
    return std::string();
  };
}

BoundKernel compressOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &cond = c.in(1);
  const void *xp = c.ptr(x);
  const uint8_t *cp = c.ptr<uint8_t>(cond);
  void *yp = c.ptr(c.out(0));
  int64_t *np = c.ptr<int64_t>(c.out(1));
  Shape shape = x.shape;
  size_t elem = dtypeSize(x.dtype);
  int64_t axis = c.hasAttr("axis") ? c.intAttr("axis") : -1;
  if (axis >= static_cast<int64_t>(shape.size()) || cond.shape.size() != 1)
    c.fail("axis " + std::to_string(axis) + " out of range");
  int64_t condLen = cond.shape[0];
  kernel = c.ownKernel(false);
  return [=] {
    *np = compress(elem, xp, shape, axis, cp, condLen, yp);
    return std::string();
  };
}

BoundKernel uniqueOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  const void *xp = c.ptr(x);
  void *yp = c.ptr(c.out(0));
  int64_t *ip = c.ptr<int64_t>(c.out(1)), *inv = c.ptr<int64_t>(c.out(2)),
          *cp = c.ptr<int64_t>(c.out(3)), *np = c.ptr<int64_t>(c.out(4));
  Shape shape = x.shape;
  DType t = x.dtype;
  if (t == DType::F16 || t == DType::BF16)
    c.fail(std::string("element type ") + dtypeName(t) +
           " is not supported by unique");
  int64_t axis = c.hasAttr("axis") ? c.intAttr("axis") : -1;
  if (axis >= static_cast<int64_t>(shape.size()))
    c.fail("axis " + std::to_string(axis) + " out of range");
  bool sorted = !c.flag("unsorted");
  kernel = c.ownKernel(false);
  return [=] {
    *np = unique(t, xp, shape, axis, sorted, yp, ip, inv, cp);
    return std::string();
  };
}

/// One value of an optional scalar operand (a scalar or one element).
template <typename T>
const T *scalarOperand(const OpContext &c, size_t i, DType t,
                       const char *what) {
  if (!c.has(i))
    return nullptr;
  const BufferRef &r = c.in(i);
  if (r.dtype != t || r.elements() != 1)
    c.fail(std::string(what) + " must be one " + dtypeName(t) + " value");
  return c.ptr<const T>(r);
}

BoundKernel nonMaxSuppressionOp(const OpContext &c, std::string &kernel) {
  const BufferRef &bx = c.in(0), &sc = c.in(1);
  c.requireF32(bx, "boxes");
  c.requireF32(sc, "scores");
  const Shape &bs = bx.shape, &ss = sc.shape;
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] ||
      ss[2] != bs[1])
    c.fail("boxes must be batches x boxes x 4 and scores batches x classes "
           "x boxes");
  NmsParams p;
  p.batches = bs[0];
  p.boxes = bs[1];
  p.classes = ss[1];
  p.centerPointBox = c.flag("center_point_box");
  p.maxPerClass = c.intAttr("max_per_class", 0);
  const int64_t *maxp =
      scalarOperand<int64_t>(c, 2, DType::I64, "max_output_boxes_per_class");
  const float *iou = scalarOperand<float>(c, 3, DType::F32, "iou_threshold");
  const float *st = scalarOperand<float>(c, 4, DType::F32, "score_threshold");
  const BufferRef &out = c.out(0);
  if (out.dtype != DType::I64 || out.shape.size() != 2 || out.shape[1] != 3)
    c.fail("selected must be i64 rows of 3");
  int64_t bound = out.shape[0];
  // The bound the compiler gave: min(limit, boxes) per batch and class,
  // the limit being the run-time one's largest useful value, the boxes.
  int64_t perClass = maxp ? p.boxes : std::min(p.maxPerClass, p.boxes);
  if (bound != p.batches * p.classes * std::max<int64_t>(perClass, 0))
    c.fail("selected has " + std::to_string(bound) +
           " rows, not batches x classes x min(limit, boxes)");
  const float *bp = c.ptr<const float>(bx), *sp = c.ptr<const float>(sc);
  int64_t *op = c.ptr<int64_t>(out), *np = c.ptr<int64_t>(c.out(1));
  kernel = c.ownKernel();
  std::string where = "op '" + c.op.name + "' (non_max_suppression): ";
  return [=]() {
    NmsParams q = p;
    if (maxp)
      q.maxPerClass = std::max<int64_t>(*maxp, 0);
    if (iou) {
      q.iouThreshold = *iou;
      // ONNX Runtime refuses such a threshold as well.
      if (!(q.iouThreshold >= 0.0f && q.iouThreshold <= 1.0f)) {
        std::memset(op, 0, sizeof(int64_t) * 3 * bound);
        *np = 0;
        std::ostringstream msg;
        msg << where << "iou_threshold " << q.iouThreshold
            << " is outside [0, 1]";
        return msg.str();
      }
    }
    if (st) {
      q.hasScoreThreshold = true;
      q.scoreThreshold = *st;
    }
    int64_t rows = nonMaxSuppression(bp, sp, q, op, bound);
    if (rows < 0) {
      *np = 0;
      return where + "more boxes kept than the bound of " +
             std::to_string(bound) + " rows";
    }
    *np = rows;
    return std::string();
  };
}
} // namespace

void opscope::rt::registerExtentKernels(KernelRegistry &r) {
  r.add(OpKind::NonZero, {"opscope", {}, nonZeroOp});
  r.add(OpKind::Compress, {"opscope", {}, compressOp});
  r.add(OpKind::Unique, {"opscope", {}, uniqueOp});
  r.add(OpKind::NonMaxSuppression, {"opscope", {}, nonMaxSuppressionOp});
}
