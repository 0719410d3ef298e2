//===- Dense.cpp - oneDNN inner products ----------------------------------===//
//
// Part of opscope's runtime. oneDNN's C++ API throws; this file (inner
// products: f32, bf16, int8 and the matmul-backed form), DenseMatMul.cpp
// (batched matmuls), DenseConv.cpp (convolutions and pooling) and
// DnnlCommon.cpp (what they share, DnnlCommon.h) are built with exceptions
// and are the only places that talk to oneDNN.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"
#include "KernelTable.h"
#include "PackedGemm.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse_format.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

namespace {
/// One oneDNN inner product with f32 output: y[M x N] = post_ops(x[M x K] *
/// W^T + b), the weights (N x K, given plain in `plainType`) reordered once
/// into the layout the implementation wants, the bias copied, and the
/// execution arguments bound once; run() only swaps the src and dst
/// pointers. The f32, bf16 and int8 classes differ in their element types
/// and (int8) run-time output scales.
struct IpPrimitive {
  int64_t m = 0, k = 0, n = 0;
  bool hasSum = false;
  dnnl::inner_product_forward::primitive_desc pd;
  dnnl::inner_product_forward prim;
  dnnl::memory src, weights, bias, dst;
  std::unordered_map<int, dnnl::memory> args;

  /// `u8Out`: the output is written in u8, y / u8Out->first + second
  /// after the bias and post-ops (an int8 chain's hand-over).
  void build(int64_t m_, int64_t k_, int64_t n_, dt srcType, dt weightType,
             const void *plainWeights, dt plainType, const float *biasData,
             const std::vector<PostOp> &postOps, bool runtimeOutputScales,
             U8Output u8Out = {}, bool bf16Dst = false, bool s32Dst = false) {
    Context &ctx = context();
    m = m_;
    k = k_;
    n = n_;
    dnnl::memory::desc srcMd({m, k}, srcType, tag::ab);
    dnnl::memory::desc anyWeights({n, k}, weightType, tag::any);
    dnnl::memory::desc biasMd({n}, dt::f32, tag::a);
    dnnl::memory::desc dstMd({m, n},
                             u8Out     ? dt::u8
                             : bf16Dst ? dt::bf16
                             : s32Dst  ? dt::s32
                                       : dt::f32,
                             tag::ab);
    dnnl::primitive_attr attr = attrWithPostOps(postOps, hasSum, u8Out);
    if (runtimeOutputScales) // per output channel, given at run time
      attr.set_output_scales(2, {DNNL_RUNTIME_F32_VAL});
    auto desc = biasData
                    ? dnnl::inner_product_forward::desc(
                          dnnl::prop_kind::forward_inference, srcMd,
                          anyWeights, biasMd, dstMd)
                    : dnnl::inner_product_forward::desc(
                          dnnl::prop_kind::forward_inference, srcMd,
                          anyWeights, dstMd);
    pd = dnnl::inner_product_forward::primitive_desc(desc, attr, ctx.engine);
    prim = dnnl::inner_product_forward(pd);
    weights = packed({{n, k}, plainType, tag::ab}, pd.weights_desc(),
                     plainWeights);
    if (biasData) {
      bias = dnnl::memory(biasMd, ctx.engine);
      std::memcpy(bias.get_data_handle(), biasData, n * sizeof(float));
    }
    ctx.stream.wait();
    // Activation memories are views; run() only swaps their pointers.
    src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
    dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights},
            {DNNL_ARG_DST, dst}};
    if (biasData)
      args[DNNL_ARG_BIAS] = bias;
  }

  void run(const void *x, void *y, const float *sum) {
    Context &ctx = context();
    if (hasSum && sum != y)
      std::memcpy(y, sum, m * n * sizeof(float));
    src.set_data_handle(const_cast<void *>(x));
    dst.set_data_handle(y);
    prim.execute(ctx.stream, args);
    ctx.stream.wait();
  }
};
} // namespace

/// On opscope's packed GEMM where it applies (the AVX2 tier, 2 <= M <= 384) and
/// the caller left the choice to it, else oneDNN's primitive.
struct InnerProduct::Impl {
  std::unique_ptr<PackedGemm> own;
  IpPrimitive dnnl;
};

InnerProduct::InnerProduct(int64_t m, int64_t k, int64_t n,
                           const float *weightData, const float *biasData,
                           std::vector<PostOp> postOps, InnerProductGemm gemm)
    : impl(std::make_unique<Impl>()) {
  if (gemm == InnerProductGemm::Auto && innerProductOnOwnGemm(m)) {
    impl->own = std::make_unique<PackedGemm>(m, k, n, weightData, biasData,
                                             std::move(postOps));
    return;
  }
  impl->dnnl.build(m, k, n, dt::f32, dt::f32, weightData, dt::f32, biasData,
                   postOps, false);
}

InnerProduct::~InnerProduct() = default;

void InnerProduct::run(const float *x, float *y, const float *sum) {
  if (impl->own)
    impl->own->run(x, y, sum);
  else
    impl->dnnl.run(x, y, sum);
}

std::string InnerProduct::implementation() const {
  return impl->own ? impl->own->name() : impl->dnnl.pd.impl_info_str();
}

bool InnerProduct::ownKernel() const { return impl->own != nullptr; }

bool opscope::rt::innerProductOnOwnGemm(int64_t m) {
  return PackedGemm::applies(m);
}

bool opscope::rt::int8InnerProductOnOwnGemm(int64_t m, int64_t k) {
  return PackedGemmInt8::applies(m, k);
}

/// Without native bf16 (nativeBf16()), the primitive is f32 on bf16
/// weights: rounded and widened once, an f32 input read as it is (rounding
/// it every run cost 3.6% of the DistilBERT-shaped model's time, more than
/// bf16 can save on f32 kernels) and a bf16 input widened; a bf16 output is
/// written in f32 and rounded after.
/// The conversions go through threadScratch: slot 0 the input (rounded to
/// bf16, or a bf16 one widened without native bf16), slot 2 an f32 output
/// to round.
struct Bf16InnerProduct::Impl : IpPrimitive {
  Bf16Activations io;
  /// Without native bf16: the f32 inner product on the rounded weights
  /// (the primitive above unused but for m, k and n).
  std::unique_ptr<InnerProduct> f32;
  void product(const void *x, void *y, const float *sum) {
    if (f32)
      f32->run(static_cast<const float *>(x), static_cast<float *>(y), sum);
    else
      run(x, y, sum);
  }
};

void Bf16InnerProduct::build(int64_t m, int64_t k, int64_t n,
                             const void *weights, bool weightsBf16,
                             const float *bias, std::vector<PostOp> postOps,
                             Bf16Activations io) {
  impl = std::make_unique<Impl>();
  impl->io = io;
  if (io.output && std::find(postOps.begin(), postOps.end(), PostOp::Sum) !=
                       postOps.end())
    throw std::invalid_argument(
        "a bf16 inner product with a bf16 output takes no sum post-op");
  if (!nativeBf16()) {
    std::vector<float> w(n * k);
    if (weightsBf16)
      bf16ToF32(static_cast<const uint16_t *>(weights), w.data(), n * k);
    else
      roundToBf16AsF32(static_cast<const float *>(weights), w.data(), n * k);
    impl->m = m;
    impl->k = k;
    impl->n = n;
    impl->f32 = std::make_unique<InnerProduct>(m, k, n, w.data(), bias,
                                               std::move(postOps));
    return;
  }
  // f32 -> bf16 and into the primitive's layout in one reorder.
  impl->build(m, k, n, dt::bf16, dt::bf16, weights,
              weightsBf16 ? dt::bf16 : dt::f32, bias, postOps, false, {},
              io.output);
}

Bf16InnerProduct::Bf16InnerProduct(int64_t m, int64_t k, int64_t n,
                                   const float *weightData,
                                   const float *biasData,
                                   std::vector<PostOp> postOps,
                                   Bf16Activations io) {
  build(m, k, n, weightData, false, biasData, std::move(postOps), io);
}

Bf16InnerProduct::Bf16InnerProduct(int64_t m, int64_t k, int64_t n,
                                   const uint16_t *weightData,
                                   const float *biasData,
                                   std::vector<PostOp> postOps,
                                   Bf16Activations io) {
  build(m, k, n, weightData, true, biasData, std::move(postOps), io);
}

Bf16InnerProduct::~Bf16InnerProduct() = default;

void Bf16InnerProduct::runRaw(const void *x, void *y, const float *sum) {
  Impl &I = *impl;
  int64_t in = I.m * I.k;
  const void *src = x;
  if (I.f32 && I.io.input) {
    auto *x32 = static_cast<float *>(threadScratch(0, in * sizeof(float)));
    bf16ToF32(static_cast<const uint16_t *>(x), x32, in);
    src = x32;
  } else if (!I.f32 && !I.io.input) {
    auto *x16 = static_cast<uint16_t *>(threadScratch(0, in * 2));
    roundToBf16(static_cast<const float *>(x), x16, in);
    src = x16;
  }
  if (I.io.output && I.f32) {
    auto *y32 =
        static_cast<float *>(threadScratch(2, I.m * I.n * sizeof(float)));
    I.product(src, y32, nullptr);
    roundToBf16(y32, static_cast<uint16_t *>(y), I.m * I.n);
    return;
  }
  I.product(src, y, sum);
}

void Bf16InnerProduct::run(const float *x, float *y, const float *sum) {
  if (impl->io.input || impl->io.output)
    throw std::logic_error("this bf16 inner product has bf16 activations: "
                           "use runRaw");
  runRaw(x, y, sum);
}

std::string Bf16InnerProduct::implementation() const {
  return impl->f32 ? impl->f32->implementation() + ":f32"
                   : std::string(impl->pd.impl_info_str());
}

bool Bf16InnerProduct::ownKernel() const {
  return impl->f32 && impl->f32->ownKernel();
}

struct MatMulInnerProduct::Impl {
  int64_t m = 0, n = 0;
  bool hasSum = false;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory src, weights, bias, dst;
  std::unordered_map<int, dnnl::memory> args;
};

MatMulInnerProduct::MatMulInnerProduct(int64_t m, int64_t k, int64_t n,
                                       const float *weightData,
                                       const float *biasData,
                                       std::vector<PostOp> postOps)
    : impl(std::make_unique<Impl>()) {
  Context &ctx = context();
  Impl &I = *impl;
  I.m = m;
  I.n = n;
  dnnl::memory::desc srcMd({m, k}, dt::f32, tag::ab);
  // The N x K weight is the K x N operand with strides (1, K).
  dnnl::memory::desc plainW({k, n}, dt::f32, dnnl::memory::dims{1, k});
  dnnl::memory::desc anyW({k, n}, dt::f32, tag::any);
  dnnl::memory::desc biasMd({1, n}, dt::f32, tag::ab);
  dnnl::memory::desc dstMd({m, n}, dt::f32, tag::ab);
  dnnl::primitive_attr attr = attrWithPostOps(postOps, I.hasSum);
  auto desc = biasData ? dnnl::matmul::desc(srcMd, anyW, biasMd, dstMd)
                       : dnnl::matmul::desc(srcMd, anyW, dstMd);
  I.pd = dnnl::matmul::primitive_desc(desc, attr, ctx.engine);
  I.prim = dnnl::matmul(I.pd);
  I.weights = packed(plainW, I.pd.weights_desc(), weightData);
  I.src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
  I.dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
  I.args = {{DNNL_ARG_SRC, I.src},
            {DNNL_ARG_WEIGHTS, I.weights},
            {DNNL_ARG_DST, I.dst}};
  if (biasData) {
    I.bias = dnnl::memory(biasMd, ctx.engine);
    std::memcpy(I.bias.get_data_handle(), biasData, n * sizeof(float));
    I.args[DNNL_ARG_BIAS] = I.bias;
  }
}

MatMulInnerProduct::~MatMulInnerProduct() = default;

void MatMulInnerProduct::run(const float *x, float *y, const float *sum) {
  Context &ctx = context();
  Impl &I = *impl;
  if (I.hasSum && sum != y)
    std::memcpy(y, sum, I.m * I.n * sizeof(float));
  I.src.set_data_handle(const_cast<float *>(x));
  I.dst.set_data_handle(y);
  I.prim.execute(ctx.stream, I.args);
  ctx.stream.wait();
}

std::string MatMulInnerProduct::implementation() const {
  return impl->pd.impl_info_str();
}

bool opscope::rt::innerProductOnMatMul() {
  return kernelTable().innerProductOnMatMul;
}

struct QuantizedInnerProduct::Impl : IpPrimitive {
  // outScale and the bias match the last (xScale, xZero).
  float lastXScale = std::nanf("");
  int32_t lastXZero = 0;
  std::vector<float> wScale, outScale, biasF32;
  std::vector<int32_t> rowSum; ///< sum_k Wq[n, k], for the zero point
  std::vector<uint8_t> xU8;    ///< the quantized input of run(const float *)
  bool u8Out = false;          ///< the output is u8 (runU8Out)
  bool weights7 = false;       ///< 7-bit weights (int8WeightLimit)
  /// Weights beyond the tier's saturation-free range (an imported model's
  /// 8-bit weights without VNNI), split in two 7-bit halves
  /// w = hi + lo (hi = w / 2 rounded toward zero, lo = w - hi, both in
  /// [-64, 64]) laid side by side along K, N x 2K, and each input row
  /// given twice, M x 2K: the one int8 primitive sums x.hi + x.lo = x.w
  /// with no pair of products beyond 2 x 255 x 64 = 32640, the model's
  /// integers exactly, at twice the products of the 7-bit form.
  bool split = false;
  /// Or, where the table has it (2 to 384 rows), the exact int8 GEMM: its
  /// s16 form for such weights instead of the halves (the AVX2 tier,
  /// AVX-512 below VNNI), its vpdpbusd form for every int8 weight
  /// (avx2_vnni): no oneDNN primitive then.
  std::unique_ptr<PackedGemmInt8> gemm;
  /// The bias in the accumulator's units with the zero point's
  /// compensation (runAny); oneDNN's bias memory points at it.
  std::vector<float> biasAdjusted;
  int64_t kIn = 0;                ///< K of the input (half the primitive's)
  std::vector<uint8_t> xTwice;    ///< the input, each row twice (split)
  dnnl::memory scales;

  /// The split form's weights: [hi | lo] per row.
  static std::vector<int8_t> splitWeights(const int8_t *wq, int64_t n_,
                                          int64_t k_) {
    std::vector<int8_t> w2(n_ * 2 * k_);
    for (int64_t r = 0; r < n_; ++r)
      for (int64_t c = 0; c < k_; ++c) {
        int v = wq[r * k_ + c], hi = v / 2;
        w2[r * 2 * k_ + c] = static_cast<int8_t>(hi);
        w2[r * 2 * k_ + k_ + c] = static_cast<int8_t>(v - hi);
      }
    return w2;
  }

  /// The split form's input: each row of x (M x kIn) twice.
  const uint8_t *twice(const uint8_t *x) {
    xTwice.resize(m * k);
    for (int64_t r = 0; r < m; ++r) {
      std::memcpy(&xTwice[r * k], x + r * kIn, kIn);
      std::memcpy(&xTwice[r * k + kIn], x + r * kIn, kIn);
    }
    return xTwice.data();
  }

  /// The row sums and the f32 bias (zeros without one: the zero point's
  /// compensation goes into it), for either form.
  void sums(int64_t k_, int64_t n_, const int8_t *wq, const float *biasData) {
    rowSum.assign(n_, 0);
    for (int64_t r = 0; r < n_; ++r)
      for (int64_t c = 0; c < k_; ++c)
        rowSum[r] += wq[r * k_ + c];
    biasF32.assign(n_, 0.0f);
    if (biasData)
      biasF32.assign(biasData, biasData + n_);
    biasAdjusted = biasF32;
    outScale.resize(n_);
  }

  void init(int64_t m_, int64_t k_, int64_t n_, const int8_t *wq,
            const float *biasData, const std::vector<PostOp> &postOps,
            U8Output u8Out = {}) {
    sums(k_, n_, wq, biasData);
    build(m_, k_, n_, dt::u8, dt::s8, wq, dt::s8, biasF32.data(), postOps,
          /*runtimeOutputScales=*/true, u8Out);
    bias.set_data_handle(biasAdjusted.data());
    scales = dnnl::memory({{n_}, dt::f32, tag::a}, context().engine,
                          outScale.data());
    args[DNNL_ARG_ATTR_OUTPUT_SCALES] = scales;
  }
};

QuantizedInnerProduct::QuantizedInnerProduct(int64_t m, int64_t k, int64_t n,
                                             const float *weightData,
                                             const float *biasData,
                                             std::vector<PostOp> postOps)
    : impl(std::make_unique<Impl>()) {
  Impl &I = *impl;
  // Per-row symmetric quantization of the weights, as the packed sparse
  // s8 weights have it: to [-127, 127], or [-64, 64] where the tier's
  // int8 kernels would saturate (docs/precision.md, int8 without VNNI).
  const int limit = int8WeightLimit();
  I.weights7 = limit < 127;
  std::vector<int8_t> wq(n * k);
  I.wScale.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    I.wScale[r] = sparse::symmetricScale(weightData + r * k, k) * 127.0f / limit;
    for (int64_t c = 0; c < k; ++c)
      wq[r * k + c] = sparse::quantizeS8(weightData[r * k + c], I.wScale[r]);
  }
  I.kIn = k;
  I.init(m, k, n, wq.data(), biasData, postOps);
}

QuantizedInnerProduct::QuantizedInnerProduct(
    int64_t m, int64_t k, int64_t n, const int8_t *s8Weights,
    const float *rowScales, const float *biasData, std::vector<PostOp> postOps,
    std::optional<std::pair<float, int32_t>> u8Output)
    : impl(std::make_unique<Impl>()) {
  impl->u8Out = u8Output.has_value();
  impl->wScale.assign(rowScales, rowScales + n);
  // Weights beyond the tier's saturation-free range (8-bit weights without
  // VNNI) run on the exact s16 GEMM where the table has it, else split in
  // two 7-bit halves (Impl::split); 7-bit ones (opscope-compile --precision
  // int8 for such a tier) as they are. On avx2_vnni every int8 weight runs
  // on the table's vpdpbusd GEMM where it applies (faster than oneDNN's
  // there, docs/runtime-kernels.md).
  impl->kIn = k;
  Impl &I = *impl;
  const bool saturate = int8WeightsSaturate(s8Weights, n * k);
  if ((saturate || kernelTable().gemmInt8Quads) &&
      int8InnerProductOnOwnGemm(m, k)) {
    I.m = m;
    I.n = n;
    I.sums(k, n, s8Weights, biasData);
    I.gemm = std::make_unique<PackedGemmInt8>(m, k, n, s8Weights,
                                              std::move(postOps), u8Output);
    return;
  }
  if (saturate) {
    I.split = true;
    I.init(m, 2 * k, n, Impl::splitWeights(s8Weights, n, k).data(), biasData,
           postOps, u8Output);
    return;
  }
  I.weights7 = int8WeightLimit() < 127;
  I.init(m, k, n, s8Weights, biasData, postOps, u8Output);
}

QuantizedInnerProduct::~QuantizedInnerProduct() = default;

void QuantizedInnerProduct::run(const uint8_t *x, float xScale, int32_t xZero,
                                float *y, const float *sum) {
  if (impl->u8Out)
    throw std::logic_error("this inner product writes u8: runU8Out");
  runAny(x, xScale, xZero, y, sum);
}

void QuantizedInnerProduct::runU8Out(const uint8_t *x, float xScale,
                                     int32_t xZero, uint8_t *y) {
  if (!impl->u8Out)
    throw std::logic_error("this inner product writes f32: run");
  runAny(x, xScale, xZero, y, nullptr);
}

void QuantizedInnerProduct::runAny(const uint8_t *x, float xScale,
                                   int32_t xZero, void *y, const float *sum) {
  Impl &I = *impl;
  if (xScale != I.lastXScale || xZero != I.lastXZero) {
    // oneDNN adds the bias before the output scales (and the s16 GEMM
    // does as it does): divide it, and take the zero point's xZero *
    // rowSum out of the accumulator there.
    for (int64_t r = 0; r < I.n; ++r) {
      I.outScale[r] = xScale * I.wScale[r];
      I.biasAdjusted[r] =
          I.biasF32[r] / I.outScale[r] -
          static_cast<float>(xZero) * static_cast<float>(I.rowSum[r]);
    }
    I.lastXScale = xScale;
    I.lastXZero = xZero;
  }
  if (I.gemm)
    return I.gemm->run(x, I.outScale.data(), I.biasAdjusted.data(), y, sum);
  I.run(I.split ? I.twice(x) : x, y, sum);
}

void QuantizedInnerProduct::run(const float *x, float xScale, int32_t xZero,
                                float *y, const float *sum) {
  if (impl->u8Out)
    throw std::logic_error("this inner product writes u8: runU8Out");
  runAny(quantized(x, xScale, xZero), xScale, xZero, y, sum);
}

const uint8_t *QuantizedInnerProduct::quantized(const float *x, float xScale,
                                                int32_t xZero) {
  Impl &I = *impl;
  I.xU8.resize(I.m * I.kIn);
  quantizeU8(x, I.xU8.data(), I.m * I.kIn, xScale, xZero);
  return I.xU8.data();
}

std::string QuantizedInnerProduct::implementation() const {
  if (impl->gemm)
    return impl->gemm->name();
  return std::string(impl->pd.impl_info_str()) +
         (impl->split ? ":s8w7x2" : impl->weights7 ? ":s8w7" : "");
}

bool QuantizedInnerProduct::ownKernel() const { return impl->gemm != nullptr; }

const std::vector<float> &QuantizedInnerProduct::weightScales() const {
  return impl->wScale;
}

//===----------------------------------------------------------------------===//
// IntegerMatMul: ONNX MatMulInteger on a constant b
//===----------------------------------------------------------------------===//

struct IntegerMatMul::Impl {
  int64_t m = 0, k = 0, n = 0;
  bool aSigned = false;
  /// b's zero points after the shift to s8 (N), and whether any is
  /// nonzero (else rowsum(a) is never needed); b's column sums (N).
  std::vector<int32_t> bZero, colSum;
  bool anyBZero = false;
  /// The exact GEMM: blocks of `blockRows` rows on gemm, a shorter last
  /// one on tail.
  std::unique_ptr<PackedGemmInt8> gemm, tail;
  int64_t blockRows = 0;
  /// Or oneDNN's int8 inner product (s32 output), on the weights split in
  /// two 7-bit halves where they would saturate it (each input row twice).
  IpPrimitive dnnl;
  bool split = false;
  /// Per run: a shifted to u8 (an s8 a), a split a, the row terms.
  std::vector<uint8_t> aU8, aTwice;
  std::vector<int32_t> rowA, rowB;
};

IntegerMatMul::IntegerMatMul(int64_t m, int64_t k, int64_t n, bool aSigned,
                             const void *b, bool bSigned, const void *bZero,
                             int64_t bZeroCount)
    : impl(std::make_unique<Impl>()) {
  if (m < 1 || k < 1 || n < 1)
    throw std::invalid_argument("IntegerMatMul: M, K and N must be positive");
  if (bZero && bZeroCount != 1 && bZeroCount != n)
    throw std::invalid_argument("IntegerMatMul: b's zero point needs 1 or N "
                                "values");
  Impl &I = *impl;
  I.m = m;
  I.k = k;
  I.n = n;
  I.aSigned = aSigned;
  // b as s8, transposed to N x K (the inner product's layout): a u8 b
  // minus 128, its zero points with it.
  const int shift = bSigned ? 0 : 128;
  auto bAt = [&](int64_t i) {
    return bSigned ? int32_t(static_cast<const int8_t *>(b)[i])
                   : int32_t(static_cast<const uint8_t *>(b)[i]);
  };
  auto zAt = [&](int64_t j) {
    if (!bZero)
      return 0;
    int64_t i = bZeroCount == 1 ? 0 : j;
    return bSigned ? int32_t(static_cast<const int8_t *>(bZero)[i])
                   : int32_t(static_cast<const uint8_t *>(bZero)[i]);
  };
  std::vector<int8_t> wq(n * k);
  I.colSum.assign(n, 0);
  I.bZero.resize(n);
  for (int64_t j = 0; j < n; ++j) {
    I.bZero[j] = zAt(j) - shift;
    I.anyBZero |= I.bZero[j] != 0;
  }
  for (int64_t c = 0; c < k; ++c)
    for (int64_t j = 0; j < n; ++j) {
      int32_t v = bAt(c * n + j) - shift;
      wq[j * k + c] = static_cast<int8_t>(v);
      I.colSum[j] += v;
    }
  if (kernelTable().gemmTileInt8 && PackedGemmInt8::applies(2, k)) {
    I.blockRows = std::min(m, PackedGemmInt8::kMaxRows);
    I.gemm = std::make_unique<PackedGemmInt8>(I.blockRows, k, n, wq.data(),
                                              std::vector<PostOp>{},
                                              std::nullopt);
    if (int64_t rest = m % I.blockRows)
      I.tail = std::make_unique<PackedGemmInt8>(rest, k, n, wq.data(),
                                                std::vector<PostOp>{},
                                                std::nullopt);
    return;
  }
  if (int8WeightsSaturate(wq.data(), n * k)) {
    I.split = true;
    std::vector<int8_t> w2(n * 2 * k);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c) {
        int v = wq[r * k + c], hi = v / 2;
        w2[r * 2 * k + c] = static_cast<int8_t>(hi);
        w2[r * 2 * k + k + c] = static_cast<int8_t>(v - hi);
      }
    I.dnnl.build(m, 2 * k, n, dt::u8, dt::s8, w2.data(), dt::s8, nullptr, {},
                 false, {}, false, /*s32Dst=*/true);
    return;
  }
  I.dnnl.build(m, k, n, dt::u8, dt::s8, wq.data(), dt::s8, nullptr, {}, false,
               {}, false, /*s32Dst=*/true);
}

IntegerMatMul::~IntegerMatMul() = default;

void IntegerMatMul::run(const void *a, const void *aZero, int64_t aZeroCount,
                        int32_t *y) {
  Impl &I = *impl;
  const int64_t m = I.m, k = I.k, n = I.n;
  // a as u8: an s8 a plus 128 (its zero point with it).
  const auto *x = static_cast<const uint8_t *>(a);
  const int32_t shift = I.aSigned ? 128 : 0;
  if (I.aSigned) {
    I.aU8.resize(m * k);
    for (int64_t i = 0; i < m * k; ++i)
      I.aU8[i] = x[i] ^ 0x80;
    x = I.aU8.data();
  }
  // rowA = -az (times colsum), rowB = -(rowsum(a) - K az) (times bz).
  I.rowA.resize(m);
  for (int64_t r = 0; r < m; ++r) {
    int32_t z = 0;
    if (aZero) {
      int64_t i = aZeroCount == 1 ? 0 : r;
      z = I.aSigned ? int32_t(static_cast<const int8_t *>(aZero)[i])
                    : int32_t(static_cast<const uint8_t *>(aZero)[i]);
    }
    I.rowA[r] = -(z + shift);
  }
  const int32_t *rowB = nullptr;
  if (I.anyBZero) {
    I.rowB.resize(m);
    for (int64_t r = 0; r < m; ++r) {
      uint32_t s = 0;
      for (int64_t c = 0; c < k; ++c)
        s += x[r * k + c];
      I.rowB[r] = int32_t(uint32_t(k) * uint32_t(-I.rowA[r]) - s);
    }
    rowB = I.rowB.data();
  }
  if (I.gemm) {
    int64_t r0 = 0;
    for (; r0 + I.blockRows <= m; r0 += I.blockRows)
      I.gemm->runS32(x + r0 * k, y + r0 * n, I.rowA.data() + r0,
                     I.colSum.data(), rowB ? rowB + r0 : nullptr,
                     I.bZero.data());
    if (I.tail)
      I.tail->runS32(x + r0 * k, y + r0 * n, I.rowA.data() + r0,
                     I.colSum.data(), rowB ? rowB + r0 : nullptr,
                     I.bZero.data());
    return;
  }
  if (I.split) {
    I.aTwice.resize(m * 2 * k);
    for (int64_t r = 0; r < m; ++r) {
      std::memcpy(&I.aTwice[r * 2 * k], x + r * k, k);
      std::memcpy(&I.aTwice[r * 2 * k + k], x + r * k, k);
    }
    I.dnnl.run(I.aTwice.data(), y, nullptr);
  } else {
    I.dnnl.run(x, y, nullptr);
  }
  for (int64_t r = 0; r < m; ++r) {
    auto *row = reinterpret_cast<uint32_t *>(y + r * n);
    const uint32_t ra = uint32_t(I.rowA[r]);
    const uint32_t rb = rowB ? uint32_t(rowB[r]) : 0;
    for (int64_t j = 0; j < n; ++j)
      row[j] += ra * uint32_t(I.colSum[j]) + rb * uint32_t(I.bZero[j]);
  }
}

std::string IntegerMatMul::implementation() const {
  if (impl->gemm)
    return impl->gemm->name();
  return std::string(impl->dnnl.pd.impl_info_str()) +
         (impl->split ? ":s8w7x2" : "");
}

bool IntegerMatMul::ownKernel() const { return impl->gemm != nullptr; }
