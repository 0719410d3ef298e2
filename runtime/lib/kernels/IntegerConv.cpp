//===- IntegerConv.cpp - u8/i8 x s8 convolution: oneDNN or the s16 GEMM ---===//
//
// Part of opscope's runtime: conv_integer (ONNX ConvInteger, QLinearConv's
// integer part) with a constant weight: on opscope's exact s16 GEMM
// (IntegerConvGemm.h) where the tier has it and the convolution is 2-D of
// one group, else on oneDNN's int8 convolution (a centered weight beyond
// s8 split into parts, their sums added), the input zero point a run-time
// oneDNN zero point (padding contributes nothing, as in ONNX). Anything
// else runs on quantize.h's portable convInteger.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"
#include "IntegerConvGemm.h"

#include <algorithm>
#include <cstdlib>

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"

#include <unordered_map>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

struct IntegerConv::Impl {
  dnnl::primitive prim;
  std::string implInfo;
  dnnl::memory src, weights, dst, zero;
  dnnl::memory srcBlocked, dstBlocked;
  dnnl::reorder srcIn, dstOut;
  std::unordered_map<int, dnnl::memory> args;
  int32_t zeroValue = 0;
  /// The other parts of a split weight (the centered constructor), and
  /// what each one's result is multiplied by (the base-(L+1) split's high
  /// digit: L + 1; else 1).
  std::vector<std::unique_ptr<IntegerConv>> moreParts;
  int32_t moreScale = 1;
  int64_t outElems = 0;
  /// An s8 source runs as u8: x + 128 (the sign bit flipped) with zero
  /// point + 128, the same differences. oneDNN 2.6's gemm convolution for
  /// s8 sources with a run-time zero point (AVX-512 without VNNI) returned
  /// wrong sums (ConvInteger.OneDnnMatchesPortable under
  /// OPSCOPE_MAX_ISA=avx512_core); its u8 path is exact on every tier.
  bool flipSign = false;
  int64_t inElems = 0;
  /// opscope's own exact s16 GEMM (IntegerConvGemm), where it applies:
  /// then nothing above is used.
  std::unique_ptr<IntegerConvGemm> own;
  /// Sizes of the blocked copies (0: none), taken from their descriptors
  /// once.
  size_t srcBlockedBytes = 0, dstBlockedBytes = 0;
};

IntegerConv::IntegerConv(const ConvParams &p, bool srcSigned,
                         const int8_t *weights)
    : impl(std::make_unique<Impl>()) {
  Context &ctx = context();
  ConvGeometry geo = convGeometry(p);
  const Dims &w = geo.weight;
  // ConvInteger's outputs are exact integers: no requantization. Where the
  // tier's int8 kernels would saturate (int8WeightLimit), weights beyond
  // 7 bits are refused, and the binding runs the portable kernel.
  int64_t wElems = 1;
  for (int64_t d : p.weight)
    wElems *= d;
  if (int8WeightsSaturate(weights, wElems))
    throw std::invalid_argument(
        "int8 weights beyond 7 bits would saturate in oneDNN's int8 "
        "convolution on this tier (no VNNI)");
  dnnl::memory::desc wPlain(toDims(w), dt::s8, geo.plainWeightTag);
  dnnl::memory::desc wAny(toDims(w), dt::s8, tag::any);
  impl->flipSign = srcSigned;
  impl->inElems = product(p.input);
  dt srcType = dt::u8;
  dnnl::memory::desc srcMd(toDims(p.input), srcType, plainTag(p.input.size()));
  dnnl::memory::desc dstMd(toDims(p.output), dt::s32,
                           plainTag(p.output.size()));
  dnnl::memory::desc srcAny(toDims(p.input), srcType, tag::any);
  dnnl::memory::desc dstAny(toDims(p.output), dt::s32, tag::any);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      srcAny, wAny, dstAny, toDims(p.strides), toDims(geo.dilations),
      toDims(geo.padL), toDims(geo.padR));
  dnnl::convolution_forward::primitive_desc pd(d, attr, ctx.engine);
  impl->prim = dnnl::convolution_forward(pd);
  impl->implInfo = pd.impl_info_str();
  impl->weights = packed(wPlain, pd.weights_desc(), weights);
  impl->src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->zero = dnnl::memory({{1}, dt::s32, tag::a}, ctx.engine,
                            &impl->zeroValue);
  dnnl::memory srcArg = impl->src, dstArg = impl->dst;
  // The blocked copies live in per-thread scratch (threadScratch slots 3
  // and 4, set at run time), not per op: at 1024x1024 a 64-channel i32
  // output is 256 MiB, and 119 such ops held 2 GiB.
  if (pd.src_desc() != srcMd) {
    impl->srcBlocked = dnnl::memory(pd.src_desc(), ctx.engine, DNNL_MEMORY_NONE);
    impl->srcIn = dnnl::reorder(impl->src, impl->srcBlocked);
    impl->srcBlockedBytes = pd.src_desc().get_size();
    srcArg = impl->srcBlocked;
  }
  if (pd.dst_desc() != dstMd) {
    impl->dstBlocked = dnnl::memory(pd.dst_desc(), ctx.engine, DNNL_MEMORY_NONE);
    impl->dstOut = dnnl::reorder(impl->dstBlocked, impl->dst);
    impl->dstBlockedBytes = pd.dst_desc().get_size();
    dstArg = impl->dstBlocked;
  }
  impl->args = {{DNNL_ARG_SRC, srcArg},
                {DNNL_ARG_WEIGHTS, impl->weights},
                {DNNL_ARG_DST, dstArg},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, impl->zero}};
}

IntegerConv::IntegerConv(const ConvParams &p, bool srcSigned,
                         const int32_t *centered) {
  // One exact pass where the tier's s16 tile takes the weight, instead of
  // oneDNN's int8 convolution twice (docs/runtime-kernels.md).
  if (IntegerConvGemm::applies(p, centered)) {
    impl = std::make_unique<Impl>();
    impl->own = std::make_unique<IntegerConvGemm>(p, srcSigned, centered);
    return;
  }
  int64_t n = product(p.weight);
  const int32_t limit = int8WeightLimit();
  int32_t widest = 0;
  for (int64_t i = 0; i < n; ++i)
    widest = std::max(widest, std::abs(centered[i]));
  const int32_t base = limit + 1;
  if (widest > limit * base)
    throw std::invalid_argument("a centered int8 weight beyond two parts");
  std::vector<int8_t> lo(n), hi(n);
  // Up to 2L: the clamped weight and what is left (each within L). Beyond:
  // base-(L+1) digits, the low one in [0, L], the high one floor(w / (L+1))
  // in [-L, L] (|w| <= L (L + 1)).
  const bool digits = widest > 2 * limit;
  for (int64_t i = 0; i < n; ++i) {
    int32_t w = centered[i];
    int32_t a = digits ? ((w % base) + base) % base : std::clamp(w, -limit, limit);
    lo[i] = static_cast<int8_t>(a);
    hi[i] = static_cast<int8_t>(digits ? (w - a) / base : w - a);
  }
  IntegerConv first(p, srcSigned, lo.data());
  impl = std::move(first.impl);
  impl->outElems = product(p.output);
  if (widest > limit) {
    // (The first part's run flips an s8 source once for both.)
    impl->moreParts.push_back(
        std::make_unique<IntegerConv>(p, /*srcSigned=*/false, hi.data()));
    impl->moreScale = digits ? base : 1;
  }
}

IntegerConv::~IntegerConv() = default;

void IntegerConv::run(const void *x, int32_t xZero, int32_t *y) {
  if (impl->own)
    return impl->own->run(x, xZero, y);
  Context &ctx = context();
  if (impl->flipSign) {
    auto *u = static_cast<uint8_t *>(threadScratch(1, impl->inElems));
    const auto *s8 = static_cast<const uint8_t *>(x);
    for (int64_t i = 0; i < impl->inElems; ++i)
      u[i] = s8[i] ^ 0x80;
    x = u;
    xZero += 128;
  }
  impl->zeroValue = xZero;
  impl->src.set_data_handle(const_cast<void *>(x));
  impl->dst.set_data_handle(y);
  if (impl->srcIn) {
    impl->srcBlocked.set_data_handle(threadScratch(3, impl->srcBlockedBytes));
    impl->srcIn.execute(ctx.stream, impl->src, impl->srcBlocked);
  }
  if (impl->dstOut)
    impl->dstBlocked.set_data_handle(threadScratch(4, impl->dstBlockedBytes));
  impl->prim.execute(ctx.stream, impl->args);
  if (impl->dstOut)
    impl->dstOut.execute(ctx.stream, impl->dstBlocked, impl->dst);
  ctx.stream.wait();
  if (impl->moreParts.empty())
    return;
  // The other parts' results, summed in a per-thread scratch slot.
  auto *more = static_cast<int32_t *>(
      threadScratch(2, impl->outElems * sizeof(int32_t)));
  const int32_t scale = impl->moreScale;
  for (auto &part : impl->moreParts) {
    part->run(x, xZero, more);
    for (int64_t i = 0; i < impl->outElems; ++i)
      y[i] += scale * more[i];
  }
}

bool IntegerConv::ownKernel() const { return impl->own != nullptr; }

std::string IntegerConv::implementation() const {
  if (impl->own)
    return impl->own->implementation();
  if (impl->moreParts.empty())
    return impl->implInfo;
  return impl->implInfo + ":x" + std::to_string(impl->moreParts.size() + 1);
}
