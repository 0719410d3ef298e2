//===- Dense.cpp - oneDNN-backed dense kernels ----------------------------===//
//
// Part of opscope's runtime. oneDNN's C++ API throws; this file (inner
// products and matmuls) and DenseConv.cpp (convolutions and pooling) are
// built with exceptions and are the only places that talk to oneDNN; what
// they share is in DnnlCommon.h.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/packed_weights.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse_format.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <omp.h>
#include <stdexcept>
#include <unordered_map>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

namespace {
/// OPSCOPE_MAX_ISA caps oneDNN too (DNNL_MAX_CPU_ISA, when set, oneDNN
/// reads itself); it must be set before the first primitive.
bool applyIsaCap() {
  if (std::getenv("DNNL_MAX_CPU_ISA") || maxIsa() == IsaLevel::All)
    return true;
  static const dnnl::cpu_isa isas[] = {
      dnnl::cpu_isa::sse41,           dnnl::cpu_isa::avx2,
      dnnl::cpu_isa::avx512_core,     dnnl::cpu_isa::avx512_core_vnni,
      dnnl::cpu_isa::avx512_core_bf16, dnnl::cpu_isa::avx512_core_amx};
  try {
    dnnl::set_max_cpu_isa(isas[static_cast<int>(maxIsa())]);
  } catch (const std::exception &) {
    // Already fixed by an earlier primitive in this process: nothing to do.
  }
  return true;
}

dnnl::algorithm algorithmOf(PostOp p) {
  switch (p) {
  case PostOp::Relu:
    return dnnl::algorithm::eltwise_relu;
  case PostOp::GeluErf:
    return dnnl::algorithm::eltwise_gelu_erf;
  case PostOp::GeluTanh:
    return dnnl::algorithm::eltwise_gelu_tanh;
  case PostOp::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  case PostOp::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case PostOp::HardSwish:
    return dnnl::algorithm::eltwise_hardswish;
  case PostOp::Sum:
    break;
  }
  throw std::logic_error("sum is not an eltwise post-op");
}

} // namespace

Context &dnnlx::context() {
  static const bool capped = applyIsaCap();
  (void)capped;
  static Context ctx;
  return ctx;
}

dnnl::primitive_attr dnnlx::attrWithPostOps(const std::vector<PostOp> &postOps,
                                     bool &hasSum, U8Output u8Out) {
  dnnl::post_ops ops;
  hasSum = false;
  for (PostOp p : postOps) {
    if (p == PostOp::Sum) {
      ops.append_sum(1.0f);
      hasSum = true;
    } else {
      ops.append_eltwise(1.0f, algorithmOf(p), 0.0f, 0.0f);
    }
  }
  if (u8Out) {
    auto [scale, zero] = *u8Out;
    if (!(scale > 0) || zero < 0 || zero > 255 || hasSum)
      throw std::invalid_argument("a u8 output needs a positive scale, a "
                                  "zero point in [0, 255] and no sum "
                                  "post-op");
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f / scale,
                       static_cast<float>(zero));
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

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
             U8Output u8Out = {}, bool bf16Dst = false) {
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

struct InnerProduct::Impl : IpPrimitive {};

InnerProduct::InnerProduct(int64_t m, int64_t k, int64_t n,
                           const float *weightData, const float *biasData,
                           std::vector<PostOp> postOps)
    : impl(std::make_unique<Impl>()) {
  impl->build(m, k, n, dt::f32, dt::f32, weightData, dt::f32, biasData,
              postOps, false);
}

InnerProduct::~InnerProduct() = default;

void InnerProduct::run(const float *x, float *y, const float *sum) {
  impl->run(x, y, sum);
}

std::string InnerProduct::implementation() const {
  return impl->pd.impl_info_str();
}

/// Without native bf16 (nativeBf16()), the primitive is f32: the weights
/// bf16-rounded and widened once, the input rounded to bf16 (or a bf16
/// input widened) and kept in f32 every run, so the products are the bf16
/// ones; a bf16 output is written in f32 and rounded after.
/// The conversions go through threadScratch: slot 0 the input (rounded to
/// bf16, or through f32 without native bf16), slot 2 an f32 output to round.
struct Bf16InnerProduct::Impl : IpPrimitive {
  bool asF32 = false;
  Bf16Activations io;
};

void Bf16InnerProduct::build(int64_t m, int64_t k, int64_t n,
                             const void *weights, bool weightsBf16,
                             const float *bias, std::vector<PostOp> postOps,
                             Bf16Activations io) {
  impl = std::make_unique<Impl>();
  impl->asF32 = !nativeBf16();
  impl->io = io;
  if (io.output && std::find(postOps.begin(), postOps.end(), PostOp::Sum) !=
                       postOps.end())
    throw std::invalid_argument(
        "a bf16 inner product with a bf16 output takes no sum post-op");
  if (impl->asF32) {
    std::vector<float> w(n * k);
    if (weightsBf16)
      bf16ToF32(static_cast<const uint16_t *>(weights), w.data(), n * k);
    else
      roundToBf16AsF32(static_cast<const float *>(weights), w.data(), n * k);
    impl->build(m, k, n, dt::f32, dt::f32, w.data(), dt::f32, bias, postOps,
                false);
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
  if (I.asF32) {
    auto *x32 = static_cast<float *>(threadScratch(0, in * sizeof(float)));
    if (I.io.input)
      bf16ToF32(static_cast<const uint16_t *>(x), x32, in);
    else
      roundToBf16AsF32(static_cast<const float *>(x), x32, in);
    src = x32;
  } else if (!I.io.input) {
    auto *x16 = static_cast<uint16_t *>(threadScratch(0, in * 2));
    roundToBf16(static_cast<const float *>(x), x16, in);
    src = x16;
  }
  if (I.io.output && I.asF32) {
    auto *y32 =
        static_cast<float *>(threadScratch(2, I.m * I.n * sizeof(float)));
    I.run(src, y32, nullptr);
    roundToBf16(y32, static_cast<uint16_t *>(y), I.m * I.n);
    return;
  }
  I.run(src, y, sum);
}

void Bf16InnerProduct::run(const float *x, float *y, const float *sum) {
  if (impl->io.input || impl->io.output)
    throw std::logic_error("this bf16 inner product has bf16 activations: "
                           "use runRaw");
  runRaw(x, y, sum);
}

std::string Bf16InnerProduct::implementation() const {
  return std::string(impl->pd.impl_info_str()) + (impl->asF32 ? ":f32" : "");
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

struct QuantizedInnerProduct::Impl : IpPrimitive {
  // outScale and the bias match the last (xScale, xZero).
  float lastXScale = std::nanf("");
  int32_t lastXZero = 0;
  std::vector<float> wScale, outScale, biasF32;
  std::vector<int32_t> rowSum; ///< sum_k Wq[n, k], for the zero point
  std::vector<uint8_t> xU8;    ///< the quantized input of run(const float *)
  bool u8Out = false;          ///< the output is u8 (runU8Out)
  dnnl::memory scales;

  void init(int64_t m_, int64_t k_, int64_t n_, const int8_t *wq,
            const float *biasData, const std::vector<PostOp> &postOps,
            U8Output u8Out = {}) {
    rowSum.assign(n_, 0);
    for (int64_t r = 0; r < n_; ++r)
      for (int64_t c = 0; c < k_; ++c)
        rowSum[r] += wq[r * k_ + c];
    // A bias always: the zero point's compensation goes into it.
    biasF32.assign(n_, 0.0f);
    if (biasData)
      biasF32.assign(biasData, biasData + n_);
    build(m_, k_, n_, dt::u8, dt::s8, wq, dt::s8, biasF32.data(), postOps,
          /*runtimeOutputScales=*/true, u8Out);
    outScale.resize(n_);
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
  // s8 weights have it.
  std::vector<int8_t> wq(n * k);
  I.wScale.resize(n);
  for (int64_t r = 0; r < n; ++r) {
    I.wScale[r] = sparse::symmetricScale(weightData + r * k, k);
    for (int64_t c = 0; c < k; ++c)
      wq[r * k + c] = sparse::quantizeS8(weightData[r * k + c], I.wScale[r]);
  }
  I.init(m, k, n, wq.data(), biasData, postOps);
}

QuantizedInnerProduct::QuantizedInnerProduct(
    int64_t m, int64_t k, int64_t n, const int8_t *s8Weights,
    const float *rowScales, const float *biasData, std::vector<PostOp> postOps,
    std::optional<std::pair<float, int32_t>> u8Output)
    : impl(std::make_unique<Impl>()) {
  impl->u8Out = u8Output.has_value();
  impl->wScale.assign(rowScales, rowScales + n);
  impl->init(m, k, n, s8Weights, biasData, postOps, u8Output);
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
    // oneDNN adds the bias before the output scales: divide it, and take
    // the zero point's xZero * rowSum out of the accumulator there.
    auto *bias = static_cast<float *>(I.bias.get_data_handle());
    for (int64_t r = 0; r < I.n; ++r) {
      I.outScale[r] = xScale * I.wScale[r];
      bias[r] = I.biasF32[r] / I.outScale[r] -
                static_cast<float>(xZero) * static_cast<float>(I.rowSum[r]);
    }
    I.lastXScale = xScale;
    I.lastXZero = xZero;
  }
  I.run(x, y, sum);
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
  I.xU8.resize(I.m * I.k);
  quantizeU8(x, I.xU8.data(), I.m * I.k, xScale, xZero);
  return I.xU8.data();
}

std::string QuantizedInnerProduct::implementation() const {
  return impl->pd.impl_info_str();
}

const std::vector<float> &QuantizedInnerProduct::weightScales() const {
  return impl->wScale;
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

dnnl::memory::dims dnnlx::toDims(const Dims &d) {
  return dnnl::memory::dims(d.begin(), d.end());
}

tag dnnlx::plainTag(size_t rank) {
  switch (rank) {
  case 1:
    return tag::a;
  case 2:
    return tag::ab;
  case 3:
    return tag::abc;
  case 4:
    return tag::abcd;
  case 5:
    return tag::abcde;
  default:
    return tag::abcdef;
  }
}

int64_t dnnlx::product(const Dims &d) {
  int64_t n = 1;
  for (int64_t v : d)
    n *= v;
  return n;
}

namespace {
/// What identifies a memory layout in the packed-weight cache's key: every
/// field of a blocked descriptor that says where an element lives, and the
/// int8 compensation flags; "" for layouts that are not blocked (never
/// cached).
std::string layoutKey(const dnnl::memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked)
    return "";
  std::string key;
  auto add = [&](int64_t v) { key += std::to_string(v) + ","; };
  add(d.ndims);
  add(d.data_type);
  for (int i = 0; i < d.ndims; ++i) {
    add(d.dims[i]);
    add(d.padded_dims[i]);
    add(d.padded_offsets[i]);
    add(d.format_desc.blocking.strides[i]);
  }
  add(d.offset0);
  add(d.format_desc.blocking.inner_nblks);
  for (int i = 0; i < d.format_desc.blocking.inner_nblks; ++i) {
    add(d.format_desc.blocking.inner_blks[i]);
    add(d.format_desc.blocking.inner_idxs[i]);
  }
  add(static_cast<int64_t>(d.extra.flags));
  add(d.extra.compensation_mask);
  add(d.extra.asymm_compensation_mask);
  key += std::to_string(d.extra.scale_adjust);
  return key;
}

dnnl::memory reordered(const dnnl::memory::desc &plainMd,
                       const dnnl::memory::desc &md, const void *data) {
  Context &ctx = context();
  dnnl::memory src(plainMd, ctx.engine, const_cast<void *>(data));
  dnnl::memory dst(md, ctx.engine);
  dnnl::reorder(src, dst).execute(ctx.stream, src, dst);
  ctx.stream.wait();
  return dst;
}
} // namespace

void *dnnlx::threadScratch(int slot, size_t bytes) {
  struct Slot {
    void *p = nullptr;
    size_t size = 0;
    ~Slot() { std::free(p); }
  };
  thread_local Slot slots[3];
  Slot &s = slots[slot];
  if (s.size < bytes) {
    size_t size = (bytes + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, size);
    if (!p)
      throw std::bad_alloc();
    std::free(s.p);
    s.p = p;
    s.size = size;
  }
  return s.p;
}

dnnl::memory dnnlx::packed(const dnnl::memory::desc &plainMd,
                           const dnnl::memory::desc &md, const void *data) {
  PackedWeightCache *cache = currentPackedWeights();
  if (!cache || !cache->covers(data))
    return reordered(plainMd, md, data);
  std::string from = layoutKey(plainMd), to = layoutKey(md);
  if (from.empty() || to.empty())
    return reordered(plainMd, md, data);
  auto entry = cache->get(data, "dnnl:" + from + "->" + to, [&] {
    return std::static_pointer_cast<void>(
        std::make_shared<dnnl::memory>(reordered(plainMd, md, data)));
  });
  // A copy of the handle: the buffer is shared, and stays alive while any
  // kernel holds it.
  return *std::static_pointer_cast<dnnl::memory>(entry);
}

std::string opscope::rt::denseLibraryVersion() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
}

void opscope::rt::setDenseThreads(int threads) {
  if (threads > 0)
    omp_set_num_threads(threads);
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

struct MatMul::Impl {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  bool constB = false, bf16 = false, int8 = false;
  /// bf16 without native bf16: f32 kernels on the rounded operands.
  bool asF32 = false;
  int64_t aElems = 0, bElems = 0;
  /// bf16: the operands rounded (kept in f32 without native bf16) into
  /// threadScratch slots 0 and 1; bf16 chains: which buffers are bf16, and
  /// without native bf16 a bf16 c is written in f32 (slot 2) and rounded.
  MatMul::Bf16Io io;
  int64_t cElems = 0;
  /// int8: the quantized operands, the output scale (scale x a's x b's)
  /// and b's scale (fixed for a constant b).
  std::vector<int8_t> aS8, bS8;
  float outScale = 1.0f, bScale = 1.0f, scale = 1.0f;
  dnnl::memory scaleMem;
  std::unordered_map<int, dnnl::memory> args;
};

namespace {
/// Symmetric per-tensor s8 quantization of n values: returns the scale
/// (max |x| / 127; 1 for all zeros).
float quantizeS8Dynamic(const float *x, int8_t *q, int64_t n) {
  float amax = maxAbs(x, n);
  float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
  quantizeS8(x, q, n, scale);
  return scale;
}
} // namespace

MatMul::MatMul(const Dims &aShape, const Dims &bShape, const Dims &cShape,
               bool transposeA, bool transposeB, float scale,
               const float *constB, bool bf16, bool int8, Bf16Io bf16Io)
    : impl(std::make_unique<Impl>()) {
  if (bf16 && int8)
    throw std::invalid_argument("a matmul computes in bf16 or int8, not both");
  if ((bf16Io.a || bf16Io.b || bf16Io.c) && !bf16)
    throw std::invalid_argument("bf16 operands need a bf16 matmul");
  if (bf16Io.b && constB)
    throw std::invalid_argument("a constant rhs is f32");
  Context &ctx = context();
  // Promote rank-1 operands to matrices, then align batch ranks.
  Dims a = aShape, b = bShape;
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  // A batched lhs against one matrix is one big matrix product: fold the
  // batch into the rows (oneDNN's 2-D kernels are faster than its
  // broadcast batch loop, and this is every unfused Linear layer).
  bool bIsMatrix = std::all_of(b.begin(), b.end() - 2,
                               [](int64_t d) { return d == 1; });
  if (!transposeA && a.size() > 2 && bIsMatrix) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.size(); ++i)
      rows *= a[i];
    a = {rows, a.back()};
    b = {b[b.size() - 2], b.back()};
  }
  size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  // Logical dims/strides of op(a) and op(b) over the stored row-major data.
  auto logical = [&](const Dims &stored, bool transpose, Dims &dims,
                     Dims &strides) {
    dims = stored;
    strides.assign(rank, 0);
    int64_t acc = 1;
    for (size_t i = rank; i-- > 0;) {
      strides[i] = acc;
      acc *= stored[i];
    }
    if (transpose) {
      std::swap(dims[rank - 1], dims[rank - 2]);
      std::swap(strides[rank - 1], strides[rank - 2]);
    }
  };
  Dims ad, as, bd, bs;
  logical(a, transposeA, ad, as);
  logical(b, transposeB, bd, bs);
  Dims cd(rank);
  for (size_t i = 0; i + 2 < rank; ++i)
    cd[i] = std::max(ad[i], bd[i]);
  cd[rank - 2] = ad[rank - 2];
  cd[rank - 1] = bd[rank - 1];
  impl->bf16 = bf16;
  impl->int8 = int8;
  impl->scale = scale;
  impl->asF32 = bf16 && !nativeBf16();
  dt in = bf16 && !impl->asF32 ? dt::bf16 : dt::f32;
  dt aType = int8 ? dt::s8 : in, bType = int8 ? dt::s8 : in;
  impl->aElems = product(aShape);
  impl->bElems = product(bShape);
  dnnl::memory::desc aMd(toDims(ad), aType, toDims(as));
  dnnl::memory::desc bPlain(toDims(bd), bType, toDims(bs));
  dnnl::memory::desc bMd =
      constB ? dnnl::memory::desc(toDims(bd), bType, tag::any) : bPlain;
  impl->io = bf16Io;
  impl->cElems = product(cShape);
  dnnl::memory::desc cMd(toDims(cd),
                         bf16Io.c && !impl->asF32 ? dt::bf16 : dt::f32,
                         plainTag(rank));
  dnnl::primitive_attr attr;
  // int8: the scale changes with every run's ranges, and oneDNN 2.6 takes
  // run-time output scales only on its slower gemm:jit matmul (brg needs
  // them fixed), so it is a binary-multiply post-op by a one-element
  // tensor instead (free on brg; a separate pass over a 12 x 512 x 512
  // output took longer than the int8 product itself).
  dnnl::memory::desc scaleMd(dnnl::memory::dims(rank, 1), dt::f32,
                             plainTag(rank));
  if (int8) {
    dnnl::post_ops po;
    po.append_binary(dnnl::algorithm::binary_mul, scaleMd);
    attr.set_post_ops(po);
  } else if (scale != 1.0f) {
    attr.set_output_scales(0, {scale});
  }
  impl->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(aMd, bMd, cMd),
                                          attr, ctx.engine);
  impl->prim = dnnl::matmul(impl->pd);
  impl->a = dnnl::memory(aMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->c = dnnl::memory(cMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->constB = constB != nullptr;

  if (int8) {
    impl->aS8.resize(impl->aElems);
    if (constB) {
      // Quantized once; packing copies it.
      std::vector<int8_t> q(impl->bElems);
      impl->bScale = quantizeS8Dynamic(constB, q.data(), impl->bElems);
      impl->b = packed(bPlain, impl->pd.weights_desc(), q.data());
    } else {
      impl->bS8.resize(impl->bElems);
      impl->b = dnnl::memory(bPlain, ctx.engine, DNNL_MEMORY_NONE);
    }
    impl->scaleMem = dnnl::memory(scaleMd, ctx.engine, &impl->outScale);
    impl->args = {{DNNL_ARG_SRC, impl->a},
                  {DNNL_ARG_WEIGHTS, impl->b},
                  {DNNL_ARG_DST, impl->c},
                  {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   impl->scaleMem}};
    return;
  }
  // A constant b is rounded once here, then packed.
  std::vector<float> constB32;
  std::vector<uint16_t> constB16;
  if (constB && impl->asF32) {
    constB32.resize(impl->bElems);
    roundToBf16AsF32(constB, constB32.data(), impl->bElems);
    constB = constB32.data();
  }
  if (constB && bf16 && !impl->asF32) {
    constB16.resize(impl->bElems);
    roundToBf16(constB, constB16.data(), impl->bElems);
    dnnl::memory plainB(bPlain, ctx.engine, constB16.data());
    impl->b = dnnl::memory(impl->pd.weights_desc(), ctx.engine);
    dnnl::reorder(plainB, impl->b).execute(ctx.stream, plainB, impl->b);
    ctx.stream.wait();
  } else {
    impl->b = constB ? packed(bPlain, impl->pd.weights_desc(), constB)
                     : dnnl::memory(bPlain, ctx.engine, DNNL_MEMORY_NONE);
  }
  impl->args = {{DNNL_ARG_SRC, impl->a},
                {DNNL_ARG_WEIGHTS, impl->b},
                {DNNL_ARG_DST, impl->c}};
}

MatMul::~MatMul() = default;

void MatMul::run(const float *a, const float *b, float *c) {
  const Bf16Io &io = impl->io;
  if (io.a || io.b || io.c)
    throw std::logic_error("this matmul has bf16 operands: use runRaw");
  runRaw(a, b, c);
}

void MatMul::runRaw(const void *a, const void *b, void *c) {
  Context &ctx = context();
  Impl &I = *impl;
  auto f32 = [](const void *p) { return static_cast<const float *>(p); };
  auto bf = [](const void *p) { return static_cast<const uint16_t *>(p); };
  // An f32 operand as the kernel reads it: rounded (kept in f32 without
  // native bf16), a bf16 one widened then, else as it is.
  auto operand = [&](const void *p, bool isBf16, int slot,
                     int64_t n) -> void * {
    if (I.asF32) {
      auto *r32 = static_cast<float *>(threadScratch(slot, n * sizeof(float)));
      if (isBf16)
        bf16ToF32(bf(p), r32, n);
      else
        roundToBf16AsF32(f32(p), r32, n);
      return r32;
    }
    if (isBf16)
      return const_cast<void *>(p);
    auto *r16 = static_cast<uint16_t *>(threadScratch(slot, n * 2));
    roundToBf16(f32(p), r16, n);
    return r16;
  };
  if (I.int8) {
    float aScale = quantizeS8Dynamic(f32(a), I.aS8.data(), I.aElems);
    I.a.set_data_handle(I.aS8.data());
    if (!I.constB) {
      I.bScale = quantizeS8Dynamic(f32(b), I.bS8.data(), I.bElems);
      I.b.set_data_handle(I.bS8.data());
    }
    I.outScale = I.scale * aScale * I.bScale;
  } else if (I.bf16) {
    I.a.set_data_handle(operand(a, I.io.a, 0, I.aElems));
    if (!I.constB)
      I.b.set_data_handle(operand(b, I.io.b, 1, I.bElems));
  } else {
    I.a.set_data_handle(const_cast<void *>(a));
    if (!I.constB)
      I.b.set_data_handle(const_cast<void *>(b));
  }
  bool roundC = I.io.c && I.asF32;
  auto *c32 = roundC ? static_cast<float *>(
                           threadScratch(2, I.cElems * sizeof(float)))
                     : nullptr;
  I.c.set_data_handle(roundC ? c32 : c);
  I.prim.execute(ctx.stream, I.args);
  ctx.stream.wait();
  if (roundC)
    roundToBf16(c32, static_cast<uint16_t *>(c), I.cElems);
}

std::string MatMul::implementation() const {
  return std::string(impl->pd.impl_info_str()) + (impl->asF32 ? ":f32" : "");
}
