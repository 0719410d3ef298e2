//===- PackedGemm.h - f32 inner products on opscope's own GEMM --*- C++ -*-===//
//
// Part of opscope's runtime (internal). y[M x N] = post_ops(x[M x K] * W^T
// + b) on the kernel table's register tile (KernelTable::gemmTile), the
// layout of GotoBLAS and BLIS: the weights packed once into panels of
// gemmCols columns, K in blocks of kKBlock steps (a panel's block stays in
// L1), the input's rows packed per run into the tiles' order (each block
// of all M rows stays in L2), and the columns split into chunks shared out
// among the threads, 192 rows at a time, whose partial sums stay in a
// per-thread buffer in L2 until the bias and the post-ops write them to the
// output, row by row. Each tile sums a K block from zero and adds it to the
// partial sums (two levels of rounding, not one chain over all of K), and
// prefetches a share of the next panel: a model's weights come from memory
// on every run, and without the prefetch the DistilBERT-shaped model's
// products took 13% longer. InnerProduct takes this form where the table
// has a tile (the AVX2 tier) and 2 <= M <= kMaxRows.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H

#include "AlignedBuffer.h"
#include "KernelTable.h"

#include "opscope/runtime/kinds.h"

#include <memory>
#include <string>
#include <vector>

namespace opscope::rt {

class PackedGemm {
public:
  /// Whether the table in force has a tile and `m` rows suit it: 2 to
  /// kMaxRows. At M = 1 oneDNN's GEMV is faster (43 against 63 us at 768 x
  /// 768 warm, 178 against 191 cold); from M = 512 up its GEMM, which
  /// blocks the rows for reuse, is (22.2 against 23.6 ms at 512 x 768 ->
  /// 3072, 47.2 against 49.7-52.8 at 1024 rows; at 256 rows the packed GEMM
  /// took 11.4 against 12.8), AVX2 tier, docs/runtime-kernels.md.
  static bool applies(int64_t m);
  static constexpr int64_t kMaxRows = 384;
  /// `weights` (N x K) are packed, `bias` (N, or null) copied.
  PackedGemm(int64_t m, int64_t k, int64_t n, const float *weights,
             const float *bias, std::vector<PostOp> postOps);
  /// y = x * W^T + b, then the post-ops in order; a Sum reads `sum` (M x
  /// N; it may be y itself).
  void run(const float *x, float *y, const float *sum) const;
  /// "gemm:" and the tier of the table's tile.
  std::string name() const;

  /// K steps per block: a 16-column panel's block is 8 KiB, and the next
  /// one's prefetch fits beside it and the input rows in L1.
  static constexpr int64_t kKBlock = 128;

private:
  int64_t m, k, n;
  int64_t rows, cols; ///< the tile's shape
  int64_t panels;     ///< ceil(n / cols)
  std::vector<PostOp> postOps;
  decltype(KernelTable::gemmTile) tile;
  decltype(KernelTable::arithRow) arithRow;
  decltype(KernelTable::transpose32) transpose;
  std::string tierName;
  /// The weights, K block by K block, each as `panels` panels of
  /// [kb][cols] (zeros past N); shared by the sessions of a model
  /// (packed_weights.h).
  std::shared_ptr<const AlignedBuffer<float>> w;
  std::vector<float> bias; ///< N values (or empty)
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_PACKEDGEMM_H
