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
#include <functional>
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

/// The integer sums of a conv_integer or matmul_integer into `sums`, from
/// quantized input data and its zero point (null: 0).
using Sums = std::function<void(const void *data, const void *zero,
                                int32_t *sums)>;

/// The integer op's result: the sums alone (i32), or with a weight scale
/// its dequantizing form (fuse-dynamic-quant): an f32 input quantized here
/// once (one range pass and one quantize pass, DynamicQuantizeLinear's)
/// into the thread's scratch,
/// the sums written into the f32 result's own buffer, then the epilogue
/// (dequantizeSums) over it in place. Operands after the zero points:
/// 4 input scale, 5 weight scale, 6 bias. The result is `outer x channels
/// x inner`, the weight scale and bias along `channels`.
BoundKernel integerResult(const OpContext &c, Sums sums, int64_t outer,
                          int64_t channels, int64_t inner) {
  const BufferRef &x = c.in(0), &y = c.out();
  const void *zp = c.has(2) ? c.ptr<const void>(c.in(2)) : nullptr;
  if (!c.has(5)) {
    const void *xp = c.ptr<const void>(x);
    int32_t *yp = c.ptr<int32_t>(y);
    return [=] {
      sums(xp, zp, yp);
      return std::string();
    };
  }
  c.requireF32(y, "output");
  bool own = x.dtype == DType::F32;
  if (own == (c.has(2) || c.has(4)))
    c.fail(own ? "an f32 input takes no zero point or scale"
               : "a quantized input needs its scale");
  auto perChannel = [&](int i, const char *what) {
    c.requireF32(c.in(i), what);
    int64_t n = c.in(i).elements();
    if (n != 1 && n != channels)
      c.fail(std::string(what) + " must have 1 or " +
             std::to_string(channels) + " elements");
    return n;
  };
  int64_t wsn = perChannel(5, "weight scale");
  int64_t bn = c.has(6) ? perChannel(6, "bias") : 0;
  const float *ws = c.ptr<const float>(c.in(5));
  const float *bias = c.has(6) ? c.ptr<const float>(c.in(6)) : nullptr;
  const float *xs = nullptr;
  if (!own) {
    c.requireF32(c.in(4), "input scale");
    if (c.in(4).elements() != 1)
      c.fail("the input scale must be one value");
    xs = c.ptr<const float>(c.in(4));
  }
  bool relu = false;
  for (PostOp p : c.postOps()) {
    if (p != PostOp::Relu || relu)
      c.fail("the only post-op here is one relu");
    relu = true;
  }
  const void *xp = c.ptr<const void>(x);
  int64_t n = x.elements();
  auto scales = std::make_shared<std::vector<float>>(wsn);
  float *yp = c.ptr<float>(y);
  return [=] {
    float s;
    uint8_t z;
    const void *data = xp, *zero = zp;
    if (own) {
      data = dynamicQuantizeToScratch(static_cast<const float *>(xp), n, &s,
                                      &z);
      zero = &z;
    } else {
      s = *xs;
    }
    // Mul(x_scale, w_scale), as the unfused graph computes it.
    for (int64_t i = 0; i < wsn; ++i)
      (*scales)[i] = s * ws[i];
    sums(data, zero, reinterpret_cast<int32_t *>(yp));
    dequantizeSums(yp, outer, channels, inner, scales->data(), wsn, bias, bn,
                   relu);
    return std::string();
  };
}

/// The data type the integer product reads: an f32 input is quantized to
/// u8 (DynamicQuantizeLinear's) first.
DType quantizedType(const BufferRef &x) {
  return x.dtype == DType::F32 ? DType::U8 : x.dtype;
}

BoundKernel matmulIntegerOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  auto is8 = [](DType t) { return t == DType::U8 || t == DType::I8; };
  DType at = quantizedType(a), bt = b.dtype;
  if (!is8(at) || !is8(bt) ||
      y.dtype != (c.has(5) ? DType::F32 : DType::I32))
    c.fail("operands must be u8/i8 (or an f32 lhs with an rhs scale) and "
           "the result i32 (f32 with an rhs scale)");
  if (a.shape.size() < 2 || b.shape.size() < 2 || y.shape.size() < 2)
    c.fail("operands must have rank >= 2");
  const void *bp = c.ptr<const void>(b);
  const void *bzp = c.has(3) ? c.ptr<const void>(c.in(3)) : nullptr;
  int64_t azn = c.has(2) ? c.in(2).elements() : a.dtype == DType::F32 ? 1 : 0;
  int64_t bzn = c.has(3) ? c.in(3).elements() : 0;
  Shape as = a.shape, bs = b.shape, ys = y.shape;
  // A constant b (quantize_dynamic's weights) whose batch dimensions are
  // all 1: a's batches are rows of one product, packed once on the exact
  // int8 GEMM (IntegerMatMul), its zero point per tensor (or per row
  // without batches).
  // (Zero-size products stay on the loop below, which writes nothing.)
  int64_t k = a.shape.back(), n = b.shape.back();
  int64_t rows = k > 0 ? a.elements() / k : 0;
  int64_t bBatch = k > 0 && n > 0 ? b.elements() / (k * n) : 0;
  int64_t outRows = n > 0 ? y.elements() / n : 0;
  bool constB = b.kind == BufferRef::Weight &&
                (!c.has(3) || c.in(3).kind == BufferRef::Weight);
  Sums sums;
  if (constB && rows > 0 && bBatch == 1 && b.shape[b.shape.size() - 2] == k &&
      y.elements() == rows * n && (azn <= 1 || azn == rows) &&
      (bzn <= 1 || bzn == n)) {
    auto mm = std::shared_ptr<IntegerMatMul>(dnnlCreate(c, [&] {
      return new IntegerMatMul(rows, k, n, at == DType::I8, bp,
                               bt == DType::I8, bzp, bzn);
    }));
    kernel = (mm->ownKernel() ? "opscope:" : "onednn:") +
             mm->implementation() + ":matmul_integer";
    sums = [=](const void *ap, const void *azp, int32_t *yp) {
      mm->run(ap, azp, azp ? azn : 0, yp);
    };
  } else {
    kernel = c.ownKernel(false);
    sums = [=](const void *ap, const void *azp, int32_t *yp) {
      matmulInteger(ap, at, as, bp, bt, bs, azp, azp ? azn : 0, bzp, bzn, yp,
                    ys);
    };
  }
  return integerResult(c, std::move(sums), outRows, n, 1);
}

BoundKernel convIntegerOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  auto is8 = [](DType t) { return t == DType::U8 || t == DType::I8; };
  DType xt = quantizedType(x), wt = w.dtype;
  if (!is8(xt) || !is8(wt) || y.dtype != (c.has(5) ? DType::F32 : DType::I32))
    c.fail("input and weight must be u8/i8 (or an f32 input with a weight "
           "scale) and the result i32 (f32 with a weight scale)");
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
  const void *wp = c.ptr<const void>(w);
  const void *wzp = c.has(3) ? c.ptr<const void>(c.in(3)) : nullptr;
  int64_t wzn = c.has(3) ? c.in(3).elements() : 0;
  Shape xs = x.shape, ws = w.shape, ys = y.shape;
  int64_t inner = 1;
  for (size_t d = 2; d < rank; ++d)
    inner *= ys[d];
  // A constant weight (and weight zero point) is centered once, here.
  // Below VNNI a 2-D convolution of one group runs on opscope's exact s16
  // GEMM in one pass, whatever the weight's width (IntegerConv, which
  // takes IntegerConvGemm there); else on oneDNN's int8 convolution.
  // There w - w_zero_point fits s8 for an i8 weight with zero point 0, or a
  // u8 one with zero point 128; a u8 weight with another zero point
  // (quantize_dynamic's QUInt8, asymmetric, as CNN exports have it) spans
  // up to 9 bits: it is split into parts within the tier's int8 weight
  // limit (int8WeightLimit: 127 with VNNI, 64 below), each a convolution,
  // their exact i32 results summed. The portable kernel takes what oneDNN
  // refuses.
  bool constW = w.kind == BufferRef::Weight &&
                (!c.has(3) || c.in(3).kind == BufferRef::Weight);
  Sums sums;
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
      kernel = ic->ownKernel()
                   ? "opscope:" + ic->implementation() + ":conv_integer"
                   : "onednn:" + ic->implementation();
      sums = [=](const void *xp, const void *xzp, int32_t *yp) {
        ic->run(xp, xzp ? quantizedValue(xzp, xt, 0) : 0, yp);
      };
    } else {
      kernel = c.ownKernel(false);
      sums = [=](const void *xp, const void *xzp, int32_t *yp) {
        convInteger(xp, xt, xs, centered->data(), ws, xzp, win, yp, ys);
      };
    }
  } else {
    kernel = c.ownKernel(false);
    sums = [=](const void *xp, const void *xzp, int32_t *yp) {
      std::vector<int32_t> centered = centerWeights(wp, wt, ws, wzp, wzn);
      convInteger(xp, xt, xs, centered.data(), ws, xzp, win, yp, ys);
    };
  }
  return integerResult(c, std::move(sums), ys[0], ys[1], inner);
}
} // namespace

void opscope::rt::registerQuantKernels(KernelRegistry &r) {
  r.add(OpKind::ConvInteger, {"opscope", {}, convIntegerOp});
  r.add(OpKind::QuantizeLinear, {"opscope", {}, quantizeLinearOp});
  r.add(OpKind::DequantizeLinear, {"opscope", {}, dequantizeLinearOp});
  r.add(OpKind::DynamicQuantizeLinear, {"opscope", {}, dynamicQuantizeLinearOp});
  r.add(OpKind::MatMulInteger, {"opscope", {}, matmulIntegerOp});
}
