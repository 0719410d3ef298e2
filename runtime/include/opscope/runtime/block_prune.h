//===- block_prune.h - block-magnitude pruning of one weight -----*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, header-only). Zeroing the
// lowest-magnitude blocks of a weight: what `opscope-prune` does to an ONNX
// model (lib/Target/ONNX/Prune.cpp) and what `opscope-profile --loss` does
// to a session's private copy of one layer's weight, so that a profiled
// ratio and a pruned model mean the same zeros.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_BLOCK_PRUNE_H
#define OPSCOPE_RUNTIME_BLOCK_PRUNE_H

#include "opscope/runtime/sparse_format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace opscope::rt::sparse {

/// Block counts of one weight.
struct BlockCounts {
  int64_t blocks = 0, zeroBlocks = 0;
  double ratio() const {
    return blocks ? static_cast<double>(zeroBlocks) / blocks : 0.0;
  }
};

/// A weight held as `k x n` row-major (`nk`: as `n x k`), with the block
/// shape dividing n and k.
struct WeightView {
  float *data;
  int64_t n, k;
  bool nk;
};

namespace detail {
/// Visits the elements of block (bn, bk) of `w`: outputs bn*R..bn*R+R-1,
/// reduction elements bk*C..bk*C+C-1.
template <typename Fn>
inline void forBlock(const WeightView &w, BlockShape b, int64_t bn, int64_t bk,
              Fn fn) {
  for (int64_t n = bn * b.rows; n < (bn + 1) * b.rows; ++n)
    for (int64_t k = bk * b.cols; k < (bk + 1) * b.cols; ++k)
      fn(w.data[w.nk ? n * w.k + k : k * w.n + n]);
}
} // namespace detail

/// How many blocks of `w` are all zero (either sign).
inline BlockCounts countZeroBlocks(const WeightView &w, BlockShape b) {
  BlockCounts c;
  int64_t gn = w.n / b.rows, gk = w.k / b.cols;
  c.blocks = gn * gk;
  for (int64_t bn = 0; bn < gn; ++bn)
    for (int64_t bk = 0; bk < gk; ++bk) {
      bool zero = true;
      detail::forBlock(w, b, bn, bk, [&](float v) { zero &= v == 0.0f; });
      c.zeroBlocks += zero;
    }
  return c;
}

/// Zeroes the round(ratio x blocks) blocks of `w` with the smallest L1 norm
/// (ties: the first in [N, K] row-major block order; blocks holding a NaN
/// are kept). Already-zero blocks count and are not written. Returns the
/// counts after pruning.
inline BlockCounts pruneBlocks(const WeightView &w, BlockShape b,
                               double ratio) {
  int64_t gn = w.n / b.rows, gk = w.k / b.cols, blocks = gn * gk;
  // L1 norms, in double so that no sum of a few thousand floats rounds a
  // block to zero or reorders near-ties by accumulated error. A NaN block
  // scores +inf: kept, and the order stays a strict weak order.
  std::vector<double> score(blocks);
  for (int64_t bn = 0; bn < gn; ++bn)
    for (int64_t bk = 0; bk < gk; ++bk) {
      double s = 0;
      detail::forBlock(w, b, bn, bk, [&](float v) { s += std::fabs(double(v)); });
      score[bn * gk + bk] = std::isnan(s) ? HUGE_VAL : s;
    }
  int64_t target = std::llround(ratio * static_cast<double>(blocks));
  target = std::clamp<int64_t>(target, 0, blocks);
  std::vector<int64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  auto lower = [&](int64_t a, int64_t c) {
    return score[a] < score[c] || (score[a] == score[c] && a < c);
  };
  if (target < blocks)
    std::nth_element(order.begin(), order.begin() + target, order.end(), lower);
  for (int64_t i = 0; i < target; ++i) {
    int64_t id = order[i];
    // Zero blocks stay as they are (bit for bit: -0.0 too).
    if (score[id] != 0)
      detail::forBlock(w, b, id / gk, id % gk, [](float &v) { v = 0.0f; });
  }
  return countZeroBlocks(w, b);
}


} // namespace opscope::rt::sparse

#endif // OPSCOPE_RUNTIME_BLOCK_PRUNE_H
