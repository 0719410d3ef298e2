//===- NonMaxSuppression.cpp - greedy box suppression, ONNX Runtime's way -===//
//
// Part of opscope's runtime. extents.h's nonMaxSuppression: per batch and
// class, the candidates sorted by score and kept greedily. ONNX Runtime
// checks each candidate against every box kept so far, recomputing both
// boxes' corners each time; here each box's extent and area are computed
// once per batch, the candidates are gathered into columns in score order,
// and each kept box marks the candidates after it that it suppresses in
// one pass over those columns (the kernel table's iouSuppressRow, a vector
// loop on every tier). The arithmetic of each IoU is ONNX Runtime's, in
// its order, so the same boxes are kept.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"

#include "opscope/runtime/extents.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace opscope::rt;

namespace {
/// ONNX Runtime's MaxMin: the smaller and larger of two corners.
inline void minMax(float a, float b, float &lo, float &hi) {
  if (a >= b) {
    lo = b;
    hi = a;
  } else {
    lo = a;
    hi = b;
  }
}
} // namespace

int64_t opscope::rt::nonMaxSuppression(const float *boxes, const float *scores,
                                       const NmsParams &p, int64_t *selected,
                                       int64_t boundRows) {
  std::memset(selected, 0, sizeof(int64_t) * 3 * boundRows);
  const int64_t n = p.boxes;
  if (p.maxPerClass <= 0 || n == 0)
    return 0;
  const KernelTable &table = kernelTable();
  // geo: every box of the batch as five rows (x min, x max, y min, y max,
  // area); cols: the candidates of one class, in score order, likewise.
  std::vector<float> geo(5 * n), cols(5 * n);
  std::vector<int64_t> order(n);
  std::vector<uint8_t> suppressed(n);
  int64_t rows = 0;
  for (int64_t b = 0; b < p.batches; ++b) {
    const float *bx = boxes + b * n * 4;
    for (int64_t i = 0; i < n; ++i) {
      const float *q = bx + 4 * i;
      float x0, x1, y0, y1;
      if (p.centerPointBox) {
        float halfW = q[2] / 2, halfH = q[3] / 2;
        x0 = q[0] - halfW;
        x1 = q[0] + halfW;
        y0 = q[1] - halfH;
        y1 = q[1] + halfH;
      } else {
        minMax(q[1], q[3], x0, x1);
        minMax(q[0], q[2], y0, y1);
      }
      geo[i] = x0;
      geo[n + i] = x1;
      geo[2 * n + i] = y0;
      geo[3 * n + i] = y1;
      geo[4 * n + i] = (x1 - x0) * (y1 - y0);
    }
    for (int64_t c = 0; c < p.classes; ++c) {
      const float *sc = scores + (b * p.classes + c) * n;
      int64_t m = 0;
      for (int64_t i = 0; i < n; ++i)
        if (!p.hasScoreThreshold || sc[i] > p.scoreThreshold)
          order[m++] = i;
      // Descending score, equal scores by ascending index (ONNX Runtime's
      // order for them), NaN last: a total order, so the result does not
      // depend on the sort's algorithm.
      std::sort(order.begin(), order.begin() + m, [&](int64_t i, int64_t j) {
        float si = sc[i], sj = sc[j];
        if (si > sj)
          return true;
        if (si < sj)
          return false;
        bool ni = std::isnan(si), nj = std::isnan(sj);
        if (ni != nj)
          return nj;
        return i < j;
      });
      for (int r = 0; r < 5; ++r)
        for (int64_t k = 0; k < m; ++k)
          cols[r * n + k] = geo[r * n + order[k]];
      std::fill(suppressed.begin(), suppressed.begin() + m, uint8_t(0));
      int64_t kept = 0;
      for (int64_t k = 0; k < m; ++k) {
        if (suppressed[k])
          continue;
        if (rows == boundRows)
          return -1;
        selected[3 * rows] = b;
        selected[3 * rows + 1] = c;
        selected[3 * rows + 2] = order[k];
        ++rows;
        if (++kept == p.maxPerClass)
          break;
        float box[5] = {cols[k], cols[n + k], cols[2 * n + k], cols[3 * n + k],
                        cols[4 * n + k]};
        table.iouSuppressRow(box, cols.data() + k + 1, n, m - k - 1,
                             p.iouThreshold, suppressed.data() + k + 1);
      }
    }
  }
  return rows;
}
