//===- PackedGemm.h - f32 inner products on opscope's own GEMM --*- C++ -*-===//
//
// Part of opscope's runtime (internal). y[M x N] = post_ops(x[M x K] * W^T
// + b) on the kernel table's register tile (KernelTable::gemmTile), the
// layout of GotoBLAS and BLIS: the weights packed once into panels of
// gemmCols columns, K in blocks of kKBlock steps (a panel's block stays in
// L1), the input's rows packed per run into the tiles' order (each block
// of all M rows stays in L2), and the columns split into chunks shared out
// among the threads, 192 rows at a time, whose partial sums stay in a
// per-thread buffer in L2 until the post-ops write them to the output, row
// by row. Each tile sums a K block (the first from the bias, the others
// from zero) and adds it to the partial sums (two levels of rounding, not
// one chain over all of K), and prefetches a share of the next panel: a
// model's weights come from memory on every run, and without the prefetch
// the DistilBERT-shaped model's products took 13% longer. InnerProduct
// takes this form where the table has its f32 tile (the AVX2 tier) and
// 2 <= M <= kMaxRows. PackedGemmInt8 is the exact int8 form of the same
// loops (QuantizedInnerProduct's 8-bit weights without VNNI: the AVX2 tier
// and AVX-512 without VNNI).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H

#include "AlignedBuffer.h"
#include "KernelTable.h"

#include "opscope/runtime/kinds.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscope::rt {

/// What the f32 and the exact int8 GEMM share: the shape, the table's tile
/// shape and kernels, the weights packed once into panels of 32-bit
/// elements (an f32, or a pair of s16 along K), and the loops that pack
/// each run's input and walk the panels (PackedGemm.cpp).
class PackedPanels {
public:
  static constexpr int64_t kMaxRows = 384;
  /// K steps per block: a 16-column panel's block is 8 KiB, and the next
  /// one's prefetch fits beside it and the input rows in L1.
  static constexpr int64_t kKBlock = 128;

protected:
  /// `hasTile`: whether the table has the caller's tile (checked before
  /// anything is packed). `steps` 32-bit elements per row along K;
  /// `element(j, s)` is the weight row j's element s, packed once (or
  /// taken from the model's packed-weight cache under `key` when `source`
  /// lies in its weights).
  template <typename Element>
  PackedPanels(bool hasTile, int64_t m, int64_t steps, int64_t n,
               const void *source, const std::string &key,
               std::vector<PostOp> postOps, Element element);
  /// The input's rows, packed into the tiles' order, against the panels;
  /// the sums start from `init` (panels x cols values: the bias, zeros past
  /// N) where it is not null (the f32 tile's only), else from zero.
  /// `rowsOf(r0, mr)` gives rows r0 to r0 + mr of the input as 32-bit
  /// elements and their stride, and `finish(r0, r1, out, ldo, c0, width)`
  /// takes a row block's sums (rows r0 to r1 of columns c0 to c0 + width,
  /// at a stride of ldo) once all of K is in.
  template <typename In, typename Acc, typename RowsOf, typename Finish>
  void walk(void (*tile)(const GemmTileArgs<In, Acc> &), const Acc *init,
            RowsOf rowsOf, Finish finish) const;
  /// Post-ops in order on one row of `width` outputs from column c0 of row
  /// r; a Sum reads `sum` (M x N).
  void postOpsRow(float *row, int64_t r, int64_t c0, int64_t width,
                  const float *sum) const;

  int64_t m, steps, n;
  int64_t rows, cols; ///< the tile's shape
  int64_t panels;     ///< ceil(n / cols)
  std::vector<PostOp> postOps;
  decltype(KernelTable::arithRow) arithRow;
  decltype(KernelTable::transpose32) transpose;
  std::string tierName;
  /// The weights, K block by K block, each as `panels` panels of
  /// [kb][cols] (zeros past N and past K); shared by the sessions of a
  /// model (packed_weights.h).
  std::shared_ptr<const AlignedBuffer<uint32_t>> w;
};

class PackedGemm : PackedPanels {
public:
  /// Whether the table in force has a tile and `m` rows suit it: 2 to
  /// kMaxRows. At M = 1 oneDNN's GEMV is faster (43 against 63 us at 768 x
  /// 768 warm, 178 against 191 cold); from M = 512 up its GEMM, which
  /// blocks the rows for reuse, is (22.2 against 23.6 ms at 512 x 768 ->
  /// 3072, 47.2 against 49.7-52.8 at 1024 rows; at 256 rows the packed GEMM
  /// took 11.4 against 12.8), AVX2 tier, docs/runtime-kernels.md.
  static bool applies(int64_t m);
  using PackedPanels::kKBlock;
  using PackedPanels::kMaxRows;
  /// `weights` (N x K) are packed, `bias` (N, or null) copied.
  PackedGemm(int64_t m, int64_t k, int64_t n, const float *weights,
             const float *bias, std::vector<PostOp> postOps);
  /// y = x * W^T + b, then the post-ops in order; a Sum reads `sum` (M x
  /// N; it may be y itself).
  void run(const float *x, float *y, const float *sum) const;
  /// "gemm:" and the tier of the table's tile.
  std::string name() const;

private:
  decltype(KernelTable::gemmTile) tile;
  /// The bias, panels x cols values (zeros past N; empty without a bias):
  /// the tile's sums start from it.
  std::vector<float> bias;
};

/// The exact int8 GEMM: the same loops on the table's int8 tile. Its s16
/// form (the avx2 tier, AVX-512 below VNNI) takes int8 weights where the
/// tier's int8 kernels (oneDNN's, vpmaddubsw) would saturate: the weights
/// are widened to s16 once at load, each u8 input row per run. Its quad
/// form (avx2_vnni, vpdpbusd) takes every int8 weight, four to a 32-bit
/// element, the input's u8 as they are. Either way the sums are exact in
/// s32: a model's integers, as VNNI computes them. The epilogue is oneDNN's
/// int8 inner product's, in its order, so the same sums give the same f32
/// values: the bias in the accumulator's units (the caller folds the zero
/// point's compensation into it), then the scale.
class PackedGemmInt8 : PackedPanels {
public:
  /// Whether the table in force has the tile and `m` rows suit it (as
  /// PackedGemm::applies), and K keeps the s32 sums exact: K x 255 x 128
  /// below 2^31.
  static bool applies(int64_t m, int64_t k);
  using PackedPanels::kMaxRows;
  /// `weights` (s8, N x K) are packed (widened for the s16 form). With
  /// `u8Output` (scale, zero point) the output is written in u8 after the
  /// post-ops: y / scale
  /// + zero point, rounded to nearest even and saturated (oneDNN's order).
  PackedGemmInt8(int64_t m, int64_t k, int64_t n, const int8_t *weights,
                 std::vector<PostOp> postOps,
                 std::optional<std::pair<float, int32_t>> u8Output);
  /// y = (sum_k x w + bias[j]) * scale[j], then the post-ops in order; a
  /// Sum reads `sum` (M x N; it may be y itself). `y` is f32, or u8 with
  /// u8Output.
  void run(const uint8_t *x, const float *scale, const float *bias, void *y,
           const float *sum) const;
  /// The sums alone, in s32 (IntegerMatMul, ONNX's MatMulInteger), with a
  /// correction of two rank-1 terms added as they leave L2: y[r][j] =
  /// sum_k x w + rowA[r] colA[j] + rowB[r] colB[j], wrapping as s32 does
  /// (rowB null: no second term). Built without post-ops or u8 output.
  void runS32(const uint8_t *x, int32_t *y, const int32_t *rowA,
              const int32_t *colA, const int32_t *rowB,
              const int32_t *colB) const;
  /// "gemm:" and the table's name of its tile ("s16:avx2", "u8s8:avx2_vnni").
  std::string name() const;

private:
  decltype(KernelTable::gemmTileInt8) tile;
  bool quads; ///< the tile takes u8 / s8 quads (gemmInt8Quads)
  std::string tileName;
  decltype(KernelTable::quantizeU8) quantizeU8;
  int64_t k;
  std::optional<std::pair<float, int32_t>> u8Output;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H
