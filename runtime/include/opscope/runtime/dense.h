//===- dense.h - oneDNN-backed dense kernels --------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). Dense compute goes through
// oneDNN, which picks AMX, AVX-512 BF16/VNNI or AVX2 at run time. Every
// primitive is created, and its weights reordered into oneDNN's preferred
// (blocked) layout, once when the kernel is constructed; run() only binds
// pointers and executes.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_DENSE_H
#define OPSCOPE_RUNTIME_DENSE_H

#include "opscope/runtime/kinds.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opscope::rt {

// Post-operations (PostOp, kinds.h) apply in the order given.

/// Whether an implementation() string names oneDNN's reference
/// implementation (`ref:any`, scalar loops), which the kernels avoid.
inline bool isRefImplementation(const std::string &implementation) {
  return implementation.rfind("ref", 0) == 0;
}

/// Which GEMM an f32 inner product runs on. The compiled model's bindings
/// leave Auto; tests and benchmarks name oneDNN's to compare the two.
enum class InnerProductGemm : uint8_t {
  /// opscope's packed GEMM where the kernel table has one (the AVX2 tier:
  /// on weights streamed from memory oneDNN 2.6's AVX2 inner product ran
  /// 14-30% slower at M = 128, 70% at M = 16, as fast at M = 512,
  /// docs/runtime-kernels.md) and 2 <= M <= 384, oneDNN's inner product
  /// otherwise.
  Auto,
  OneDnn, ///< oneDNN's inner-product primitive
};

/// y[M x N] = post_ops(x[M x K] * W^T + b), W given as N x K (row-major),
/// as osc.inner_product holds it.
class InnerProduct {
public:
  /// Builds the primitive and packs `weights` (N x K, copied). `bias` (N) is
  /// copied too; either may be released by the caller afterwards.
  InnerProduct(int64_t m, int64_t k, int64_t n, const float *weights,
               const float *bias, std::vector<PostOp> postOps,
               InnerProductGemm gemm = InnerProductGemm::Auto);
  ~InnerProduct();
  InnerProduct(const InnerProduct &) = delete;
  InnerProduct &operator=(const InnerProduct &) = delete;

  /// Runs on `x` (M x K) into `y` (M x N). With a Sum post-op, `sum` (M x N)
  /// is added; it may alias `y`.
  void run(const float *x, float *y, const float *sum = nullptr);

  /// oneDNN's implementation name (e.g. `brgemm:avx512_core`), or
  /// opscope's packed GEMM's (`gemm:avx2`) where ownKernel(), for reports.
  std::string implementation() const;
  bool ownKernel() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The same product on oneDNN's matmul primitive (x[M x K] by W^T, the N x
/// K weight read as K x N) with bias and post-ops: on some shapes and CPUs
/// it is faster than the inner-product primitive: `opscope-tune` measures
/// both (`dense_kernel = "matmul"` in the plan), and the AMX tier takes it
/// by default (innerProductOnMatMul()).
class MatMulInnerProduct {
public:
  MatMulInnerProduct(int64_t m, int64_t k, int64_t n, const float *weights,
                     const float *bias, std::vector<PostOp> postOps);
  ~MatMulInnerProduct();
  MatMulInnerProduct(const MatMulInnerProduct &) = delete;
  MatMulInnerProduct &operator=(const MatMulInnerProduct &) = delete;
  void run(const float *x, float *y, const float *sum = nullptr);
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// int8 inner product: y[M x N] (f32) = post_ops(xScale * wScale[n] *
/// ((x[M x K] (u8) - xZero) * Wq^T) + b), with W quantized per output row,
/// symmetric to [-127, 127]. oneDNN picks AMX, AVX512-VNNI or AVX2; the
/// zero point is folded into the bias (- xZero * sum_k Wq[n, k]).
class QuantizedInnerProduct {
public:
  /// Quantizes f32 `weights` (N x K) at construction.
  QuantizedInnerProduct(int64_t m, int64_t k, int64_t n, const float *weights,
                        const float *bias, std::vector<PostOp> postOps);
  /// From weights quantized at compile time (`--precision int8`): s8 N x K
  /// with per-row scales. With `u8Output` (scale, zero point: an int8
  /// chain's hand-over, osc-int8-chains) the output is written in u8,
  /// round(y / scale) + zero point saturated, after the bias and post-ops
  /// (no sum post-op then), and runs through runU8Out.
  QuantizedInnerProduct(
      int64_t m, int64_t k, int64_t n, const int8_t *s8Weights,
      const float *rowScales, const float *bias, std::vector<PostOp> postOps,
      std::optional<std::pair<float, int32_t>> u8Output = std::nullopt);
  ~QuantizedInnerProduct();
  QuantizedInnerProduct(const QuantizedInnerProduct &) = delete;
  QuantizedInnerProduct &operator=(const QuantizedInnerProduct &) = delete;

  void run(const uint8_t *x, float xScale, float *y,
           const float *sum = nullptr) {
    run(x, xScale, 0, y, sum);
  }
  void run(const uint8_t *x, float xScale, int32_t xZero, float *y,
           const float *sum = nullptr);
  /// f32 input, quantized to u8 on entry (quantizeU8) into a buffer the
  /// object owns.
  void run(const float *x, float xScale, int32_t xZero, float *y,
           const float *sum = nullptr);
  /// u8 in, u8 out (built with `u8Output`).
  void runU8Out(const uint8_t *x, float xScale, int32_t xZero, uint8_t *y);
  /// `x` (M x K) quantized to u8 into a buffer the object owns (for
  /// runU8Out on an f32 input: the first op of an int8 chain).
  const uint8_t *quantized(const float *x, float xScale, int32_t xZero);
  std::string implementation() const;
  /// Whether it runs on opscope's own kernel (the exact int8 GEMM:
  /// int8InnerProductOnOwnGemm) rather than oneDNN's.
  bool ownKernel() const;
  /// The per-row weight scales.
  const std::vector<float> &weightScales() const;

private:
  void runAny(const uint8_t *x, float xScale, int32_t xZero, void *y,
              const float *sum);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// ONNX MatMulInteger with a constant right operand, the linear layers of
/// ONNX Runtime's quantize_dynamic exports: y[M x N] (s32) = sum_k (a[m, k]
/// - aZero) (b[k, n] - bZero[n]), exactly (wrapping as s32 does), `a` u8 or
/// s8 with a run-time zero point (DynamicQuantizeLinear's), `b` (K x N) u8
/// or s8 with constant zero points. Both reduce to u8 x s8 (an s8 `a` plus
/// 128, a u8 `b` minus 128, the zero points moved with them), and
/// sum_k (a - az)(b - bz) = sum_k a b - az colsum(b) - bz (rowsum(a) - K az):
/// the column sums are taken once here, the products run on the tier's
/// exact int8 GEMM (PackedGemmInt8: the s16 form on the AVX2 tier and
/// AVX-512 below VNNI, vpdpbusd on avx2_vnni, any M in blocks of 384 rows),
/// or on oneDNN's int8 inner product with an s32 output where the table has
/// no such tile (exact from VNNI up; below, with weights that would
/// saturate it, in two 7-bit halves as QuantizedInnerProduct does), and
/// the correction is added as the sums leave the GEMM.
class IntegerMatMul {
public:
  /// `b` (K x N, s8 when `bSigned`, else u8) is copied and packed;
  /// `bZero` (b's type) has `bZeroCount` values, 1 or N (null: 0).
  IntegerMatMul(int64_t m, int64_t k, int64_t n, bool aSigned, const void *b,
                bool bSigned, const void *bZero, int64_t bZeroCount);
  ~IntegerMatMul();
  IntegerMatMul(const IntegerMatMul &) = delete;
  IntegerMatMul &operator=(const IntegerMatMul &) = delete;
  /// `a` (M x K) of the constructor's type; `aZero` of a's type with
  /// `aZeroCount` values, 1 or M (null: 0).
  void run(const void *a, const void *aZero, int64_t aZeroCount, int32_t *y);
  /// "gemm:s16:avx2", "gemm:u8s8:avx2_vnni", or oneDNN's implementation
  /// name (":s8w7x2" after it for the halves).
  std::string implementation() const;
  /// Whether it runs on PackedGemmInt8 rather than oneDNN.
  bool ownKernel() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Which activation buffers of a bf16 op are bf16 (a bf16 chain's
/// hand-overs, osc-bf16-chains); the others are f32.
struct Bf16Activations {
  bool input = false, output = false;
};

/// bf16 inner product: y[M x N] (f32) = post_ops(x[M x K] (bf16) * W^T + b)
/// with W rounded to bf16 at construction; f32 accumulation. oneDNN picks
/// AMX or AVX512-BF16; on CPUs without either (nativeBf16(), kernels.h) the
/// product runs as an f32 InnerProduct (oneDNN's, or opscope's GEMM on the
/// AVX2 tier) over the bf16-rounded weights and the f32 input as it is (a
/// bf16 input widened): bf16's weights at f32's speed (oneDNN's bf16
/// emulation is ~3x slower than f32; rounding the input too cost 3.6% more
/// than f32), and implementation() ends in `:f32`.
class Bf16InnerProduct {
public:
  /// From f32 weights, rounded to bf16 here.
  Bf16InnerProduct(int64_t m, int64_t k, int64_t n, const float *weights,
                   const float *bias, std::vector<PostOp> postOps,
                   Bf16Activations io = {});
  /// From weights already in bf16 (N x K), as `--precision bf16` stores them.
  /// `io` (a bf16 chain's hand-overs, osc-bf16-chains): a bf16 input is
  /// read as it is; a bf16 output is written rounded to nearest even after
  /// the bias and post-ops (no sum post-op then). Such an inner product
  /// runs through runRaw.
  Bf16InnerProduct(int64_t m, int64_t k, int64_t n,
                   const uint16_t *bf16Weights, const float *bias,
                   std::vector<PostOp> postOps, Bf16Activations io = {});
  ~Bf16InnerProduct();
  Bf16InnerProduct(const Bf16InnerProduct &) = delete;
  Bf16InnerProduct &operator=(const Bf16InnerProduct &) = delete;
  /// f32 input and output: the input rounded to bf16 into a buffer the
  /// object owns.
  void run(const float *x, float *y, const float *sum = nullptr);
  /// x and y f32 or bf16 as the constructor's `io` says.
  void runRaw(const void *x, void *y, const float *sum = nullptr);
  std::string implementation() const;
  /// Without native bf16 on the AVX2 tier: the f32 product runs on
  /// opscope's packed GEMM (InnerProduct).
  bool ownKernel() const;

private:
  void build(int64_t m, int64_t k, int64_t n, const void *weights,
             bool weightsBf16, const float *bias, std::vector<PostOp> postOps,
             Bf16Activations io);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

using Dims = std::vector<int64_t>;

/// Which of a matmul's buffers are bf16 (MatMul's `bf16Io`).
struct MatMulBf16Io {
  bool a = false, b = false, c = false;
};

/// Batched matrix product c = scale * op(a) * op(b) with numpy broadcasting of
/// the batch dimensions (oneDNN matmul). Shapes are the stored ones (before
/// the transposes); a rank-1 lhs is a row, a rank-1 rhs a column. When `b` is
/// constant (`constB`) it is packed once at construction.
class MatMul {
public:
  /// With `bf16`, both operands are rounded to bf16 on every run (into
  /// buffers the object owns; a constant `b` once) and oneDNN's bf16 matmul
  /// accumulates in f32; without native bf16 (nativeBf16()) the f32
  /// matmul runs on f32 operands as they are and a constant `b` (weights)
  /// rounded once (implementation() ends in `:f32`). With `int8`, both are quantized on every run from their
  /// ranges then (dynamic, per tensor): `a` to u8 with a zero point, `b`
  /// symmetrically to s8 (a constant `b` once); oneDNN's int8 matmul
  /// accumulates in int32 and scales to f32.
  ///
  /// `bf16Io` (with `bf16` only; a bf16 chain's hand-overs,
  /// osc-bf16-chains): which of a, b and c are bf16 buffers. A bf16 operand
  /// is read as it is instead of being rounded; a bf16 c is written rounded
  /// to nearest even. Such a matmul runs through runRaw.
  using Bf16Io = MatMulBf16Io;
  MatMul(const Dims &aShape, const Dims &bShape, const Dims &cShape,
         bool transposeA, bool transposeB, float scale,
         const float *constB = nullptr, bool bf16 = false, bool int8 = false,
         Bf16Io bf16Io = {});
  ~MatMul();
  MatMul(const MatMul &) = delete;
  MatMul &operator=(const MatMul &) = delete;
  void run(const float *a, const float *b, float *c);
  /// Each operand f32 or bf16 as the constructor's `bf16Io` says.
  void runRaw(const void *a, const void *b, void *c);
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// How a Conv computes. The compiled model's bindings leave Auto; tests
/// and benchmarks name a form to compare them.
enum class ConvAlgorithm : uint8_t {
  /// Winograd where it applies, the kernel table prefers it (the AVX2 and
  /// AVX-512 tiers) and its transformed weights stay within a few MiB,
  /// oneDNN's direct convolution otherwise.
  Auto,
  Direct, ///< oneDNN's
  /// Winograd on the table's kernels with 2x2 (4x4) output tiles; throws
  /// where it does not apply (f32, 2-D 3x3 stride 1, one group, an NHWC
  /// input, constant weights and bias).
  WinogradF2x3,
  WinogradF4x3,
  /// The input's patches as rows (im2col) times the weights on opscope's
  /// packed GEMM; throws where it does not apply (f32, 2-D, one group, a
  /// kernel larger than 1x1, constant weights and bias, a sum only with
  /// an NHWC output). Auto takes it for few output pixels
  /// where the inner products run on that GEMM (the AVX2 tier).
  Im2colGemm,
};

/// Whether ConvAlgorithm::Auto takes Winograd, where it applies, at the
/// kernel tier in force.
bool convWinogradPreferred();

/// Whether an f32 inner product whose plan names no primitive runs on
/// MatMulInnerProduct at the kernel tier in force (the AMX tier;
/// docs/tuning.md).
bool innerProductOnMatMul();

/// Whether an f32 InnerProduct of `m` rows left to InnerProductGemm::Auto
/// runs on opscope's packed GEMM at the kernel tier in force (the AVX2
/// tier, 2 <= m <= 384).
bool innerProductOnOwnGemm(int64_t m);
/// Whether a QuantizedInnerProduct of `m` rows and depth `k` runs on
/// opscope's exact int8 GEMM at the kernel tier in force (2 <= m <= 384, k
/// <= 65793): the s16 form on the avx2 tier and AVX-512 below VNNI, for
/// 8-bit weights that would saturate oneDNN's int8 kernels (else split in
/// two 7-bit halves on oneDNN's); the vpdpbusd form on avx2_vnni, for every
/// int8 weight.
bool int8InnerProductOnOwnGemm(int64_t m, int64_t k);
/// GFLOP/s of the packed f32 GEMM's register tile at the kernel tier in
/// force (KernelTable::gemmTile: the AVX2 tier's 6 x 16) on one thread
/// with its operands in L1: one row tile's 128-step K block against one
/// panel, added into the same outputs, over and over for `seconds`. What
/// the GEMM's loops could reach at most, against the core's FMA peak
/// (`opscope-analyze --calibrate`); 0 where the tier has no such tile.
double gemmTileGflops(double seconds);

/// Convolution or transposed convolution over N x C x spatial (1-3 dims), as
/// osc.conv / osc.conv_transpose hold them: weights O x I/g x k... (conv) or
/// I x O/g x k... (transposed), ONNX pads [begin..., end...], dilations >= 1.
/// Constant weights are packed into oneDNN's layout once; a non-constant
/// weight (a model input) is read in place on every run.
struct ConvParams {
  Dims input, weight, output;
  Dims strides, pads, dilations;
  int64_t groups = 1;
  bool transposed = false;
  std::vector<PostOp> postOps;
  /// The input / output buffers hold 2-D activations channels-last (NHWC
  /// in memory; `input`/`output` stay NCHW), as osc-conv-layout decided; a
  /// sum input is in the output's layout.
  bool inputNhwc = false, outputNhwc = false;
  /// int8 (the i8-weight constructor): the f32 input is quantized to u8
  /// on entry, x ~= inputScale * (u8 - inputZero) (padding contributes
  /// nothing); the weight's scale per output channel.
  float inputScale = 1.0f;
  int32_t inputZero = 0;
  std::vector<float> weightScales;
  /// int8 chains: the input buffer is u8 already (quantized with
  /// inputScale / inputZero by the convolution before); the output is
  /// written u8, quantized with outputScale / outputZero after the bias and
  /// post-ops (no sum post-op then).
  bool inputU8 = false, outputU8 = false;
  float outputScale = 1.0f;
  int32_t outputZero = 0;
  /// bf16 chains (the bf16-weight constructor; osc-bf16-chains): the input
  /// buffer is bf16 already and read as it is; the output is written in
  /// bf16, rounded to nearest even after the bias and post-ops (no sum
  /// post-op then).
  Bf16Activations bf16;
  ConvAlgorithm algorithm = ConvAlgorithm::Auto;
};
/// Convolution with f32 input and output. The weight's type sets what it
/// computes in: f32; bf16 (the input rounded to bf16 on entry, f32
/// accumulation; on CPUs without native bf16, nativeBf16(), oneDNN's f32
/// kernels on the bf16 weights and the f32 input as it is,
/// implementation() ending in `:f32`);
/// int8 (u8 input x s8 weight, s32 accumulation, per-channel output scales,
/// f32 bias, post-ops and output).
class Conv {
public:
  Conv(const ConvParams &p, const float *constWeights, const float *constBias,
       bool hasBias);
  /// Constant bf16 weights (`--precision bf16`).
  Conv(const ConvParams &p, const uint16_t *bf16Weights, const float *bias,
       bool hasBias);
  /// Constant s8 weights with p.weightScales (`--precision int8`, QDQ).
  Conv(const ConvParams &p, const int8_t *s8Weights, const float *bias,
       bool hasBias);
  ~Conv();
  Conv(const Conv &) = delete;
  Conv &operator=(const Conv &) = delete;
  /// `weights`/`bias` are used when they were not constant at construction.
  /// `x` and `y` are f32, or u8 where ConvParams says so.
  void run(const void *x, const float *weights, const float *bias, void *y,
           const float *sum = nullptr);
  /// oneDNN's implementation name, or opscope's own kernel's
  /// ("winograd_f4x3:avx2") where ownKernel().
  std::string implementation() const;
  bool ownKernel() const;

private:
  enum class Compute { F32, Bf16, Int8 };
  void build(const ConvParams &p, const void *constWeights, Compute compute,
             const float *constBias, bool hasBias);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// u8/i8 x s8 convolution, i32 result, with a per-tensor input zero point
/// given at run time (padding contributes nothing): conv_integer on
/// oneDNN's int8 kernels. `weights` is the constant weight (OC x C/groups x
/// kernel...) with its zero point already subtracted, packed at
/// construction (not kept); `p` as for Conv (not transposed, no post-ops).
/// Throws when oneDNN has no such primitive.
class IntegerConv {
public:
  IntegerConv(const ConvParams &p, bool srcSigned, const int8_t *weights);
  /// A centered weight (w - w_zero_point, up to 9 bits: a u8 weight with
  /// its own zero point) as two parts within the tier's int8 weight limit
  /// L (int8WeightLimit), each a convolution whose exact i32 results are
  /// summed: clamp(w, -L, L) and the rest where |w| <= 2L, else the digits
  /// of w in base L + 1 (w = lo + (L + 1) hi, 0 <= lo <= L; 9 bits: |hi| <= 4):
  /// two convolutions where clamping needed up to four. Throws where oneDNN
  /// has no primitive or |w| > L (L + 1).
  /// Where the tier has the exact s16 GEMM tile (below VNNI) and the
  /// convolution is 2-D of one group, it runs on that instead, in one pass
  /// (ownKernel()).
  IntegerConv(const ConvParams &p, bool srcSigned, const int32_t *centered);
  ~IntegerConv();
  IntegerConv(const IntegerConv &) = delete;
  IntegerConv &operator=(const IntegerConv &) = delete;
  void run(const void *x, int32_t xZero, int32_t *y);
  /// oneDNN's implementation ("...:x2" for two parts), or opscope's own
  /// ("gemm:s16:avx2").
  std::string implementation() const;
  /// Whether it runs on opscope's own GEMM.
  bool ownKernel() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Max or average pooling over N x C x spatial. `pads` is [begin..., end...];
/// the end padding is widened as needed to produce `output` (ceil mode).
struct PoolParams {
  Dims input, output, kernel, strides, pads, dilations;
  bool isMax = true;
  bool countIncludePad = false;
  /// 2-D pooling of buffers held channels-last (osc-conv-layout).
  bool nhwc = false;
};
class Pool {
public:
  explicit Pool(const PoolParams &p);
  ~Pool();
  Pool(const Pool &) = delete;
  Pool &operator=(const Pool &) = delete;
  void run(const float *x, float *y);
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Sets the number of threads oneDNN primitives use (OpenMP).
void setDenseThreads(int threads);

/// The version of the oneDNN library loaded at run time, `3.0.0`
/// (dnnl_version(); kernel timings are keyed by it).
std::string denseLibraryVersion();

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_DENSE_H
