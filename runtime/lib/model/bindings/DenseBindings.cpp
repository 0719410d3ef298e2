//===- DenseBindings.cpp - oneDNN inner product, matmul, conv, pooling ----===//
//
// Part of opscope's runtime. The dense compute kinds, on oneDNN
// primitives created once per session with their weights packed.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/dense.h"

#include <memory>
#include <optional>
#include <string>
#include <tuple>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// A dense kernel object's name in the plan and profile: "opscope:" or
/// "onednn:" by whose kernel it runs, then its implementation.
template <typename K> std::string kernelName(const K &k) {
  return (k.ownKernel() ? "opscope:" : "onednn:") + k.implementation();
}

/// Binds an inner-product kernel object to the op's input, output and
/// optional sum operand; `run(k, x, y, sum)` calls it.
template <typename K, typename Run>
BoundKernel bindInnerProduct(const OpContext &c, std::shared_ptr<K> ip,
                             Run run) {
  const float *xp = c.ptr<const float>(c.in(0));
  float *yp = c.ptr<float>(c.out());
  const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  return [=] {
    run(*ip, xp, yp, sum);
    return std::string();
  };
}

BoundKernel innerProduct(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  if (w.kind != BufferRef::Weight)
    c.fail("inner_product needs a constant weight");
  auto [u8In, u8Out] =
      w.dtype == DType::BF16 ? std::pair{false, false} : c.u8Activations(w);
  int64_t n = w.shape[0], k = w.shape[1], m = x.elements() / k;
  const float *bias = c.has(2) ? c.constF32(c.in(2)) : nullptr;
  if (c.has(2) && !bias)
    c.fail("inner_product needs a constant bias");
  auto plain = [](auto &ip, const float *xp, float *yp, const float *sum) {
    ip.run(xp, yp, sum);
  };
  if (w.dtype == DType::BF16) {
    // --precision bf16: an f32 input is rounded to bf16 on entry, a bf16
    // one (osc-bf16-chains) read as it is; f32 out, or bf16 inside a chain
    // (without native bf16: f32 kernels on the bf16 weights, an f32 input
    // read as it is).
    Bf16Activations io{c.bf16OrF32(x, "input"), c.bf16OrF32(y, "output")};
    if (io.output && c.has(3))
      c.fail("a bf16 output takes no sum input");
    auto ip = std::shared_ptr<Bf16InnerProduct>(dnnlCreate(c, [&] {
      return new Bf16InnerProduct(m, k, n, c.ptr<const uint16_t>(w), bias,
                                  c.postOps(), io);
    }));
    kernel = kernelName(*ip) + ":bf16";
    const void *xp = c.ptr<const void>(x);
    void *yp = c.ptr<void>(y);
    const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
    return [=] {
      ip->runRaw(xp, yp, sum);
      return std::string();
    };
  }
  if (w.dtype == DType::I8) {
    // --precision int8: s8 weights with row scales; the f32 input is
    // quantized to u8 on entry with the calibrated scale and zero point.
    std::vector<float> rowScales = c.floats("weight_scales");
    if (static_cast<int64_t>(rowScales.size()) != n)
      c.fail("an i8 weight needs weight_scales with one scale per row (" +
             std::to_string(n) + ")");
    auto [xScale, xZero] = c.inputQuantization();
    std::optional<std::pair<float, int32_t>> outQ;
    if (u8Out)
      outQ = c.outputQuantization();
    auto ip = std::shared_ptr<QuantizedInnerProduct>(dnnlCreate(c, [&] {
      return new QuantizedInnerProduct(m, k, n, c.ptr<const int8_t>(w),
                                       rowScales.data(), bias, c.postOps(),
                                       outQ);
    }));
    kernel = kernelName(*ip) + ":int8";
    if (u8In || u8Out) {
      const void *xp = c.ptr<const void>(x);
      void *yp = c.ptr<void>(y);
      const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
      return [=, xScale = xScale, xZero = xZero]() {
        auto *xq = static_cast<const uint8_t *>(xp);
        if (u8Out && u8In)
          ip->runU8Out(xq, xScale, xZero, static_cast<uint8_t *>(yp));
        else if (u8Out)
          ip->runU8Out(ip->quantized(static_cast<const float *>(xp), xScale,
                                     xZero),
                       xScale, xZero, static_cast<uint8_t *>(yp));
        else
          ip->run(xq, xScale, xZero, static_cast<float *>(yp), sum);
        return std::string();
      };
    }
    return bindInnerProduct(
        c, ip,
        [xScale = xScale, xZero = xZero](QuantizedInnerProduct &q,
                                         const float *xp, float *yp,
                                         const float *sum) {
          q.run(xp, xScale, xZero, yp, sum);
        });
  }
  c.requireF32(w, "weight");
  // oneDNN's matmul primitive where opscope-tune measured it faster on this
  // shape (dense_kernel in the plan) or where the tier prefers it
  // (innerProductOnMatMul(), docs/tuning.md), else its inner product.
  const json *dk = c.attr("dense_kernel");
  if ((dk && dk->get<std::string>() == "matmul") || innerProductOnMatMul()) {
    auto mm = std::shared_ptr<MatMulInnerProduct>(dnnlCreate(c, [&] {
      return new MatMulInnerProduct(m, k, n, c.constF32(w), bias, c.postOps());
    }));
    // A database measured on another tier can name the matmul where this
    // tier has only oneDNN's reference loop for it (below AVX-512): the
    // inner product primitive then.
    if (!isRefImplementation(mm->implementation())) {
      kernel = "onednn:" + mm->implementation() + ":matmul";
      return bindInnerProduct(c, mm, plain);
    }
  }
  auto ip = std::shared_ptr<InnerProduct>(dnnlCreate(c, [&] {
    return new InnerProduct(m, k, n, c.constF32(w), bias, c.postOps());
  }));
  kernel = kernelName(*ip);
  return bindInnerProduct(c, ip, plain);
}

BoundKernel matmul(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  bool bf16 = c.flag("compute_bf16"), int8 = c.flag("compute_int8");
  // bf16 operands and output: a bf16 chain's hand-overs (osc-bf16-chains).
  MatMul::Bf16Io io{c.bf16OrF32(a, "lhs"), c.bf16OrF32(b, "rhs"),
                    c.bf16OrF32(y, "output")};
  if ((io.a || io.b || io.c) && !bf16)
    c.fail("bf16 operands need compute_bf16");
  if (io.b && b.kind == BufferRef::Weight)
    c.fail("a constant rhs is f32");
  auto mm = std::shared_ptr<MatMul>(dnnlCreate(c, [&] {
    return new MatMul(a.shape, b.shape, y.shape, c.flag("transpose_a"),
                      c.flag("transpose_b"),
                      static_cast<float>(c.floatAttr("scale", 1.0)),
                      c.constF32(b), bf16, int8, io);
  }));
  kernel = "onednn:" + mm->implementation() + (bf16   ? ":bf16"
                                               : int8 ? ":int8"
                                                      : "");
  const void *ap = c.ptr<const void>(a), *bp = c.ptr<const void>(b);
  void *yp = c.ptr<void>(y);
  return [=] {
    mm->runRaw(ap, bp, yp);
    return std::string();
  };
}

BoundKernel conv(const OpContext &c, std::string &kernel, bool transposed) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  ConvParams p;
  bool u8In = false, u8Out = false;
  if (w.dtype == DType::BF16) {
    // bf16 chains (osc-bf16-chains): bf16 input and output buffers.
    p.bf16 = {c.bf16OrF32(x, "input"), c.bf16OrF32(y, "output")};
    if (p.bf16.output && c.has(3))
      c.fail("a bf16 output takes no sum input");
  } else {
    std::tie(u8In, u8Out) = c.u8Activations(w);
  }
  p.input = x.shape;
  p.weight = w.shape;
  p.output = y.shape;
  p.strides = c.ints("strides");
  p.pads = c.ints("pads");
  p.dilations = c.ints("dilations");
  p.groups = c.intAttr("groups", 1);
  p.transposed = transposed;
  p.postOps = c.postOps();
  // osc-conv-layout's NHWC chains (transposed convolutions too).
  p.inputNhwc = c.flag("input_nhwc");
  p.outputNhwc = c.flag("output_nhwc");
  bool hasBias = c.has(2);
  const float *bias = hasBias ? c.constF32(c.in(2)) : nullptr;
  std::string precision;
  std::shared_ptr<Conv> cv;
  if (w.dtype == DType::BF16 || w.dtype == DType::I8) {
    // --precision bf16 / int8: constant weights converted at compile time.
    if (w.kind != BufferRef::Weight || (hasBias && !bias))
      c.fail("a bf16 or int8 convolution needs a constant weight and bias");
    if (w.dtype == DType::I8) {
      p.weightScales = c.floats("weight_scales");
      if (static_cast<int64_t>(p.weightScales.size()) != y.shape[1])
        c.fail("an i8 weight needs weight_scales with one scale per output "
               "channel (" + std::to_string(y.shape[1]) + ")");
      std::tie(p.inputScale, p.inputZero) = c.inputQuantization();
      p.inputU8 = u8In;
      p.outputU8 = u8Out;
      if (u8Out)
        std::tie(p.outputScale, p.outputZero) = c.outputQuantization();
      precision = ":int8";
      cv.reset(dnnlCreate(c, [&] {
        return new Conv(p, c.ptr<const int8_t>(w), bias, hasBias);
      }));
    } else {
      precision = ":bf16";
      cv.reset(dnnlCreate(c, [&] {
        return new Conv(p, c.ptr<const uint16_t>(w), bias, hasBias);
      }));
    }
  } else {
    c.requireF32(w, "weight");
    cv.reset(dnnlCreate(
        c, [&] { return new Conv(p, c.constF32(w), bias, hasBias); }));
  }
  kernel = kernelName(*cv) + precision;
  const void *xp = c.ptr<const void>(x);
  const float *wp = c.ptr<const float>(w);
  const float *bp = hasBias ? c.ptr<const float>(c.in(2)) : nullptr;
  const float *sum =
      !transposed && c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  void *yp = c.ptr<void>(y);
  return [=] {
    cv->run(xp, wp, bp, yp, sum);
    return std::string();
  };
}

BoundKernel pool(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  PoolParams p;
  p.input = x.shape;
  p.output = y.shape;
  p.kernel = c.ints("kernel");
  p.strides = c.ints("strides");
  p.pads = c.ints("pads");
  p.dilations = c.ints("dilations");
  p.isMax = c.enumAttr<PoolKind>("kind") == PoolKind::Max;
  p.countIncludePad = c.flag("count_include_pad");
  p.nhwc = c.flag("nhwc");
  if (p.nhwc && p.input.size() != 4)
    c.fail("a channels-last (nhwc) pooling must be a 2-D pooling");
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(y);
  if (p.nhwc && p.isMax && cpuTier() < IsaLevel::Avx512Core) {
    // Channels-last max pooling is a lane-wise maximum of whole pixels (the
    // kernel table's maxPixelNhwc). Below AVX-512 it beats oneDNN's: on the
    // corpus CNN's 8x32x32x32 (3x3, stride 2) 0.039 ms against jit:avx2's
    // 0.23 under the avx2 cap; with AVX-512 oneDNN's (0.035-0.038) is as
    // fast. Sapphire Rapids, one thread (docs/runtime-kernels.md): the
    // kernel runs on one thread, so with --threads above 1 oneDNN's, which
    // uses them all, may win where it did not here.
    kernel = std::string("opscope:pool.max_nhwc:") + kernelTierName();
    return [=] {
      maxPool2DNhwc(xp, p.input, p.output, p.kernel, p.strides, p.pads,
                    p.dilations, yp);
      return std::string();
    };
  }
  auto pl = std::shared_ptr<Pool>(dnnlCreate(c, [&] { return new Pool(p); }));
  kernel = "onednn:" + pl->implementation();
  if (p.isMax && !p.nhwc && p.input.size() == 4 &&
      pl->implementation().rfind("simple", 0) == 0) {
    // oneDNN's scalar kernel (plain layouts at large images): rows of
    // element-wise maxima instead (maxPool2DNchw), 10x faster on IS-Net's
    // 1x64x512x512 2x2 pool.
    kernel = "opscope:pool.max_nchw:rows";
    return [=] {
      maxPool2DNchw(xp, p.input, p.output, p.kernel, p.strides, p.pads,
                    p.dilations, yp);
      return std::string();
    };
  }
  return [=] {
    pl->run(xp, yp);
    return std::string();
  };
}
/// MaxPool with ONNX's Indices output, or over i8/u8: opscope's own scan.
BoundKernel indexedMaxPoolOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  if (x.dtype != DType::F32 && x.dtype != DType::F64 && x.dtype != DType::I8 &&
      x.dtype != DType::U8)
    c.fail(std::string("no max pooling kernel for ") + kindName(x.dtype));
  Shape input = x.shape, output = y.shape;
  Shape kernelShape = c.ints("kernel"), strides = c.ints("strides"),
        pads = c.ints("pads"), dilations = c.ints("dilations");
  size_t k = input.size() - 2;
  if (input.size() < 3 || input.size() > 5 || output.size() != input.size() ||
      kernelShape.size() != k || strides.size() != k ||
      dilations.size() != k || pads.size() != 2 * k)
    c.fail("window attributes do not match the input's spatial dimensions");
  bool columnMajor = c.intAttr("storage_order") == 1;
  bool withIndices = c.op.results.size() > 1;
  if (withIndices &&
      (c.out(1).dtype != DType::I64 || c.out(1).shape != output))
    c.fail("indices must be i64 of the output's shape");
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  int64_t *ip = withIndices ? c.ptr<int64_t>(c.out(1)) : nullptr;
  DType t = x.dtype;
  kernel = c.ownKernel(false);
  return [=] {
    indexedMaxPool(t, xp, input, output, kernelShape, strides, pads,
                   dilations, columnMajor, yp, ip);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerDenseKernels(KernelRegistry &r) {
  r.add(OpKind::InnerProduct, {"onednn", {}, innerProduct});
  r.add(OpKind::MatMul, {"onednn", {}, matmul});
  r.add(OpKind::Conv, {"onednn", {}, [](const OpContext &c, std::string &k) {
                         return conv(c, k, /*transposed=*/false);
                       }});
  r.add(OpKind::ConvTranspose,
        {"onednn", {}, [](const OpContext &c, std::string &k) {
           return conv(c, k, /*transposed=*/true);
         }});
  r.add(OpKind::Pool, {"onednn", {}, pool});
  r.add(OpKind::IndexedMaxPool, {"opscope", {}, indexedMaxPoolOp});
}
