//===- NonMaxSuppressionTest.cpp - NMS kernel vs ONNX Runtime's algorithm -===//
//
// extents.h's nonMaxSuppression, at every tier of the kernel table (its
// IoU step is the table's iouSuppressRow), against a plain transcription
// of ONNX Runtime's CPU kernel: each candidate, by descending score,
// checked against every box kept so far with both boxes' corners
// recomputed from the raw coordinates. Random boxes on odd counts (1, 3,
// 17, 70: tails of every vector width), flipped corners, center-point
// boxes, degenerate boxes (zero or negative width), NaN coordinates and
// scores, score ties, with and without a score threshold, IoU thresholds
// 0 to 1 and limits from 0 to above the box count. The rows beyond the
// count must be zero.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/extents.h"
#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// ONNX Runtime's SuppressByIOU (non_max_suppression_helper.h), as written
/// there: box1 is the kept box, box2 the candidate.
bool suppressByIou(const float *boxes, int64_t i1, int64_t i2, bool center,
                   float threshold) {
  auto maxMin = [](float l, float r, float &lo, float &hi) {
    if (l >= r) {
      lo = r;
      hi = l;
    } else {
      lo = l;
      hi = r;
    }
  };
  const float *b1 = boxes + 4 * i1, *b2 = boxes + 4 * i2;
  float x1lo, x1hi, y1lo, y1hi, x2lo, x2hi, y2lo, y2hi, ixlo, ixhi, iylo, iyhi;
  if (!center) {
    maxMin(b1[1], b1[3], x1lo, x1hi);
    maxMin(b2[1], b2[3], x2lo, x2hi);
    ixlo = std::max(x1lo, x2lo);
    ixhi = std::min(x1hi, x2hi);
    if (ixhi <= ixlo)
      return false;
    maxMin(b1[0], b1[2], y1lo, y1hi);
    maxMin(b2[0], b2[2], y2lo, y2hi);
    iylo = std::max(y1lo, y2lo);
    iyhi = std::min(y1hi, y2hi);
    if (iyhi <= iylo)
      return false;
  } else {
    float w1 = b1[2] / 2, h1 = b1[3] / 2, w2 = b2[2] / 2, h2 = b2[3] / 2;
    x1lo = b1[0] - w1;
    x1hi = b1[0] + w1;
    x2lo = b2[0] - w2;
    x2hi = b2[0] + w2;
    ixlo = std::max(x1lo, x2lo);
    ixhi = std::min(x1hi, x2hi);
    if (ixhi <= ixlo)
      return false;
    y1lo = b1[1] - h1;
    y1hi = b1[1] + h1;
    y2lo = b2[1] - h2;
    y2hi = b2[1] + h2;
    iylo = std::max(y1lo, y2lo);
    iyhi = std::min(y1hi, y2hi);
    if (iyhi <= iylo)
      return false;
  }
  volatile float inter = (ixhi - ixlo) * (iyhi - iylo); // no contraction
  if (inter <= 0.0f)
    return false;
  volatile float a1 = (x1hi - x1lo) * (y1hi - y1lo);
  volatile float a2 = (x2hi - x2lo) * (y2hi - y2lo);
  volatile float sum = a1 + a2;
  float uni = sum - inter;
  if (a1 <= 0.0f || a2 <= 0.0f || uni <= 0.0f)
    return false;
  return inter / uni > threshold;
}

/// ONNX Runtime's NonMaxSuppression::Compute, candidates taken by
/// descending score, ties by ascending index, NaN scores last.
std::vector<std::array<int64_t, 3>> nmsRef(const std::vector<float> &boxes,
                                           const std::vector<float> &scores,
                                           const NmsParams &p) {
  std::vector<std::array<int64_t, 3>> out;
  if (p.maxPerClass <= 0)
    return out;
  for (int64_t b = 0; b < p.batches; ++b)
    for (int64_t c = 0; c < p.classes; ++c) {
      const float *sc = scores.data() + (b * p.classes + c) * p.boxes;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < p.boxes; ++i)
        if (!p.hasScoreThreshold || sc[i] > p.scoreThreshold)
          cand.push_back(i);
      auto key = [&](int64_t i) {
        return std::isnan(sc[i]) ? -INFINITY : sc[i];
      };
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t i, int64_t j) {
        if (std::isnan(sc[i]) != std::isnan(sc[j]))
          return std::isnan(sc[j]);
        return key(i) > key(j);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        bool keep = true;
        for (int64_t k : kept)
          if (suppressByIou(boxes.data() + b * p.boxes * 4, k, i,
                            p.centerPointBox, p.iouThreshold)) {
            keep = false;
            break;
          }
        if (!keep)
          continue;
        if (static_cast<int64_t>(kept.size()) >= p.maxPerClass)
          break;
        kept.push_back(i);
        out.push_back({b, c, i});
      }
    }
  return out;
}

/// Runs the kernel at every tier the CPU has against the reference;
/// returns the reference's number of rows.
int64_t expectMatches(const std::vector<float> &boxes,
                      const std::vector<float> &scores, const NmsParams &p,
                      const char *what) {
  auto ref = nmsRef(boxes, scores, p);
  int64_t bound = p.batches * p.classes *
                  std::min(std::max<int64_t>(p.maxPerClass, 0), p.boxes);
  for (IsaLevel level :
       {IsaLevel::Sse41, IsaLevel::Avx2, IsaLevel::Avx512Core}) {
    if (setKernelTier(level) != level)
      continue;
    std::vector<int64_t> sel(3 * bound + 3, -7); // one guard row
    int64_t n =
        nonMaxSuppression(boxes.data(), scores.data(), p, sel.data(), bound);
    EXPECT_EQ(n, static_cast<int64_t>(ref.size()))
        << what << " at " << kernelTierName();
    for (int64_t r = 0; r < bound; ++r)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(sel[3 * r + k],
                  r < static_cast<int64_t>(ref.size()) ? ref[r][k] : 0)
            << what << " row " << r << " at " << kernelTierName();
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(sel[3 * bound + k], -7) << "written past the bound";
  }
  setKernelTier(IsaLevel::All);
  return static_cast<int64_t>(ref.size());
}

TEST(NonMaxSuppression, MatchesOnnxRuntimeOnRandomBoxes) {
  std::mt19937 rng(54);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  int cases = 0;
  int64_t rows = 0, suppressedCases = 0;
  for (int64_t n : {1, 3, 17, 70})
    for (bool center : {false, true})
      for (float iou : {0.0f, 0.3f, 0.5f, 1.0f})
        for (int64_t limit : {int64_t(0), int64_t(1), int64_t(3), n + 5}) {
          NmsParams p;
          p.batches = 2;
          p.classes = 3;
          p.boxes = n;
          p.centerPointBox = center;
          p.maxPerClass = limit;
          p.iouThreshold = iou;
          p.hasScoreThreshold = (cases % 3) != 0;
          p.scoreThreshold = 0.25f;
          std::vector<float> boxes(p.batches * n * 4),
              scores(p.batches * 3 * n);
          for (int64_t i = 0; i < p.batches * n; ++i) {
            float *b = boxes.data() + 4 * i;
            // Clustered so that boxes overlap; every 5th zero-sized or
            // (center form) negative, every 11th with a NaN coordinate.
            float cy = 2 * u(rng), cx = 2 * u(rng), h = 0.2f + u(rng),
                  w = 0.2f + u(rng);
            if (i % 5 == 4)
              w = center ? -w : 0.0f;
            if (center) {
              b[0] = cx, b[1] = cy, b[2] = w, b[3] = h;
            } else if (u(rng) < 0.5f) {
              b[0] = cy, b[1] = cx, b[2] = cy + h, b[3] = cx + w;
            } else { // flipped corners
              b[0] = cy + h, b[1] = cx + w, b[2] = cy, b[3] = cx;
            }
            if (i % 11 == 10)
              b[i % 4] = NAN;
          }
          // Scores in steps of 1/8 (ties), a NaN now and then.
          for (size_t i = 0; i < scores.size(); ++i)
            scores[i] = i % 13 == 12 ? NAN : std::floor(u(rng) * 8) / 8;
          int64_t kept = expectMatches(boxes, scores, p, "random");
          rows += kept;
          // Fewer kept than the limit allows although candidates remain:
          // the IoU step suppressed some.
          if (n == 70 && limit > n && iou < 1.0f && kept < 2 * 3 * 20)
            ++suppressedCases;
          ++cases;
        }
  EXPECT_EQ(cases, 128);
  EXPECT_GT(rows, 1000);         // the cases keep boxes
  EXPECT_GT(suppressedCases, 0); // and suppress others
}

TEST(NonMaxSuppression, IouAtTheThresholdIsKept) {
  // Box 1 covers half of box 0 (IoU exactly 0.5): suppressed only by a
  // threshold below 0.5. Box 2 only touches box 0 (an empty intersection).
  std::vector<float> boxes{0, 0, 2, 2, 0, 0, 2, 1, 0, 2, 2, 3};
  std::vector<float> scores{0.9f, 0.8f, 0.7f};
  NmsParams p;
  p.batches = p.classes = 1;
  p.boxes = 3;
  p.maxPerClass = 3;
  for (float t : {0.0f, 0.49f, 0.5f}) {
    p.iouThreshold = t;
    expectMatches(boxes, scores, p, "threshold");
  }
  std::vector<int64_t> sel(9);
  p.iouThreshold = 0.5f;
  EXPECT_EQ(nonMaxSuppression(boxes.data(), scores.data(), p, sel.data(), 3),
            3);
  p.iouThreshold = 0.49f;
  EXPECT_EQ(nonMaxSuppression(boxes.data(), scores.data(), p, sel.data(), 3),
            2);
  EXPECT_EQ(sel[5], 2); // box 2 kept, box 1 suppressed
}

TEST(NonMaxSuppression, ScoreThresholdIsStrict) {
  std::vector<float> boxes{0, 0, 1, 1, 5, 5, 6, 6};
  std::vector<float> scores{0.5f, 0.6f};
  NmsParams p;
  p.batches = p.classes = 1;
  p.boxes = 2;
  p.maxPerClass = 2;
  p.hasScoreThreshold = true;
  p.scoreThreshold = 0.5f;
  std::vector<int64_t> sel(6, -1);
  ASSERT_EQ(nonMaxSuppression(boxes.data(), scores.data(), p, sel.data(), 2),
            1);
  EXPECT_EQ(sel[2], 1);
  EXPECT_EQ(sel[5], 0); // padding
}

TEST(NonMaxSuppression, RefusesATooSmallBound) {
  std::vector<float> boxes{0, 0, 1, 1, 5, 5, 6, 6};
  std::vector<float> scores{0.5f, 0.6f};
  NmsParams p;
  p.batches = p.classes = 1;
  p.boxes = 2;
  p.maxPerClass = 2;
  std::vector<int64_t> sel(3);
  EXPECT_EQ(nonMaxSuppression(boxes.data(), scores.data(), p, sel.data(), 1),
            -1);
}
} // namespace
