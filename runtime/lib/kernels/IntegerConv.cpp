//===- IntegerConv.cpp - u8/i8 x s8 convolution on oneDNN -----------------===//
//
// Part of opscope's runtime: conv_integer (ONNX ConvInteger, QLinearConv's
// integer part) on oneDNN's int8 convolution when the weight is constant
// (a centered weight beyond s8 split into parts, their sums added); the
// input zero point is a
// run-time oneDNN zero point (padding contributes nothing, as in ONNX).
// Anything else runs on quantize.h's portable convInteger.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

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
  /// The other parts of a split weight (the centered constructor).
  std::vector<std::unique_ptr<IntegerConv>> moreParts;
  int64_t outElems = 0;
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
  dt srcType = srcSigned ? dt::s8 : dt::u8;
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
    srcArg = impl->srcBlocked;
  }
  if (pd.dst_desc() != dstMd) {
    impl->dstBlocked = dnnl::memory(pd.dst_desc(), ctx.engine, DNNL_MEMORY_NONE);
    impl->dstOut = dnnl::reorder(impl->dstBlocked, impl->dst);
    dstArg = impl->dstBlocked;
  }
  impl->args = {{DNNL_ARG_SRC, srcArg},
                {DNNL_ARG_WEIGHTS, impl->weights},
                {DNNL_ARG_DST, dstArg},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, impl->zero}};
}

IntegerConv::IntegerConv(const ConvParams &p, bool srcSigned,
                         const int32_t *centered) {
  int64_t n = product(p.weight);
  const int32_t limit = int8WeightLimit();
  int32_t widest = 0;
  for (int64_t i = 0; i < n; ++i)
    widest = std::max(widest, std::abs(centered[i]));
  const int parts = std::max(1, (widest + limit - 1) / limit);
  if (parts > 4)
    throw std::invalid_argument("a centered int8 weight beyond 4 parts");
  std::vector<int32_t> rest(centered, centered + n);
  std::vector<int8_t> w8(n);
  auto nextPart = [&] {
    for (int64_t i = 0; i < n; ++i) {
      int32_t v = std::clamp(rest[i], -limit, limit);
      w8[i] = static_cast<int8_t>(v);
      rest[i] -= v;
    }
  };
  nextPart();
  IntegerConv first(p, srcSigned, w8.data());
  impl = std::move(first.impl);
  impl->outElems = product(p.output);
  for (int k = 1; k < parts; ++k) {
    nextPart();
    impl->moreParts.push_back(
        std::make_unique<IntegerConv>(p, srcSigned, w8.data()));
  }
}

IntegerConv::~IntegerConv() = default;

void IntegerConv::run(const void *x, int32_t xZero, int32_t *y) {
  Context &ctx = context();
  impl->zeroValue = xZero;
  impl->src.set_data_handle(const_cast<void *>(x));
  impl->dst.set_data_handle(y);
  if (impl->srcIn) {
    impl->srcBlocked.set_data_handle(
        threadScratch(3, impl->srcBlocked.get_desc().get_size()));
    impl->srcIn.execute(ctx.stream, impl->src, impl->srcBlocked);
  }
  if (impl->dstOut)
    impl->dstBlocked.set_data_handle(
        threadScratch(4, impl->dstBlocked.get_desc().get_size()));
  impl->prim.execute(ctx.stream, impl->args);
  if (impl->dstOut)
    impl->dstOut.execute(ctx.stream, impl->dstBlocked, impl->dst);
  ctx.stream.wait();
  if (impl->moreParts.empty())
    return;
  // The other parts' results, summed in a per-thread scratch slot.
  auto *more = static_cast<int32_t *>(
      threadScratch(2, impl->outElems * sizeof(int32_t)));
  for (auto &part : impl->moreParts) {
    part->run(x, xZero, more);
    for (int64_t i = 0; i < impl->outElems; ++i)
      y[i] += more[i];
  }
}

std::string IntegerConv::implementation() const {
  if (impl->moreParts.empty())
    return impl->implInfo;
  return impl->implInfo + ":x" + std::to_string(impl->moreParts.size() + 1);
}
