//===- KernelTable.h - opscope's own kernels, one table per tier -*- C++ -*-===//
//
// Part of opscope's runtime (internal). Every kernel of opscope's own that
// has more than one implementation is reached through this table, filled
// once per process (and again when a test or benchmark calls
// setKernelTier): the reference forms first, then each tier the CPU has,
// within OPSCOPE_MAX_ISA, overwrites the entries it implements (MLAS's
// platform table, XNNPACK's configs). The tier comes from cpu.h, the one
// place that reads the CPU.
//
// Adding a tier for a kernel is one file in the tier's folder
// (x86_64/avx2/, x86_64/avx512/, or a new one) and one assignment in its
// fill function. Intrinsics live only in those folders, which are compiled
// only for x86-64; each function carries its target attribute, so the
// library still runs on any x86-64 and the choice is made at run time.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_KERNELTABLE_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_KERNELTABLE_H

#include "SparseRows.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/kinds.h"

#include <cstdint>

namespace opscope::rt {

/// One call of a block-sparse row kernel (SparseRows.h): rows [n0, n0+nc)
/// of K-slab `s` over tokens [0, mc) of the packed activation tile `xt`
/// (f32 lanes, bf16 pairs or u8 quads by the kernel), into the Y^T tile
/// `yt`. s8 kernels keep int32 partial sums in `yt` until the `last` slab,
/// which dequantizes with xScale, xZero and the blob's scales and row sums.
/// `stream`: store the last slab's values non-temporally (only offered
/// where the entry's `streams` is set).
struct SparseRowsCall {
  const sparse_rows::Packed *p;
  int64_t s;
  bool first, last;
  int64_t n0, nc;
  const void *xt;
  int64_t ldx; ///< lanes (32-bit) per packed row
  int64_t mc;
  float *yt;
  int64_t ldy;
  const float *bias;
  float xScale;
  int32_t xZero;
  bool stream;
};

/// One register tile of the packed GEMMs (PackedGemm.h): c (mr rows of
/// gemmCols columns, leading dimension ldc) = a * b over kb steps, summed
/// from zero (or `init`, below) and then added to c itself where
/// `accumulate` (a K block's sum at a time: two levels of rounding in f32,
/// not one chain over all of K), where `a` holds the tile's mr <= gemmRows
/// rows packed [kb][mr] and `b` one panel of the weights packed
/// [kb][gemmCols] (64-byte aligned). Meanwhile `prefetchElems` elements
/// from `prefetch` (a share of the next panel) are brought into L1. The f32 GEMM's step is one K step of f32;
/// the exact int8 GEMM's (GemmTileCallInt8) is a pair of K steps, two s16
/// in 32 bits (low half first), multiplied pairwise into s32 sums, or with
/// KernelTable::gemmInt8Quads four K steps, four bytes in 32 bits (lowest
/// first; u8 in `a`, s8 in `b`), multiplied and added in fours. The f32
/// tile's sums start from `init` (gemmCols values, the same in every row:
/// the bias of the panel's columns) where it is not null; the int8 tiles'
/// always from zero (their `init` is null).
template <typename In, typename Acc> struct GemmTileArgs {
  const In *a, *b;
  int64_t kb, mr;
  bool accumulate;
  Acc *c;
  int64_t ldc;
  const In *prefetch;
  int64_t prefetchElems;
  const Acc *init = nullptr;
};
using GemmTileCall = GemmTileArgs<float, float>;
using GemmTileCallInt8 = GemmTileArgs<uint32_t, int32_t>;

/// The s16 int8 tile's 32-bit element: two K steps' values (each within
/// s16), the earlier in the lower half.
inline uint32_t s16Pair(int32_t lo, int32_t hi) {
  return uint32_t(uint16_t(int16_t(lo))) | uint32_t(uint16_t(int16_t(hi)))
                                               << 16;
}

/// A sparse row kernel and what the tile loop must know about it.
struct SparseRowsEntry {
  void (*run)(const SparseRowsCall &) = nullptr;
  const char *name = "reference"; ///< the tier's name in kernel names
  bool vectorised = false;        ///< false: scalar C++
  bool streams = false;           ///< honours SparseRowsCall::stream
};

struct KernelTable {
  /// The level the table was filled for (the CPU's best within the cap
  /// and what setKernelTier asked), and the name of the tier that filled
  /// the f32 kernels below ("reference", "avx2", "avx512":
  /// ownKernelTierName(level), cpu.h, which --version also reads).
  IsaLevel level = IsaLevel::Sse41;
  const char *name = "reference";

  // Rows of f32 (kernels.h documents each).
  void (*layerNorm)(const float *x, const float *gamma, const float *beta,
                    float *y, int64_t rows, int64_t cols, float eps);
  void (*layerNormTransposed)(const float *x, const float *gamma,
                              const float *beta, float *y, int64_t rows,
                              int64_t cols, float eps);
  /// `group` >= 1.
  void (*softmax)(const float *x, const float *mask, int64_t group, float *y,
                  int64_t rows, int64_t cols, bool log);
  void (*gelu)(const float *x, float *y, int64_t n, bool tanhForm);
  void (*transcendental)(Transcendental f, const float *x, float *y,
                         int64_t n);
  /// y = softplus(x) = log(1 + e^x) over n floats (x may be y). The AVX2
  /// tier's 8-lane row serves the AVX-512 tiers too (there is no 16-lane
  /// form).
  void (*softplusRow)(const float *x, float *y, int64_t n);
  /// y = mish(x) = x tanh(softplus(x)) over n floats (x may be y); the
  /// AVX2 tier's serves the AVX-512 tiers as softplusRow's does.
  void (*mishRow)(const float *x, float *y, int64_t n);
  /// y = x >= 0 ? x : alpha (e^x - 1) over n floats (x may be y): the
  /// reference tier's is eluRow below (the table's exp a chunk at a time,
  /// then the select); the AVX2 tier's, one pass, serves the AVX-512 tiers.
  void (*eluRow)(const float *x, float *y, int64_t n, float alpha);
  /// y = a (op) b over n elements, a and b with strides 0 or 1 (or any).
  void (*arithRow)(BinaryKind k, const float *a, int64_t sa, const float *b,
                   int64_t sb, float *y, int64_t n);
  void (*unaryRow)(UnaryKind k, const float *x, float *y, int64_t n,
                   float alpha, float beta);
  /// Reduces each of `rows` contiguous rows of `cols` elements.
  void (*reduceRows)(ReduceKind k, const float *x, float *y, int64_t rows,
                     int64_t cols);
  /// One sample's channel of InstanceNormalization (RowKernels.h).
  void (*instanceNormRow)(const float *x, float *y, int64_t n, float scale,
                          float bias, float eps);
  /// One channel of LRN (RowKernels.h).
  void (*lrnRow)(const float *x, const float *window, int64_t stride,
                 int64_t count, float *y, int64_t n, float k, float beta,
                 float bias);
  /// Resize's passes (RowKernels.h documents each).
  void (*resampleRow)(const float *x, const int64_t *c0, const int64_t *c1,
                      const float *w0, const float *w1, float *y, int64_t n,
                      bool copy);
  void (*blendRows)(const float *r0, const float *r1, float a, float b,
                    float *y, int64_t n);
  void (*resizeRowNhwc)(const float *r0, const float *r1, const int64_t *c0,
                        const int64_t *c1, const float *w0, const float *w1,
                        float a, float b, bool colCopy, bool oneRow, float *y,
                        int64_t n, int64_t c);
  void (*gatherTaps)(const float *x, int64_t len, const int64_t *c0,
                     const int64_t *c1, float *t0, float *t1, int64_t n);
  void (*blendTapsOrt)(const float *a0, const float *a1, const float *b0,
                       const float *b1, const float *wx0, const float *wx1,
                       float wy0, float wy1, float *y, int64_t n);
  /// One output row of n columns of the bilinear resize in ONNX Runtime's
  /// order, straight from its two source rows r0, r1 (len columns each):
  /// y[o] = wx0 wy0 r0[c0] + wx1 wy0 r0[c1] + wx0 wy1 r1[c0] + wx1 wy1
  /// r1[c1] at o, each product rounded, summed left to right (the same
  /// bits as gatherTaps and blendTapsOrt). `windows` is the plan's
  /// colWindows. Null on the reference tier (gatherTaps and blendTapsOrt
  /// then); the AVX2 tier's serves the AVX-512 tiers.
  void (*resizeRowOrt)(const float *r0, const float *r1, int64_t len,
                       const int64_t *c0, const int64_t *c1,
                       const int32_t *windows, const float *wx0,
                       const float *wx1, float wy0, float wy1, float *y,
                       int64_t n);
  /// Max pooling's channels-last pixel (RowKernels.h).
  void (*maxPixelNhwc)(const float *const *px, int64_t count, float *y,
                       int64_t c);
  /// NonMaxSuppression's step after keeping a box: marks (sets to 1) the
  /// entries of `suppressed` whose box overlaps the kept one by an
  /// intersection over union above `threshold` (RowKernels.h).
  void (*iouSuppressRow)(const float *box, const float *cols, int64_t ld,
                         int64_t n, float threshold, uint8_t *suppressed);
  /// y = cond ? a : b over n elements (u8 condition).
  void (*select32)(const uint8_t *cond, const uint32_t *a, const uint32_t *b,
                   uint32_t *y, int64_t n);
  /// y = x converted (Cast) for the pairs row_kernels::castRowHandles
  /// accepts.
  void (*castRow)(DType from, DType to, const void *x, void *y, int64_t n);
  /// conv_integer / matmul_integer's dequantizing epilogue
  /// (row_kernels::dequantizeRow): y = float(sums) * scale (+ bias), relu.
  void (*dequantizeRow)(const void *sums, float *y, int64_t n,
                        const float *scale, int64_t ss, const float *bias,
                        int64_t sb, bool relu);

  // Conversions and quantization (`inv` = 1 / scale).
  void (*toBf16)(const float *x, uint16_t *y, int64_t n);
  void (*roundToBf16AsF32)(const float *x, float *y, int64_t n);
  void (*fromBf16)(const uint16_t *x, float *y, int64_t n);
  void (*quantizeU8)(const float *x, uint8_t *q, int64_t n, float inv,
                     int32_t zp);
  void (*quantizeS8)(const float *x, int8_t *q, int64_t n, float inv);
  float (*maxAbs)(const float *x, int64_t n);
  /// DynamicQuantizeLinear's two passes, as ONNX writes them: the range of
  /// n values widened to hold 0 (a NaN skipped), and y = saturate(round(x /
  /// scale) + zero) to u8 (a division, not x * (1 / scale); nearest even)
  /// for scale > 0.
  void (*rangeWithZero)(const float *x, int64_t n, float *lo, float *hi);
  void (*quantizeU8Div)(const float *x, uint8_t *y, int64_t n, float scale,
                        float zero);
  void (*quantizeU8Transposed)(const float *x, uint8_t *q, int64_t k,
                               int64_t m, float inv, int32_t zp);
  /// Rows 2p and 2p+1 of a K x M input as bf16 pairs (`b` null: zeros).
  void (*pairRowBf16)(const float *a, const float *b, int64_t mc,
                      uint32_t *out);

  // Data movement on 32-bit elements.
  void (*transpose32)(const void *src, int64_t lds, int64_t rows,
                      int64_t cols, void *dst, int64_t ldd);
  void (*interleave2x32)(const void *a, const void *b, int64_t n, void *out);
  /// Non-temporal row copy (64-byte aligned, cols a multiple of 16); null
  /// where the tier has none (the tile loop then never streams).
  void (*streamRows)(const float *src, int64_t lds, int64_t rows,
                     int64_t cols, float *dst, int64_t ldd) = nullptr;

  // Winograd F(2x2, 3x3) and F(4x4, 3x3) (WinogradConv.cpp): a 3x3,
  // stride-1 convolution of channels-last activations as 16 (36) products
  // of transformed 4x4 (6x6) tiles, 2.25x (4x) fewer multiplications than
  // the direct form.
  /// One F(2x2, 3x3) tile's input transform: `px` points at the channel
  /// vectors of its 16 pixels, row-major (a pixel outside the image at
  /// zeros); value xi (0..15) of channel c goes to v[xi * ldv + c].
  void (*winogradInput)(const float *const *px, int64_t channels, float *v,
                        int64_t ldv);
  /// The same for F(4x4, 3x3): 36 pixels, 36 values.
  void (*winograd4Input)(const float *const *px, int64_t channels, float *v,
                         int64_t ldv);
  /// m (rows x kp) = v (rows x channels) times u, packed in panels of
  /// `panel` output channels (1 to 3 vectors of winogradLanes):
  /// [kp / panel][channels][panel].
  void (*winogradGemm)(const float *v, const float *u, float *m, int64_t rows,
                       int64_t channels, int64_t kp, int64_t panel);
  /// One F(2x2, 3x3) tile's output transform: its 16 products
  /// m[xi * ldm + k] (k < outC) into its 2x2 outputs y[j * outC + k]
  /// (j = 2 * row + column), plus `bias` (or null).
  void (*winogradOutput)(const float *m, int64_t ldm, const float *bias,
                         float *y, int64_t outC);
  /// The same for F(4x4, 3x3): 36 products, 4x4 outputs (j = 4 * row +
  /// column).
  void (*winograd4Output)(const float *m, int64_t ldm, const float *bias,
                          float *y, int64_t outC);
  /// The five's vector width: kp, the output channels the GEMM computes,
  /// is a multiple of it.
  int64_t winogradLanes = 8;
  /// Conv runs eligible convolutions as Winograd on this tier instead of
  /// oneDNN's direct kernels (docs/runtime-kernels.md has the figures),
  /// unless OPSCOPE_WINOGRAD=off.
  bool winogradPreferred = false;
  /// The largest tile Winograd takes where Conv picks
  /// (WinogradConv::tileFor): 0 for no limit, 2 under
  /// OPSCOPE_WINOGRAD=f2x3.
  int winogradTile = 0;
  /// Dense f32 inner products run on oneDNN's matmul primitive instead of
  /// its inner-product primitive where the plan names neither (a tuning
  /// database names the matmul where it measured it faster): set on the AMX
  /// tier, where the matmul ran the DistilBERT-shaped model's products 12-25%
  /// faster (docs/tuning.md). A tier stands for the class of CPU here, as
  /// elsewhere in the table: f32 uses no AMX instruction.
  bool innerProductOnMatMul = false;
  /// The packed f32 GEMM's register tile (PackedGemm.h) and its shape; null
  /// where the tier has none, and there f32 inner products stay on
  /// oneDNN's. Set on the AVX2 tier, where it runs the DistilBERT-shaped
  /// model's 36 products in 96-98 ms against 117 on oneDNN's x64:gemm:jit
  /// (docs/runtime-kernels.md); from AVX-512 up oneDNN's brgemm is faster.
  void (*gemmTile)(const GemmTileCall &) = nullptr;
  int64_t gemmRows = 0, gemmCols = 0;
  /// The exact int8 GEMM's tile (PackedGemmInt8, the same shape) and its
  /// name in kernel names. Its 32-bit element is a pair of s16 (vpmaddwd:
  /// the AVX2 tier, and AVX-512 below VNNI with an 8 x 32 tile), so 8-bit
  /// weights never saturate where oneDNN's int8 kernels would; or, with
  /// `gemmInt8Quads`, four u8 of the input and four s8 of the weights
  /// (vpdpbusd: avx2_vnni, where it runs the DistilBERT-shaped model's int8
  /// products 10% faster than oneDNN's exact kernels,
  /// docs/runtime-kernels.md). Null from AVX-512 VNNI up: oneDNN's brgemm.
  void (*gemmTileInt8)(const GemmTileCallInt8 &) = nullptr;
  const char *gemmInt8Name = "";
  bool gemmInt8Quads = false;
  /// a[j] | b[j] << 16 for j < n (b null: 0) into y, `group` values (a
  /// multiple of 16) at a time, group i at y + i * ldy: two rows of u8 as
  /// the s16 pairs of the int8 tile's panels (IntegerConvGemm).
  void (*pairBytes)(const uint8_t *a, const uint8_t *b, int64_t n,
                    int64_t group, uint32_t *y, int64_t ldy);

  // Block-sparse row kernels, one per weight element type. `sparseBf16`
  // without a native form (an AVX-512 CPU without AVX512-BF16) is left
  // unvectorised and `bf16OnF32` set: the weights are widened to f32 once
  // and the f32 kernel runs on bf16-rounded input instead.
  SparseRowsEntry sparseF32, sparseS8, sparseBf16;
  bool bf16OnF32 = false;
};

/// The table in force (filled on first use).
const KernelTable &kernelTable();

// The fill functions, tier by tier (each file of a tier's folder adds its
// entries). The ladder that calls them is KernelTable.cpp.
void fillReferenceKernels(KernelTable &t);
void fillReferenceWinogradKernels(KernelTable &t);
#if defined(__x86_64__)
void fillAvx2Kernels(KernelTable &t);
/// Its 32-bit data movement (Avx2DataMovement.cpp); fillAvx2Kernels calls
/// it, after the generic rows it overrides.
void fillAvx2DataMovementKernels(KernelTable &t);
void fillAvx2WinogradKernels(KernelTable &t);
void fillAvx2GemmKernels(KernelTable &t);
void fillAvx2PackKernels(KernelTable &t);
void fillAvx2SparseKernels(KernelTable &t);
void fillAvxVnniKernels(KernelTable &t);
void fillAvxVnniGemmKernels(KernelTable &t);
void fillAvx512Kernels(KernelTable &t);
void fillAvx512GemmKernels(KernelTable &t);
void fillAvx512WinogradKernels(KernelTable &t);
void fillAvx512SparseKernels(KernelTable &t);
void fillAvx512VnniKernels(KernelTable &t);
void fillAvx512Bf16Kernels(KernelTable &t);
#endif

/// A post-op's activation over `len` values in place (a Sum is the
/// caller's), on the table's kernels.
void applyActivation(PostOp p, float *row, int64_t len);
/// SiLU, y = x * sigmoid(x), on the table's sigmoid (x may be y).
void swishRow(const float *x, float *y, int64_t n);
/// y = x >= 0 ? x : alpha (exp(x) - 1) with the table's vectorised exp (x
/// may be y): the reference tier's KernelTable::eluRow.
void eluRow(const float *x, float *y, int64_t n, float alpha);

/// The reference elementwise rows and reductions, shared by the tiers
/// (ElementwiseRows.inc compiled per tier).
namespace reference {
void transpose32(const void *src, int64_t lds, int64_t rows, int64_t cols,
                 void *dst, int64_t ldd);
void pairBytes(const uint8_t *a, const uint8_t *b, int64_t n, int64_t group,
               uint32_t *y, int64_t ldy);
} // namespace reference

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_KERNELTABLE_H
