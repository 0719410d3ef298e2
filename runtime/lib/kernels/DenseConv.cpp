//===- DenseConv.cpp - oneDNN convolutions and pooling --------------------===//
//
// Part of opscope's runtime: Conv, ConvTranspose and Pool on oneDNN (the
// inner products are in Dense.cpp, matmuls in DenseMatMul.cpp; DnnlCommon.h
// is what they share).
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"
#include "GemmConv.h"
#include "KernelTable.h"
#include "WinogradConv.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

//===----------------------------------------------------------------------===//
// Conv / ConvTranspose
//===----------------------------------------------------------------------===//

ConvGeometry opscope::rt::dnnlx::convGeometry(const ConvParams &p) {
  ConvGeometry geo;
  size_t spatial = p.input.size() - 2;
  // oneDNN weights: [g,] O/g, I/g, k... ; osc stores conv weights as
  // O x I/g x k... and transposed-conv weights as I x O/g x k...
  int64_t g = p.groups, inC = p.input[1], outC = p.output[1];
  if (g > 1)
    geo.weight.push_back(g);
  geo.weight.push_back(outC / g);
  geo.weight.push_back(inC / g);
  for (size_t i = 0; i < spatial; ++i)
    geo.weight.push_back(p.weight[2 + i]);
  static const tag convTags[2][3] = {{tag::oiw, tag::oihw, tag::oidhw},
                                     {tag::goiw, tag::goihw, tag::goidhw}};
  static const tag deconvTags[2][3] = {{tag::bac, tag::bacd, tag::bacde},
                                       {tag::acbd, tag::acbde, tag::acbdef}};
  geo.plainWeightTag =
      (p.transposed ? deconvTags : convTags)[g > 1][spatial - 1];
  geo.dilations.resize(spatial);
  geo.padL.resize(spatial);
  geo.padR.resize(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = (p.weight[2 + i] - 1) * p.dilations[i] + 1;
    geo.dilations[i] = p.dilations[i] - 1;
    geo.padL[i] = p.pads[i];
    // The end padding that yields the planned output (covers conv_transpose
    // output_padding and any rounding).
    geo.padR[i] = p.transposed ? (p.input[2 + i] - 1) * p.strides[i] + k -
                                     geo.padL[i] - p.output[2 + i]
                               : (p.output[2 + i] - 1) * p.strides[i] + k -
                                     geo.padL[i] - p.input[2 + i];
  }
  return geo;
}

struct Conv::Impl {
  /// A 3x3 convolution computed as Winograd: nothing below but implInfo
  /// and hasSum is used then.
  std::unique_ptr<WinogradConv> winograd;
  /// A convolution computed as im2col and the packed GEMM (GemmConv.h):
  /// likewise.
  std::unique_ptr<GemmConv> gemm;
  /// int8 weights beyond the tier's saturation-free range (8-bit weights
  /// without VNNI): an f32 convolution on the dequantized weights,
  /// fed the dequantized input, and `q` the int8 parameters around it.
  std::unique_ptr<Conv> asF32;
  ConvParams q;
  bool transposed = false;
  bool hasSum = false, constWeights = false, hasBias = false;
  /// The bias is a model input, rebound on every run.
  bool biasPerRun = false;
  int64_t outElems = 0, inElems = 0;
  dnnl::primitive prim;
  std::string implInfo;
  /// The model's plain (NCHW) activations; the primitive may compute in
  /// oneDNN's blocked layouts (nChw16c), reordered to and from at run time.
  dnnl::memory src, weights, bias, dst;
  dnnl::memory srcBlocked, dstBlocked;
  dnnl::reorder srcIn, dstIn, dstOut; // when blocked
  /// Padded output channels (padC of them computed into dstBlocked, NHWC):
  /// run() copies the real ones into the output, NHWC or NCHW.
  int64_t padC = 0, outC = 0, pixels = 0, batch = 0;
  bool outNhwc = false;
  /// bf16 / int8: the f32 input converted on entry into threadScratch
  /// slot 0 (`convertedBytes`, in the input's layout), which `src` views.
  enum class Input {
    AsIs,      ///< f32, bound in place
    Bf16,      ///< rounded to bf16 (native bf16)
    Bf16Widen, ///< a bf16 input widened to f32 (f32 kernels)
    U8         ///< quantized with inputScale / inputZero
  } input = Input::AsIs;
  /// A bf16 output on f32 kernels: computed into threadScratch slot 2,
  /// then rounded.
  bool roundOutput = false;
  float inputScale = 1.0f;
  int32_t inputZero = 0;
  size_t convertedBytes = 0;
  /// int8 with a non-zero input zero point: oneDNN's run-time zero point.
  dnnl::memory zero;
  /// A sum after an element-wise post-op below AVX-512: a binary add of
  /// `addend`, channels-last like the destination. It views the residual's
  /// buffer, or `addendCopy` (`addendFloats`; allocated at build for the
  /// reorder, on first need otherwise) when the residual is in place (oneDNN's 1x1 kernels store partial sums in
  /// the destination: SSE4.1's, 160 channels over 5x5, read those back as
  /// the addend; osc-plan-memory never plans such a conv in place, so only
  /// a direct caller of Conv gets there) or plain NCHW (reordered from
  /// `residual`).
  bool sumAsAdd = false;
  dnnl::memory addend, residual;
  dnnl::reorder addendIn;
  size_t addendFloats = 0;
  std::vector<float> addendCopy;
  std::unordered_map<int, dnnl::memory> args;
};

namespace {
/// The output channel count a convolution computes: oneDNN's AVX-512
/// brgemm convolutions take output channels in blocks of 16, and a count
/// that is not a multiple (24) leaves a tail block that costs about as much
/// as a full one: 96 -> 24 channels, 3x3 over 80x80, NHWC, took 4.2 ms on
/// an Ice Lake core against 2.35 ms for 96 -> 32 (1x1: 0.56 against 0.26
/// ms). Such a convolution computes zero-weighted channels up to the next
/// multiple into a scratch buffer and copies the real ones out. Only for
/// 2-D, ungrouped f32 convolutions with constant weights and bias and no
/// sum post-op (whose input would need the same padding), with more
/// channels than one block.
int64_t paddedChannels(const ConvParams &p, bool constWeights,
                       bool biasReady) {
  int64_t outC = p.output[1];
  int64_t block = cpuTier() >= IsaLevel::Avx512Core ? 16 : 8;
  bool sum = std::find(p.postOps.begin(), p.postOps.end(), PostOp::Sum) !=
             p.postOps.end();
  if (p.transposed || p.groups != 1 || p.input.size() != 4 || !constWeights ||
      !biasReady || sum || outC <= block || outC % block == 0)
    return outC;
  return (outC + block - 1) / block * block;
}
} // namespace

Conv::Conv(const ConvParams &p, const float *constWeights,
           const float *constBias, bool hasBias)
    : impl(std::make_unique<Impl>()) {
  build(p, constWeights, Compute::F32, constBias, hasBias);
}

Conv::Conv(const ConvParams &p, const uint16_t *bf16Weights,
           const float *constBias, bool hasBias)
    : impl(std::make_unique<Impl>()) {
  if (!bf16Weights)
    throw std::invalid_argument("a bf16 convolution needs constant weights");
  build(p, bf16Weights, Compute::Bf16, constBias, hasBias);
}

Conv::Conv(const ConvParams &p, const int8_t *s8Weights,
           const float *constBias, bool hasBias)
    : impl(std::make_unique<Impl>()) {
  if (!s8Weights || (hasBias && !constBias))
    throw std::invalid_argument(
        "an int8 convolution needs constant weights and bias");
  if (static_cast<int64_t>(p.weightScales.size()) != p.output[1])
    throw std::invalid_argument("an int8 convolution needs one weight scale "
                                "per output channel");
  // Where oneDNN's int8 kernels would saturate these weights (8-bit ones
  // without VNNI), the products are computed in f32 instead: the
  // model's integers, exact in f32, never saturated ones.
  int64_t wElems = product(p.weight);
  if (int8WeightsSaturate(s8Weights, wElems)) {
    // The output channel of each weight element: O x I/g x k... for a
    // convolution, I x O/g x k... for a transposed one.
    int64_t spatial = 1;
    for (size_t d = 2; d < p.weight.size(); ++d)
      spatial *= p.weight[d];
    std::vector<float> w(wElems);
    for (int64_t i = 0; i < wElems; ++i) {
      int64_t o = i / (p.weight[1] * spatial);
      if (p.transposed) {
        int64_t group = o / (p.weight[0] / p.groups);
        o = group * p.weight[1] + (i / spatial) % p.weight[1];
      }
      w[i] = float(s8Weights[i]) * p.weightScales[o];
    }
    bool sumOp = false; // the int8 form's checks (a u8 output takes no sum)
    attrWithPostOps(p.postOps, sumOp,
                    p.outputU8 ? U8Output({p.outputScale, p.outputZero})
                               : U8Output());
    ConvParams f = p;
    f.inputU8 = f.outputU8 = false;
    f.weightScales.clear();
    f.algorithm = ConvAlgorithm::Direct; // exact sums, not Winograd's
    impl->asF32 = std::make_unique<Conv>(f, w.data(), constBias, hasBias);
    impl->q = p;
    impl->inElems = product(p.input);
    impl->outElems = product(p.output);
    impl->implInfo = impl->asF32->implementation() + ":f32";
    return;
  }
  build(p, s8Weights, Compute::Int8, constBias, hasBias);
}

void Conv::build(const ConvParams &p, const void *constWeights,
                 Compute compute, const float *constBias, bool hasBias) {
  Context &ctx = context();
  Impl &I = *impl;
  I.transposed = p.transposed;
  I.hasBias = hasBias;
  I.outElems = product(p.output);
  I.inElems = product(p.input);
  ConvGeometry geo = convGeometry(p);
  const Dims &w = geo.weight, &strides = p.strides, &dil = geo.dilations,
             &padL = geo.padL, &padR = geo.padR;
  int64_t outC = p.output[1];
  // Without native bf16, a bf16 convolution is an f32 one on the bf16
  // weights, widened here (an f32 input read as it is, a bf16 one widened
  // in run()).
  std::vector<float> widened;
  bool bf16OnF32 = false;
  if ((p.bf16.input || p.bf16.output) && compute != Compute::Bf16)
    throw std::invalid_argument("bf16 activations need a bf16 convolution");
  if (p.bf16.output && std::find(p.postOps.begin(), p.postOps.end(),
                                PostOp::Sum) != p.postOps.end())
    throw std::invalid_argument(
        "a convolution with a bf16 output takes no sum post-op");
  bool bf16Dst = false;
  if (compute == Compute::Bf16 && !nativeBf16()) {
    widened.resize(product(p.weight));
    bf16ToF32(static_cast<const uint16_t *>(constWeights), widened.data(),
              static_cast<int64_t>(widened.size()));
    constWeights = widened.data();
    I.input = p.bf16.input ? Impl::Input::Bf16Widen : Impl::Input::AsIs;
    bf16OnF32 = true;
    I.roundOutput = p.bf16.output;
    compute = Compute::F32;
  } else if (compute == Compute::Bf16) {
    I.input = p.bf16.input ? Impl::Input::AsIs : Impl::Input::Bf16;
    bf16Dst = p.bf16.output;
  }
  // Winograd where the tier prefers it to oneDNN's direct
  // kernels (KernelTable::winogradPreferred) or the caller asks for it.
  // What opscope's own forms (Winograd, im2col and the GEMM) need: f32 as
  // it is, constant weights and bias.
  const bool ownF32 = compute == Compute::F32 &&
                      I.input == Impl::Input::AsIs && !I.roundOutput &&
                      constWeights && (!hasBias || constBias);
  bool winograd = ownF32 && WinogradConv::applies(p);
  // Whether the post-ops read the destination (the own forms' run checks
  // that it is given).
  const bool sumPostOp = std::find(p.postOps.begin(), p.postOps.end(),
                                   PostOp::Sum) != p.postOps.end();
  bool asked = p.algorithm == ConvAlgorithm::WinogradF2x3 ||
               p.algorithm == ConvAlgorithm::WinogradF4x3;
  if (asked && !winograd)
    throw std::invalid_argument(
        "Winograd does not apply: it needs an f32 2-D 3x3 stride-1 "
        "ungrouped convolution of a channels-last input with constant "
        "weights and bias");
  // The tile: the one asked for, else Auto's size rule (0: oneDNN's
  // direct form).
  int tile = p.algorithm == ConvAlgorithm::WinogradF2x3   ? 2
             : p.algorithm == ConvAlgorithm::WinogradF4x3 ? 4
             : winograd ? WinogradConv::tileFor(p)
                        : 0;
  bool autoTakes =
      p.algorithm == ConvAlgorithm::Auto && convWinogradPreferred();
  if (winograd && tile != 0 && (asked || autoTakes)) {
    I.winograd = std::make_unique<WinogradConv>(
        p, static_cast<const float *>(constWeights),
        hasBias ? constBias : nullptr, tile);
    I.implInfo = I.winograd->name() + (bf16OnF32 ? ":f32" : "");
    I.hasSum = sumPostOp;
    return;
  }
  // im2col and the packed GEMM for few output pixels (GemmConv::pays),
  // or where asked.
  bool gemmForm = ownF32 && GemmConv::applies(p);
  bool gemmAsked = p.algorithm == ConvAlgorithm::Im2colGemm;
  if (gemmAsked && !gemmForm)
    throw std::invalid_argument(
        "im2col_gemm does not apply: it needs an f32 2-D ungrouped "
        "convolution larger than 1x1 with constant weights and bias (and a "
        "channels-last output for a sum)");
  if (gemmForm && !asked &&
      (gemmAsked ||
       (p.algorithm == ConvAlgorithm::Auto && GemmConv::pays(p)))) {
    I.gemm = std::make_unique<GemmConv>(
        p, static_cast<const float *>(constWeights),
        hasBias ? constBias : nullptr);
    I.implInfo = I.gemm->name() + (bf16OnF32 ? ":f32" : "");
    I.hasSum = sumPostOp;
    return;
  }
  dt srcType = compute == Compute::Int8   ? dt::u8
               : compute == Compute::Bf16 ? dt::bf16
                                          : dt::f32;
  dt weightType = compute == Compute::Int8 ? dt::s8 : srcType;
  int64_t padC = compute == Compute::F32
                     ? paddedChannels(p, constWeights, !hasBias || constBias)
                     : outC;
  Dims wDims = w, outDims = p.output;
  // Zero weights and bias for the extra channels (oihw: O outermost); the
  // constructor packs and copies them, so they live only as long as it.
  std::vector<float> paddedWeights, paddedBias;
  const float *biasData = constBias;
  if (padC != outC) {
    int64_t perChannel = product(w) / outC;
    paddedWeights.assign(padC * perChannel, 0.0f);
    std::memcpy(paddedWeights.data(), constWeights,
                outC * perChannel * sizeof(float));
    constWeights = paddedWeights.data();
    if (hasBias) {
      paddedBias.assign(padC, 0.0f);
      std::memcpy(paddedBias.data(), constBias, outC * sizeof(float));
      biasData = paddedBias.data();
    }
    wDims[0] = padC;
    outDims[1] = padC;
  }
  // int8: oneDNN 2.x adds the bias before the output scales (input scale x
  // the channel's weight scale), so the bias is divided by them.
  std::vector<float> outScales, scaledBias;
  if (compute == Compute::Int8) {
    I.input = p.inputU8 ? Impl::Input::AsIs : Impl::Input::U8;
    I.inputScale = p.inputScale;
    I.inputZero = p.inputZero;
    outScales.resize(outC);
    for (int64_t o = 0; o < outC; ++o)
      outScales[o] = p.inputScale * p.weightScales[o];
    if (hasBias) {
      scaledBias.resize(outC);
      for (int64_t o = 0; o < outC; ++o)
        scaledBias[o] = constBias[o] / outScales[o];
      biasData = scaledBias.data();
    }
  }
  dnnl::memory::desc wPlain(toDims(wDims), weightType, geo.plainWeightTag);
  dnnl::memory::desc wMd =
      constWeights ? dnnl::memory::desc(toDims(wDims), weightType, tag::any)
                   : wPlain;
  bool inNhwc = p.inputNhwc && p.input.size() == 4;
  bool outNhwc = p.outputNhwc && p.output.size() == 4;
  dnnl::memory::desc srcMd(toDims(p.input), srcType,
                           inNhwc ? tag::nhwc : plainTag(p.input.size()));
  U8Output u8Out;
  if (compute == Compute::Int8 && p.outputU8)
    u8Out.emplace(p.outputScale, p.outputZero);
  dt dstType = u8Out ? dt::u8 : bf16Dst ? dt::bf16 : dt::f32;
  dnnl::memory::desc dstMd(toDims(p.output), dstType,
                           outNhwc ? tag::nhwc : plainTag(p.output.size()));
  dnnl::memory::desc biasMd({padC}, dt::f32, tag::a);
  auto attrFor = [&](const dnnl::memory::desc *sumAsAdd) {
    dnnl::primitive_attr attr =
        attrWithPostOps(p.postOps, I.hasSum, u8Out, sumAsAdd);
    if (compute == Compute::Int8) {
      attr.set_output_scales(2, outScales);
      if (p.inputZero != 0)
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    }
    return attr;
  };
  auto prop = dnnl::prop_kind::forward_inference;
  // Activations in `any` layout: with plain NCHW oneDNN falls back to
  // im2col + GEMM, whose post-ops are slow (measured 7x slower on the CNN
  // corpus model); blocked layouts get the direct JIT kernels. The reorders
  // at the op's boundary cost less; along a chain of convolutions
  // (osc-conv-layout) the buffers are NHWC, the layout oneDNN's brgemm
  // kernels compute in, and are bound as they are.
  dnnl::memory::desc srcAny =
      inNhwc ? srcMd : dnnl::memory::desc(toDims(p.input), srcType, tag::any);
  dnnl::memory::desc dstAny =
      padC != outC ? dnnl::memory::desc(toDims(outDims), dt::f32, tag::nhwc)
      : outNhwc    ? dstMd
                   : dnnl::memory::desc(toDims(p.output), dstType, tag::any);
  dnnl::memory::desc chosenW, chosenSrc, chosenDst;
  // Convolution and deconvolution take the same descriptor arguments.
  auto make = [&](auto kind, const dnnl::memory::desc &srcD,
                  const dnnl::memory::desc &dstD,
                  const dnnl::memory::desc *sumAsAdd) {
    using Prim = decltype(kind);
    auto alg = p.transposed ? dnnl::algorithm::deconvolution_direct
                            : dnnl::algorithm::convolution_direct;
    auto d = hasBias ? typename Prim::desc(prop, alg, srcD, wMd, biasMd, dstD,
                                           toDims(strides), toDims(dil),
                                           toDims(padL), toDims(padR))
                     : typename Prim::desc(prop, alg, srcD, wMd, dstD,
                                           toDims(strides), toDims(dil),
                                           toDims(padL), toDims(padR));
    typename Prim::primitive_desc pd(d, attrFor(sumAsAdd), ctx.engine);
    I.prim = Prim(pd);
    I.implInfo = pd.impl_info_str();
    chosenW = pd.weights_desc();
    chosenSrc = pd.src_desc();
    chosenDst = pd.dst_desc();
  };
  auto makeAny = [&](const dnnl::memory::desc &srcD,
                     const dnnl::memory::desc &dstD,
                     const dnnl::memory::desc *sumAsAdd) {
    if (p.transposed)
      make(dnnl::deconvolution_forward(), srcD, dstD, sumAsAdd);
    else
      make(dnnl::convolution_forward(), srcD, dstD, sumAsAdd);
  };
  makeAny(srcAny, dstAny, nullptr);
  // Below AVX-512 (jit:avx2, jit_1x1, jit_dw and their SSE4.1 forms),
  // oneDNN 2.6 takes neither a plain NCHW side against a channels-last one
  // (a chain's first or last convolution) nor a sum after an element-wise
  // post-op (relu then the residual), and falls back to `ref:any`, a scalar
  // loop (200 ms for one 1x1 convolution of the OCR-like detector on an
  // avx2 cap). It takes both activations channels-last, at the speed of its
  // blocked nChw8c (docs/runtime.md), and the residual as a binary add: the
  // plain side is then reordered at the boundary, and the add reads the
  // residual from its own buffer (run() binds it).
  int sumAt = -1;
  if (isRefImplementation(I.implInfo) && p.input.size() >= 3) {
    tag last = channelsLastTag(p.input.size());
    dnnl::memory::desc srcLast(toDims(p.input), srcType, last);
    dnnl::memory::desc dstLast =
        padC != outC ? dstAny
                     : dnnl::memory::desc(toDims(p.output), dstType, last);
    auto sum = std::find(p.postOps.begin(), p.postOps.end(), PostOp::Sum);
    bool lateSum = sum != p.postOps.end() && sum != p.postOps.begin();
    makeAny(srcLast, dstLast, lateSum ? &dstLast : nullptr);
    if (lateSum)
      sumAt = dnnlPostOpIndex(p.postOps, sum - p.postOps.begin());
    // `ref` again (a shape no JIT kernel takes): the planned form, without
    // the retry's reorders.
    if (isRefImplementation(I.implInfo)) {
      makeAny(srcAny, dstAny, nullptr);
      sumAt = -1;
    }
  }
  if (bf16OnF32)
    I.implInfo += ":f32";
  I.constWeights = constWeights != nullptr;
  I.weights = constWeights
                  ? packed(wPlain, chosenW, constWeights)
                  : dnnl::memory(wPlain, ctx.engine, DNNL_MEMORY_NONE);
  I.src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
  I.dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
  if (I.input != Impl::Input::AsIs)
    I.convertedBytes = srcMd.get_size();
  dnnl::memory srcArg = I.src, dstArg = I.dst;
  if (chosenSrc != srcMd) {
    I.srcBlocked = dnnl::memory(chosenSrc, ctx.engine);
    I.srcIn = dnnl::reorder(I.src, I.srcBlocked);
    srcArg = I.srcBlocked;
  }
  if (padC != outC) {
    // The scratch is NHWC with padC channels; run() copies out the first
    // outC of each pixel (oneDNN's reorder of that strided view into NCHW
    // took 0.9 ms at 24 x 80 x 80, the 16 x 16 register transposes ~0.1).
    I.dstBlocked = dnnl::memory(chosenDst, ctx.engine);
    I.padC = padC;
    I.outC = outC;
    I.batch = p.output[0];
    I.pixels = p.output[2] * p.output[3];
    I.outNhwc = outNhwc;
    dstArg = I.dstBlocked;
    I.implInfo += ":oc" + std::to_string(outC) + "to" + std::to_string(padC);
  } else if (chosenDst != dstMd) {
    I.dstBlocked = dnnl::memory(chosenDst, ctx.engine);
    I.dstOut = dnnl::reorder(I.dstBlocked, I.dst);
    if (I.hasSum && sumAt < 0) // a sum post-op reads the destination
      I.dstIn = dnnl::reorder(I.dst, I.dstBlocked);
    dstArg = I.dstBlocked;
  }
  I.args = {{DNNL_ARG_SRC, srcArg},
            {DNNL_ARG_WEIGHTS, I.weights},
            {DNNL_ARG_DST, dstArg}};
  if (sumAt >= 0) {
    I.sumAsAdd = true;
    I.addend = dnnl::memory(chosenDst, ctx.engine, DNNL_MEMORY_NONE);
    I.addendFloats = chosenDst.get_size() / sizeof(float);
    if (chosenDst != dstMd) {
      I.residual = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
      I.addendIn = dnnl::reorder(I.residual, I.addend);
      I.addendCopy.resize(I.addendFloats); // every run reorders into it
    }
    I.args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(sumAt) | DNNL_ARG_SRC_1] = I.addend;
  }
  if (compute == Compute::Int8 && p.inputZero != 0) {
    I.zero = dnnl::memory({{1}, dt::s32, tag::a}, ctx.engine, &I.inputZero);
    I.args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = I.zero;
  }
  if (hasBias) {
    I.bias = biasData ? dnnl::memory(biasMd, ctx.engine)
                      : dnnl::memory(biasMd, ctx.engine, DNNL_MEMORY_NONE);
    if (biasData)
      std::memcpy(I.bias.get_data_handle(), biasData, padC * sizeof(float));
    I.args[DNNL_ARG_BIAS] = I.bias;
  }
  I.biasPerRun = hasBias && !constBias;
}

Conv::~Conv() = default;

namespace {
/// The first `outC` of the `padC` channels of each pixel of an NHWC
/// scratch, into NHWC or NCHW.
void copyPaddedChannels(const float *scratch, int64_t batch, int64_t pixels,
                        int64_t padC, int64_t outC, bool nhwc, float *y) {
  auto transpose32 = kernelTable().transpose32;
  for (int64_t n = 0; n < batch; ++n) {
    const float *src = scratch + n * pixels * padC;
    float *dst = y + n * pixels * outC;
    if (nhwc)
      sparse_rows::copy32(src, padC, pixels, outC, dst, outC);
    else
      transpose32(src, padC, pixels, outC, dst, pixels);
  }
}
} // namespace

void Conv::run(const void *x, const float *weights, const float *bias,
               void *yOut, const float *sum) {
  if (impl->asF32) {
    // The int8 input's values (a u8 input dequantized; an f32 one rounded
    // to the input's quantization grid), the f32 product, and a u8 output
    // quantized after it.
    const ConvParams &q = impl->q;
    auto *xf = static_cast<float *>(threadScratch(1, impl->inElems * 4));
    const uint8_t *xu8 = static_cast<const uint8_t *>(x);
    if (!q.inputU8) {
      auto *xq = static_cast<uint8_t *>(threadScratch(0, impl->inElems));
      quantizeU8(static_cast<const float *>(x), xq, impl->inElems,
                 q.inputScale, q.inputZero);
      xu8 = xq;
    }
    for (int64_t i = 0; i < impl->inElems; ++i)
      xf[i] = float(int32_t(xu8[i]) - q.inputZero) * q.inputScale;
    float *yf = q.outputU8 ? static_cast<float *>(threadScratch(
                                 2, impl->outElems * 4))
                           : static_cast<float *>(yOut);
    impl->asF32->run(xf, weights, bias, yf, sum);
    if (q.outputU8)
      quantizeU8(yf, static_cast<uint8_t *>(yOut), impl->outElems,
                 q.outputScale, q.outputZero);
    return;
  }
  if (impl->winograd || impl->gemm) {
    if (!sum && impl->hasSum)
      throw std::invalid_argument("a convolution with a sum post-op needs "
                                  "its sum input");
    if (impl->winograd)
      impl->winograd->run(static_cast<const float *>(x),
                          static_cast<float *>(yOut), sum);
    else
      impl->gemm->run(static_cast<const float *>(x),
                      static_cast<float *>(yOut), sum);
    return;
  }
  Context &ctx = context();
  // A bf16 output on f32 kernels is computed in f32 first.
  void *y = impl->roundOutput
                ? threadScratch(2, impl->outElems * sizeof(float))
                : yOut;
  bool blockedDst = bool(impl->dstBlocked);
  if (impl->sumAsAdd) {
    Impl &I = *impl;
    if (sum == y && I.addendCopy.empty())
      I.addendCopy.resize(I.addendFloats);
    void *copy = I.addendCopy.data();
    if (I.addendIn) {
      I.residual.set_data_handle(const_cast<float *>(sum));
      I.addend.set_data_handle(copy);
      I.addendIn.execute(ctx.stream, I.residual, I.addend);
    } else if (sum == y) {
      std::memcpy(copy, sum, I.addendFloats * sizeof(float));
      I.addend.set_data_handle(copy);
    } else {
      I.addend.set_data_handle(const_cast<float *>(sum));
    }
  } else if (impl->hasSum && sum != y)
    std::memcpy(y, sum, impl->outElems * sizeof(float));
  void *converted = nullptr;
  if (impl->input != Impl::Input::AsIs) {
    converted = threadScratch(0, impl->convertedBytes);
    impl->src.set_data_handle(converted);
  }
  const auto *xf = static_cast<const float *>(x);
  switch (impl->input) {
  case Impl::Input::AsIs:
    impl->src.set_data_handle(const_cast<void *>(x));
    break;
  case Impl::Input::Bf16:
    roundToBf16(xf, static_cast<uint16_t *>(converted), impl->inElems);
    break;
  case Impl::Input::Bf16Widen:
    bf16ToF32(static_cast<const uint16_t *>(x), static_cast<float *>(converted),
              impl->inElems);
    break;
  case Impl::Input::U8:
    quantizeU8(xf, static_cast<uint8_t *>(converted), impl->inElems,
               impl->inputScale, impl->inputZero);
    break;
  }
  impl->dst.set_data_handle(y);
  if (!impl->constWeights)
    impl->weights.set_data_handle(const_cast<float *>(weights));
  if (impl->biasPerRun)
    impl->bias.set_data_handle(const_cast<float *>(bias));
  if (impl->srcBlocked)
    impl->srcIn.execute(ctx.stream, impl->src, impl->srcBlocked);
  if (blockedDst && impl->hasSum && !impl->sumAsAdd) // sum reads the dst
    impl->dstIn.execute(ctx.stream, impl->dst, impl->dstBlocked);
  impl->prim.execute(ctx.stream, impl->args);
  if (impl->padC) {
    ctx.stream.wait();
    copyPaddedChannels(
        static_cast<const float *>(impl->dstBlocked.get_data_handle()),
        impl->batch, impl->pixels, impl->padC, impl->outC, impl->outNhwc, static_cast<float *>(y));
  } else {
    if (blockedDst)
      impl->dstOut.execute(ctx.stream, impl->dstBlocked, impl->dst);
    ctx.stream.wait();
  }
  if (y != yOut)
    roundToBf16(static_cast<const float *>(y), static_cast<uint16_t *>(yOut),
                impl->outElems);
}

std::string Conv::implementation() const { return impl->implInfo; }

bool Conv::ownKernel() const { return impl->winograd || impl->gemm; }

bool opscope::rt::convWinogradPreferred() {
  return kernelTable().winogradPreferred;
}

//===----------------------------------------------------------------------===//
// Pool
//===----------------------------------------------------------------------===//

struct Pool::Impl {
  dnnl::pooling_v2_forward::primitive_desc pd;
  dnnl::pooling_v2_forward prim;
  dnnl::memory src, dst;
  std::unordered_map<int, dnnl::memory> args;
  /// Average pooling counting explicit padding but not the ceil-mode
  /// overhang (ONNX and PyTorch): the input is zero-padded into `padded`
  /// and pooled excluding the remaining (overhang) padding.
  bool prepad = false;
  Dims inputDims, paddedDims, fullPads;
  std::vector<float> padded;
};

Pool::Pool(const PoolParams &p) : impl(std::make_unique<Impl>()) {
  Context &ctx = context();
  size_t spatial = p.input.size() - 2;
  Dims dil(spatial), padL(spatial), padR(spatial);
  bool overhang = false;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t k = (p.kernel[i] - 1) * p.dilations[i] + 1;
    dil[i] = p.dilations[i] - 1;
    padL[i] = p.pads[i];
    padR[i] = (p.output[2 + i] - 1) * p.strides[i] + k - padL[i] -
              p.input[2 + i];
    overhang |= padR[i] > p.pads[spatial + i];
  }
  Dims src = p.input;
  bool anyPad = std::any_of(p.pads.begin(), p.pads.end(),
                            [](int64_t v) { return v != 0; });
  // With an overhang, oneDNN's include-padding would count it too: pool
  // excluding padding instead, after materialising the explicit padding.
  bool excludeOverhang = !p.isMax && p.countIncludePad && overhang;
  impl->prepad = excludeOverhang && anyPad;
  if (impl->prepad) {
    impl->inputDims = p.input;
    impl->fullPads.assign(2 * p.input.size(), 0);
    for (size_t i = 0; i < spatial; ++i) {
      impl->fullPads[2 + i] = p.pads[i];
      impl->fullPads[p.input.size() + 2 + i] = p.pads[spatial + i];
      src[2 + i] += p.pads[i] + p.pads[spatial + i];
      padR[i] -= p.pads[spatial + i];
      padL[i] = 0;
    }
    impl->paddedDims = src;
    impl->padded.assign(product(src), 0.0f);
    if (p.nhwc && src.size() == 4) {
      // Channels-last buffers: pad them in memory order (N, H, W, C).
      auto toNhwc = [](const Dims &d) { return Dims{d[0], d[2], d[3], d[1]}; };
      Dims f = impl->fullPads;
      impl->fullPads = {f[0], f[2], f[3], f[1], f[4], f[6], f[7], f[5]};
      impl->inputDims = toNhwc(impl->inputDims);
      impl->paddedDims = toNhwc(impl->paddedDims);
    }
  }
  auto alg = p.isMax ? dnnl::algorithm::pooling_max
             : p.countIncludePad && !excludeOverhang
                 ? dnnl::algorithm::pooling_avg_include_padding
                 : dnnl::algorithm::pooling_avg_exclude_padding;
  bool nhwc = p.nhwc && src.size() == 4;
  dnnl::memory::desc srcMd(toDims(src), dt::f32,
                           nhwc ? tag::nhwc : plainTag(src.size()));
  dnnl::memory::desc dstMd(toDims(p.output), dt::f32,
                           nhwc ? tag::nhwc : plainTag(p.output.size()));
  dnnl::pooling_v2_forward::desc d(
      dnnl::prop_kind::forward_inference, alg, srcMd, dstMd, toDims(p.strides),
      toDims(p.kernel), toDims(dil), toDims(padL), toDims(padR));
  impl->pd = dnnl::pooling_v2_forward::primitive_desc(d, ctx.engine);
  impl->prim = dnnl::pooling_v2_forward(impl->pd);
  impl->src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->args = {{DNNL_ARG_SRC, impl->src}, {DNNL_ARG_DST, impl->dst}};
}

Pool::~Pool() = default;

void Pool::run(const float *x, float *y) {
  Context &ctx = context();
  if (impl->prepad) {
    pad(PadMode::Constant, DType::F32, x, impl->inputDims, impl->fullPads, 0.0,
        impl->padded.data(), impl->paddedDims);
    x = impl->padded.data();
  }
  impl->src.set_data_handle(const_cast<float *>(x));
  impl->dst.set_data_handle(y);
  impl->prim.execute(ctx.stream, impl->args);
  ctx.stream.wait();
}

std::string Pool::implementation() const { return impl->pd.impl_info_str(); }
