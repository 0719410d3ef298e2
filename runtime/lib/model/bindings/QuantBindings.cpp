//===- QuantBindings.cpp - ONNX quantization ops --------------------------===//
//
// Part of opscope's runtime. quantize_linear, dequantize_linear,
// dynamic_quantize_linear and matmul_integer (quantize.h). Scales and zero
// points are buffers like any operand: constants for statically quantized
// models, arena tensors when DynamicQuantizeLinear computes them.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/quantize.h"

#include <algorithm>
#include <memory>


using namespace opscope;
using namespace opscope::rt;

namespace {
/// outer x channels x inner of a per-tensor or per-axis parameterization.
struct Channels {
  int64_t outer = 1, channels = 1, inner = 1;
};

Channels channelsOf(const OpContext &c, const BufferRef &data,
                    const BufferRef &scale) {
  Channels ch;
  ch.inner = data.elements();
  if (scale.shape.empty() || scale.elements() == 1) {
    // Per tensor (a 1-element 1-D scale too).
    if (scale.elements() != 1)
      c.fail("scale must have one element or one per channel");
    return ch;
  }
  int64_t axis = c.intAttr("axis", 1);
  if (axis < 0 || axis >= static_cast<int64_t>(data.shape.size()) ||
      scale.elements() != data.shape[axis])
    c.fail("per-axis scale does not match dimension " + std::to_string(axis));
  ch.channels = data.shape[axis];
  ch.outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    ch.outer *= data.shape[d];
  ch.inner = data.elements() / (ch.outer * ch.channels);
  return ch;
}

BoundKernel quantizeLinearOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &s = c.in(1), &y = c.out();
  c.requireF32(x, "input");
  c.requireF32(s, "scale");
  if (y.dtype != DType::U8 && y.dtype != DType::I8)
    c.fail("the result must be u8 or i8");
  Channels ch = channelsOf(c, x, s);
  const float *xp = c.ptr<const float>(x), *sp = c.ptr<const float>(s);
  const void *zp = c.has(2) ? c.ptr<const void>(c.in(2)) : nullptr;
  void *yp = c.ptr(y);
  DType t = y.dtype;
  kernel = c.ownKernel(false);
  return [=] {
    quantizeLinear(xp, sp, zp, t, ch.outer, ch.channels, ch.inner, yp);
    return std::string();
  };
}

BoundKernel dequantizeLinearOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &s = c.in(1), &y = c.out();
  if (x.dtype != DType::U8 && x.dtype != DType::I8 && x.dtype != DType::I32)
    c.fail("the input must be u8, i8 or i32");
  c.requireF32(s, "scale");
  c.requireF32(y, "output");
  Channels ch = channelsOf(c, x, s);
  const void *xp = c.ptr<const void>(x), *zp =
                       c.has(2) ? c.ptr<const void>(c.in(2)) : nullptr;
  const float *sp = c.ptr<const float>(s);
  float *yp = c.ptr<float>(y);
  DType t = x.dtype;
  kernel = c.ownKernel(false);
  return [=] {
    dequantizeLinear(xp, t, sp, zp, ch.outer, ch.channels, ch.inner, yp);
    return std::string();
  };
}

BoundKernel dynamicQuantizeLinearOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  int64_t part = c.intAttr("part", 0);
  DType want[] = {DType::U8, DType::F32, DType::U8};
  if (part < 0 || part > 2 || y.dtype != want[part] ||
      (part > 0 && y.elements() != 1) ||
      (part == 0 && y.elements() != x.elements()))
    c.fail("part must be 0 (u8 data), 1 (f32 scale) or 2 (u8 zero point)");
  const float *xp = c.ptr<const float>(x);
  void *yp = c.ptr(y);
  int64_t n = x.elements();
  // The range and quantize passes are the kernel table's (rangeWithZero,
  // quantizeU8Div).
  kernel = c.ownKernel();
  return [=] {
    float scale;
    uint8_t zero;
    if (part == 0) {
      dynamicQuantizeLinear(xp, n, static_cast<uint8_t *>(yp), &scale, &zero);
      return std::string();
    }
    dynamicQuantizeParams(xp, n, &scale, &zero);
    if (part == 1)
      *static_cast<float *>(yp) = scale;
    else
      *static_cast<uint8_t *>(yp) = zero;
    return std::string();
  };
}

BoundKernel matmulIntegerOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  auto is8 = [](DType t) { return t == DType::U8 || t == DType::I8; };
  if (!is8(a.dtype) || !is8(b.dtype) || y.dtype != DType::I32)
    c.fail("operands must be u8/i8 and the result i32");
  if (a.shape.size() < 2 || b.shape.size() < 2 || y.shape.size() < 2)
    c.fail("operands must have rank >= 2");
  const void *ap = c.ptr<const void>(a), *bp = c.ptr<const void>(b);
  const void *azp = c.has(2) ? c.ptr<const void>(c.in(2)) : nullptr;
  const void *bzp = c.has(3) ? c.ptr<const void>(c.in(3)) : nullptr;
  int64_t azn = c.has(2) ? c.in(2).elements() : 0;
  int64_t bzn = c.has(3) ? c.in(3).elements() : 0;
  int32_t *yp = c.ptr<int32_t>(y);
  DType at = a.dtype, bt = b.dtype;
  Shape as = a.shape, bs = b.shape, ys = y.shape;
  // A constant b (quantize_dynamic's weights) whose batch dimensions are
  // all 1: a's batches are rows of one product, packed once on the exact
  // int8 GEMM (IntegerMatMul), its zero point per tensor (or per row
  // without batches).
  // (Zero-size products stay on the loop below, which writes nothing.)
  int64_t k = a.shape.back(), n = b.shape.back();
  int64_t rows = k > 0 ? a.elements() / k : 0;
  int64_t bBatch = k > 0 && n > 0 ? b.elements() / (k * n) : 0;
  bool constB = b.kind == BufferRef::Weight &&
                (!c.has(3) || c.in(3).kind == BufferRef::Weight);
  if (constB && rows > 0 && bBatch == 1 && b.shape[b.shape.size() - 2] == k &&
      y.elements() == rows * n && (azn <= 1 || azn == rows) &&
      (bzn <= 1 || bzn == n)) {
    auto mm = std::shared_ptr<IntegerMatMul>(dnnlCreate(c, [&] {
      return new IntegerMatMul(rows, k, n, at == DType::I8, bp,
                               bt == DType::I8, bzp, bzn);
    }));
    kernel = (mm->ownKernel() ? "opscope:" : "onednn:") +
             mm->implementation() + ":matmul_integer";
    return [=] {
      mm->run(ap, azp, azn, yp);
      return std::string();
    };
  }
  kernel = c.ownKernel(false);
  return [=] {
    matmulInteger(ap, at, as, bp, bt, bs, azp, azn, bzp, bzn, yp, ys);
    return std::string();
  };
}
BoundKernel convIntegerOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  auto is8 = [](DType t) { return t == DType::U8 || t == DType::I8; };
  if (!is8(x.dtype) || !is8(w.dtype) || y.dtype != DType::I32)
    c.fail("input and weight must be u8/i8 and the result i32");
  size_t rank = x.shape.size();
  if (rank < 3 || rank > 5 || w.shape.size() != rank || y.shape.size() != rank)
    c.fail("input, weight and result must be N x C x spatial... (1 to 3 "
           "spatial dims)");
  ConvIntegerWindow win;
  win.strides = c.ints("strides");
  win.dilations = c.ints("dilations");
  win.pads = c.ints("pads");
  win.groups = c.intAttr("groups", 1);
  if (win.strides.size() != rank - 2 || win.dilations.size() != rank - 2 ||
      win.pads.size() != 2 * (rank - 2) || win.groups < 1)
    c.fail("strides, dilations, pads or groups do not match the input rank");
  const void *xp = c.ptr<const void>(x), *wp = c.ptr<const void>(w);
  const void *xzp = c.has(2) ? c.ptr<const void>(c.in(2)) : nullptr;
  const void *wzp = c.has(3) ? c.ptr<const void>(c.in(3)) : nullptr;
  int64_t wzn = c.has(3) ? c.in(3).elements() : 0;
  int32_t *yp = c.ptr<int32_t>(y);
  DType xt = x.dtype, wt = w.dtype;
  Shape xs = x.shape, ws = w.shape, ys = y.shape;
  // A constant weight (and weight zero point) is centered once, here, and
  // runs on oneDNN's int8 convolution. w - w_zero_point fits s8 for an i8
  // weight with zero point 0, or a u8 one with zero point 128; a u8 weight
  // with another zero point (quantize_dynamic's QUInt8, asymmetric, as CNN
  // exports have it) spans up to 9 bits: it is split into parts within the
  // tier's int8 weight limit (int8WeightLimit: 127 with VNNI, 64 below),
  // each a convolution, their exact i32 results summed (IntegerConv). The
  // portable kernel takes what oneDNN refuses.
  bool constW = w.kind == BufferRef::Weight &&
                (!c.has(3) || c.in(3).kind == BufferRef::Weight);
  if (constW) {
    auto centered = std::make_shared<const std::vector<int32_t>>(
        centerWeights(wp, wt, ws, wzp, wzn));
    ConvParams p;
    p.input = xs;
    p.weight = ws;
    p.output = ys;
    p.strides = win.strides;
    p.pads = win.pads;
    p.dilations = win.dilations;
    p.groups = win.groups;
    std::shared_ptr<IntegerConv> ic;
    try {
      ic = std::make_shared<IntegerConv>(p, xt == DType::I8, centered->data());
    } catch (const std::exception &) {
      // No oneDNN primitive for this shape: the portable kernel below.
    }
    if (ic) {
      kernel = "onednn:" + ic->implementation();
      return [=] {
        ic->run(xp, xzp ? quantizedValue(xzp, xt, 0) : 0, yp);
        return std::string();
      };
    }
    kernel = c.ownKernel(false);
    return [=] {
      convInteger(xp, xt, xs, centered->data(), ws, xzp, win, yp, ys);
      return std::string();
    };
  }
  kernel = c.ownKernel(false);
  return [=] {
    std::vector<int32_t> centered = centerWeights(wp, wt, ws, wzp, wzn);
    convInteger(xp, xt, xs, centered.data(), ws, xzp, win, yp, ys);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerQuantKernels(KernelRegistry &r) {
  r.add(OpKind::ConvInteger, {"opscope", {}, convIntegerOp});
  r.add(OpKind::QuantizeLinear, {"opscope", {}, quantizeLinearOp});
  r.add(OpKind::DequantizeLinear, {"opscope", {}, dequantizeLinearOp});
  r.add(OpKind::DynamicQuantizeLinear, {"opscope", {}, dynamicQuantizeLinearOp});
  r.add(OpKind::MatMulInteger, {"opscope", {}, matmulIntegerOp});
}
