//===- NormalizationBindings.cpp - norms, softmax, GELU, pooling ----------===//
//
// Part of opscope's runtime. Normalisation, softmax and GELU on
// opscope's own kernels (kernels.h: AVX-512 with a portable fallback).
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel layerNormOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  int64_t axis = c.intAttr("axis");
  // transposed: x is hidden x tokens (osc-sparse-layout's chains).
  bool transposed = c.flag("transposed");
  if (transposed && x.shape.size() != 2)
    c.fail("a transposed layer norm needs a 2-D input");
  int64_t cols = 1;
  if (transposed)
    cols = x.shape[0];
  else
    for (size_t i = axis; i < x.shape.size(); ++i)
      cols *= x.shape[i];
  int64_t rows = x.elements() / std::max<int64_t>(cols, 1);
  float eps = static_cast<float>(c.floatAttr("epsilon", 1e-5));
  const float *xp = c.ptr<const float>(x);
  const float *g = c.ptr<const float>(c.in(1));
  const float *b = c.has(2) ? c.ptr<const float>(c.in(2)) : nullptr;
  kernel = c.ownKernel();
  if (c.bf16OrF32(y, "output")) {
    // A bf16 chain's hand-over (osc-bf16-chains).
    if (transposed)
      c.fail("a transposed layer norm writes f32");
    auto *y16 = c.ptr<uint16_t>(y);
    return [=] {
      rt::layerNorm(xp, g, b, y16, rows, cols, eps);
      return std::string();
    };
  }
  float *yp = c.ptr<float>(y);
  return [=] {
    if (transposed)
      rt::layerNormTransposed(xp, g, b, yp, rows, cols, eps);
    else
      rt::layerNorm(xp, g, b, yp, rows, cols, eps);
    return std::string();
  };
}

BoundKernel softmaxOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  int64_t axis = c.intAttr("axis");
  bool log = c.flag("log");
  int64_t rank = static_cast<int64_t>(x.shape.size());
  const float *xp = c.ptr<const float>(x);
  kernel = c.ownKernel();
  Shape shape = x.shape;
  const float *mp = nullptr;
  int64_t group = 1; // rows per mask row; < 1: a mask the row-wise kernel cannot read
  if (c.has(1)) {
    c.requireF32(c.in(1), "mask");
    mp = c.ptr<const float>(c.in(1));
    group = softmaxMaskRowGroup(shape, c.in(1).shape);
  }
  bool rowWise = axis == rank - 1 && group > 0;
  int64_t cols = shape.empty() ? 1 : shape.back(), rows = x.elements() / std::max<int64_t>(cols, 1);
  if (c.bf16OrF32(y, "output")) {
    // A bf16 chain's hand-over (osc-bf16-chains): the row-wise kernel only.
    if (!rowWise)
      c.fail("a bf16 softmax output needs the last axis and a mask that "
             "varies only over leading dimensions and the last one");
    auto *y16 = c.ptr<uint16_t>(y);
    return [=] {
      rt::softmax(xp, mp, group, y16, rows, cols, log);
      return std::string();
    };
  }
  float *yp = c.ptr<float>(y);
  if (rowWise)
    return [=] {
      rt::softmax(xp, mp, group, yp, rows, cols, log);
      return std::string();
    };
  if (!mp) {
    kernel = c.ownKernel(false);
    return [=] {
      softmaxAxis(xp, shape, axis, log, yp);
      return std::string();
    };
  }
  const BufferRef &mask = c.in(1);
  // General mask: add it (broadcast) into the output, then normalise there.
  StridedWalk addMask = broadcastWalk(shape, {shape, mask.shape});
  kernel = c.ownKernel(axis == rank - 1);
  return [=] {
    binary(BinaryKind::Add, DType::F32, xp, mp, yp, addMask);
    if (axis == rank - 1) {
      int64_t cols = shape.back();
      rt::softmax(yp, nullptr, 1, yp, numElements(shape) / std::max<int64_t>(cols, 1), cols, log);
    } else {
      softmaxAxis(yp, shape, axis, log, yp);
    }
    return std::string();
  };
}

BoundKernel geluOp(const OpContext &c, std::string &kernel) {
  c.requireF32(c.in(0), "input");
  bool tanhForm = c.enumAttr<GeluKind>("approximation") == GeluKind::Tanh;
  const float *xp = c.ptr<const float>(c.in(0));
  float *yp = c.ptr<float>(c.out());
  int64_t n = c.in(0).elements();
  kernel = c.ownKernel();
  return [=] {
    rt::gelu(xp, yp, n, tanhForm);
    return std::string();
  };
}

BoundKernel batchNormOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  Shape s = x.shape;
  const float *xp = c.ptr<const float>(x), *g = c.ptr<const float>(c.in(1)),
              *b = c.ptr<const float>(c.in(2)), *m = c.ptr<const float>(c.in(3)),
              *v = c.ptr<const float>(c.in(4));
  float eps = static_cast<float>(c.floatAttr("epsilon", 1e-5));
  float *yp = c.ptr<float>(c.out());
  kernel = c.ownKernel(false);
  return [=] {
    batchNorm(xp, s, g, b, m, v, eps, yp);
    return std::string();
  };
}

BoundKernel instanceNormOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  Shape s = x.shape;
  const float *xp = c.ptr<const float>(x), *g = c.ptr<const float>(c.in(1)),
              *b = c.ptr<const float>(c.in(2));
  float eps = static_cast<float>(c.floatAttr("epsilon", 1e-5));
  float *yp = c.ptr<float>(c.out());
  kernel = c.ownKernel();
  return [=] {
    instanceNorm(xp, s, g, b, eps, yp);
    return std::string();
  };
}

BoundKernel lrnOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  Shape s = x.shape;
  int64_t size = c.intAttr("size");
  float alpha = static_cast<float>(c.floatAttr("alpha", 1e-4)),
        beta = static_cast<float>(c.floatAttr("beta", 0.75)),
        bias = static_cast<float>(c.floatAttr("bias", 1.0));
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(c.out());
  kernel = c.ownKernel();
  return [=] {
    lrn(xp, s, size, alpha, beta, bias, yp);
    return std::string();
  };
}

BoundKernel globalPoolOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  bool isMax = c.enumAttr<PoolKind>("kind") == PoolKind::Max;
  Shape s = x.shape;
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(c.out());
  kernel = c.ownKernel();
  return [=] {
    globalPool(isMax, xp, s, yp);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerNormalizationKernels(KernelRegistry &r) {
  r.add(OpKind::LayerNorm, {"opscope", {}, layerNormOp});
  r.add(OpKind::Softmax, {"opscope", {}, softmaxOp});
  r.add(OpKind::Gelu, {"opscope", {}, geluOp});
  r.add(OpKind::BatchNorm, {"opscope", {}, batchNormOp});
  r.add(OpKind::InstanceNorm, {"opscope", {}, instanceNormOp});
  r.add(OpKind::Lrn, {"opscope", {}, lrnOp});
  r.add(OpKind::GlobalPool, {"opscope", {}, globalPoolOp});
}
