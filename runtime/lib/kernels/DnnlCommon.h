//===- DnnlCommon.h - what the oneDNN kernels share --------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). The engine and stream, post-op
// attributes, layout helpers, weight packing and conversion scratch of the
// oneDNN-backed kernels (Dense.cpp, DenseMatMul.cpp, DenseConv.cpp,
// DnnlRecurrent.cpp), defined in DnnlCommon.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_DNNLCOMMON_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_DNNLCOMMON_H

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscope::rt::dnnlx {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

/// One CPU engine and stream per process; primitives are created against it.
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
/// The process's context (applies OPSCOPE_MAX_ISA before the first
/// primitive).
Context &context();

/// A u8 output's quantization (scale, zero point): an int8 chain's
/// hand-over (osc-int8-chains).
using U8Output = std::optional<std::pair<float, int32_t>>;

/// Where our post-op `i` sits in attrWithPostOps' oneDNN chain (a
/// binary post-op's argument index): hard_sigmoid is two oneDNN post-ops.
int dnnlPostOpIndex(const std::vector<PostOp> &postOps, size_t i);

/// Throws std::invalid_argument unless a u8 output (if any) has a positive
/// scale, a zero point in [0, 255] and no sum post-op before it.
void checkU8Output(const U8Output &u8Out, const std::vector<PostOp> &postOps);

/// Post-ops as oneDNN attributes; `hasSum` says whether a sum is among them.
/// With `u8Out`, a last eltwise-linear post-op quantizes the result (y /
/// scale + zero point, then oneDNN's rounding to nearest even and
/// saturation to u8); throws std::invalid_argument unless the scale is
/// positive, the zero point in [0, 255] and there is no sum post-op.
/// With `sumAsAdd`, the sum is a binary add of a separate tensor of that
/// descriptor instead, the residual (the kernels below AVX-512 take a sum
/// only as the first post-op, a binary add anywhere).
dnnl::primitive_attr
attrWithPostOps(const std::vector<PostOp> &postOps, bool &hasSum,
                U8Output u8Out = {},
                const dnnl::memory::desc *sumAsAdd = nullptr);

/// Whether oneDNN's int8 kernels could saturate on these n s8 weights at
/// the tier in force: without VNNI (int8SaturationFree()) a weight
/// beyond int8WeightLimit() lets a pair of u8 x s8 products overflow
/// vpmaddubsw's 16 bits; from VNNI up every s8 value, -128 included, is
/// exact (docs/precision.md, int8 without VNNI).
inline bool int8WeightsSaturate(const int8_t *w, int64_t n) {
  if (int8SaturationFree())
    return false;
  const int limit = int8WeightLimit();
  return !std::all_of(w, w + n, [&](int8_t v) { return std::abs(v) <= limit; });
}

/// Per-thread conversion scratch (the rounded, widened or quantized copy of
/// an operand, or an f32 result rounded afterwards), shared by every
/// kernel object a thread runs: ops run one at a time, and a kernel uses
/// its slots only inside its run. Slot `slot` (0-4) holds at least `bytes`,
/// 64-byte aligned; it grows when a larger op first needs it and is never
/// given back to the system. PackedGemm takes slot 1 for its packed input
/// and, on each thread of its parallel region, slot 3 for its partial sums
/// (and PackedGemmInt8 slot 4 for its widened input rows); IntegerConvGemm
/// slots 0, 1 and 3 on each thread for a task's window, panels and sums;
/// GemmConv slot 0 for its patches, 2 for channels-first output rows and
/// 4 for a channels-first input made channels-last.
void *threadScratch(int slot, size_t bytes);

dnnl::memory::dims toDims(const Dims &d);
/// Plain (row-major) layout tag for an activation of the given rank.
tag plainTag(size_t rank);
/// Channels-last layout tag (nwc, nhwc, ndhwc) for an activation of rank
/// 3 to 5.
tag channelsLastTag(size_t rank);
int64_t product(const Dims &d);

/// oneDNN's view of a convolution (conv, conv_transpose, conv_integer):
/// the weight dims ([g,] O/g, I/g, k...) and the plain tag of osc's weight
/// layout, dilations as oneDNN counts them (minus one), begin pads and the
/// end pads that yield the planned output.
struct ConvGeometry {
  Dims weight, dilations, padL, padR;
  tag plainWeightTag = tag::undef;
};
ConvGeometry convGeometry(const ConvParams &p);

/// Reorders constant `data` (described by `plainMd`) into a new memory of
/// `md`. When `data` lies in the weights of the model whose session is
/// being created (packed_weights.h), the packed memory is shared with that
/// model's other sessions: made once, then handed out again.
dnnl::memory packed(const dnnl::memory::desc &plainMd,
                    const dnnl::memory::desc &md, const void *data);

} // namespace opscope::rt::dnnlx

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_DNNLCOMMON_H
