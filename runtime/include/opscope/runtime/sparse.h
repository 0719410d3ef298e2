//===- sparse.h - block-sparse inner products -------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). Sparse weight x dense
// activation: y = post_ops(x * W^T + b) with W packed in 1x4 blocks
// (sparse_format.h). The kernels compute Y^T = W * X^T, so the sparse weight
// is the streaming operand and the activations are read as K x M rows:
//
//   - activations are taken in tiles of up to 64 tokens (M), transposed into
//     an L1/L2-resident K x 64 pack unless they already come transposed (the
//     osc-sparse-layout pass keeps chains in that layout);
//   - each pass runs several output rows, every non-zero block being four
//     broadcast weights times four activation rows;
//   - bias, post-ops and the residual sum are applied on the 64 x 64 output
//     tile before it is stored, in either layout.
//
// Implementations, picked per process from the CPU: AVX-512F (f32),
// AVX512-VNNI (s8 weights x u8 activations, one block = one vpdpbusd dword),
// AVX512-BF16 (bf16 pairs, vdpbf16ps), and a portable one for each.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_SPARSE_H
#define OPSCOPE_RUNTIME_SPARSE_H

#include "opscope/runtime/kinds.h"
#include "opscope/runtime/sparse_format.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opscope::rt {

/// Layout of the activations around a sparse inner product.
struct SparseLayout {
  bool transposedInput = false;  ///< x is K x M instead of M x K
  bool transposedOutput = false; ///< y (and the sum) is N x M instead of M x N
};

/// Which implementation the sparse kernels of a given value type use here.
/// The kernel table's name for it: "avx512", "avx2", "reference"; s8
/// "avx512_vnni" or "avx2_vnni"; bf16 "avx512_bf16" or "avx512:f32" (widened
/// weights on the f32 kernel).
std::string sparseIsa(sparse::ValueType t);

/// f32 or bf16 weights (bf16 activations are converted on packing the
/// activation tile; accumulation is f32).
class SparseInnerProduct {
public:
  /// `packed` is a blob as sparse_format.h describes (validated by the
  /// caller), kept alive by the caller (usually the mapped .weights file).
  /// `bias` (N) and the post-ops are copied.
  SparseInnerProduct(int64_t m, const void *packed, const float *bias,
                     std::vector<PostOp> postOps, SparseLayout layout = {});
  ~SparseInnerProduct();
  SparseInnerProduct(const SparseInnerProduct &) = delete;
  SparseInnerProduct &operator=(const SparseInnerProduct &) = delete;

  /// y = post_ops(x W^T + b); with a Sum post-op `sum` (same layout as y)
  /// is added, and may alias y.
  void run(const float *x, float *y, const float *sum = nullptr);

  /// `opscope:sparse_<R>x4:<isa>:<type>` (R: the blob's block rows), for
  /// probe tables and traces.
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// s8 weights (per-row scales in the blob) x u8 activations with a scale and
/// zero point: y = post_ops(xScale * wScale[n] * sum_k (x - xZero) w + b).
class SparseInnerProductS8 {
public:
  SparseInnerProductS8(int64_t m, const void *packed, const float *bias,
                       std::vector<PostOp> postOps, SparseLayout layout = {});
  ~SparseInnerProductS8();
  SparseInnerProductS8(const SparseInnerProductS8 &) = delete;
  SparseInnerProductS8 &operator=(const SparseInnerProductS8 &) = delete;

  void run(const uint8_t *x, float xScale, int32_t xZero, float *y,
           const float *sum = nullptr);
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Quantizes a transposed f32 input (K x M) to the u8 layout
/// SparseInnerProductS8 reads with `transposedInput`: K/4 rows of M dwords,
/// each dword four consecutive k of one token (as quantizeU8 rounds). K
/// must be a multiple of 4.
void quantizeU8Transposed(const float *x, uint8_t *q, int64_t k, int64_t m,
                          float scale, int32_t zeroPoint);

/// The loop order of a transposed-output product: Auto (chunk-major when
/// the weight and one token tile's outputs overflow three quarters of L2
/// and all packed activation tiles fit it; Sparse.cpp says why),
/// TokenMajor (tile by tile), or ChunkMajor (forced wherever it can run:
/// a transposed output over several token tiles, M a multiple of 16, no
/// residual sum aliasing the output; tests run both orders).
enum class SparseTileOrder { Auto, TokenMajor, ChunkMajor };
void setSparseTileOrder(SparseTileOrder order);

/// How the AVX-512 kernels store a transposed output they write in place:
/// Auto (non-temporal stores, past the caches, where the chunk-major order
/// runs; Sparse.cpp says why), Cached (ordinary stores), or Streamed
/// (non-temporal wherever they can: a 64-byte aligned output, M a multiple
/// of 16, no residual sum aliasing it; for tests and A/B runs).
enum class SparseStores { Auto, Cached, Streamed };
void setSparseStores(SparseStores stores);
SparseStores sparseStores();

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_SPARSE_H
