//===- Sampling.cpp - GridSample and RoiAlign -----------------------------===//
//
// Part of opscope's runtime. The image ops that read an input at computed,
// fractional positions. Each output point's taps (offsets and weights) are
// worked out once and applied to every channel, so the per-channel work is
// a short weighted sum; the points are split over the threads.
// The arithmetic follows ONNX's reference implementation and ONNX Runtime:
// coordinates in f32, GridSample's reflection folded about the image's
// edges (pixel edges, or centres with align_corners), RoiAlign's samples
// as Caffe2's (a sample more than one pixel outside the image counts 0).
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include "opscope/runtime/generic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// x folded into [lo, hi] by reflection at both ends, as often as needed.
float reflect(float x, float lo, float hi) {
  float range = hi - lo;
  if (range <= 0)
    return lo;
  if (x < lo) {
    float dx = lo - x;
    int64_t n = static_cast<int64_t>(dx / range);
    float r = dx - n * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    float dx = x - hi;
    int64_t n = static_cast<int64_t>(dx / range);
    float r = dx - n * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

/// The cubic convolution weights (A = -0.75) of the taps at floor - 1 ..
/// floor + 2 for the fraction t.
void cubicWeights(float t, float w[4]) {
  const float a = -0.75f;
  float x = t + 1;
  w[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  x = 1 - t;
  w[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
  x = 2 - t;
  w[3] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}
} // namespace

void opscope::rt::gridSample(const float *x, const Shape &xs,
                             const float *grid, const Shape &gs,
                             ResizeMode mode, PadMode pad, bool alignCorners,
                             float *y) {
  const int64_t k = static_cast<int64_t>(xs.size()) - 2;
  const int64_t batch = xs[0], channels = xs[1];
  int64_t inN = 1, points = 1;
  for (int64_t d = 0; d < k; ++d) {
    inN *= xs[2 + d];
    points *= gs[1 + d];
  }
  // Each dimension's borders: pixel edges, or centres with align_corners.
  std::vector<float> lo(k), hi(k);
  std::vector<int64_t> stride(k);
  for (int64_t d = k - 1, s = 1; d >= 0; --d) {
    stride[d] = s;
    s *= xs[2 + d];
    lo[d] = alignCorners ? 0.0f : -0.5f;
    hi[d] = alignCorners ? xs[2 + d] - 1.0f : xs[2 + d] - 0.5f;
  }
  const int64_t taps1 = mode == ResizeMode::Nearest  ? 1
                        : mode == ResizeMode::Linear ? 2
                                                     : 4;
  detail::parallelRanges(batch * points, 16, [&](int64_t p0, int64_t p1) {
    // Per dimension: each tap's index (-1: a zero) and weight; then every
    // combination's offset and weight.
    std::vector<int64_t> index(k * 4);
    std::vector<float> weight(k * 4);
    std::vector<int64_t> offsets;
    std::vector<float> weights;
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t n = p / points, o = p % points;
      const float *g = grid + p * k;
      for (int64_t d = 0; d < k; ++d) {
        const int64_t size = xs[2 + d];
        // The grid's first coordinate is the last dimension's.
        float v = g[k - 1 - d];
        v = alignCorners ? (v + 1) / 2 * (size - 1)
                         : ((v + 1) * size - 1) / 2;
        if (mode == ResizeMode::Nearest)
          v = std::nearbyint(v);
        // Cubic reads every tap through the padding but leaves the
        // coordinate itself where it is (PyTorch's bicubic, which ONNX
        // Runtime follows; ONNX's reference clamps it for border too).
        if (mode != ResizeMode::Cubic && (v < lo[d] || v > hi[d])) {
          if (pad == PadMode::Edge)
            v = std::clamp(v, 0.0f, size - 1.0f);
          else if (pad == PadMode::Reflect)
            v = reflect(v, lo[d], hi[d]);
        }
        float base = mode == ResizeMode::Nearest ? std::trunc(v)
                                                 : std::floor(v);
        float t = v - base;
        float w[4] = {1, 0, 0, 0};
        int64_t first = static_cast<int64_t>(base);
        if (mode == ResizeMode::Linear) {
          w[0] = 1 - t;
          w[1] = t;
        } else if (mode == ResizeMode::Cubic) {
          cubicWeights(t, w);
          first -= 1;
        }
        for (int64_t j = 0; j < taps1; ++j) {
          int64_t i = first + j;
          if (i < 0 || i >= size) {
            if (pad == PadMode::Constant)
              i = -1;
            else if (pad == PadMode::Edge)
              i = std::clamp<int64_t>(i, 0, size - 1);
            else
              i = std::clamp<int64_t>(
                  static_cast<int64_t>(reflect(static_cast<float>(i), lo[d],
                                               hi[d])),
                  0, size - 1);
          }
          index[d * 4 + j] = i;
          weight[d * 4 + j] = w[j];
        }
      }
      offsets.clear();
      weights.clear();
      offsets.push_back(0);
      weights.push_back(1.0f);
      for (int64_t d = 0; d < k; ++d) {
        size_t count = offsets.size();
        for (size_t c = 0; c < count; ++c)
          for (int64_t j = 0; j < taps1; ++j) {
            int64_t i = index[d * 4 + j];
            if (i < 0 || offsets[c] < 0) {
              offsets.push_back(-1);
              weights.push_back(0);
            } else {
              offsets.push_back(offsets[c] + i * stride[d]);
              weights.push_back(weights[c] * weight[d * 4 + j]);
            }
          }
        offsets.erase(offsets.begin(), offsets.begin() + count);
        weights.erase(weights.begin(), weights.begin() + count);
      }
      for (int64_t c = 0; c < channels; ++c) {
        const float *in = x + (n * channels + c) * inN;
        float acc = 0;
        for (size_t t = 0; t < offsets.size(); ++t)
          if (offsets[t] >= 0)
            acc += weights[t] * in[offsets[t]];
        y[(n * channels + c) * points + o] = acc;
      }
    }
  });
}

bool opscope::rt::roiAlign(const float *x, const Shape &xs, const float *rois,
                           const int64_t *batchIndices, int64_t numRois,
                           int64_t outH, int64_t outW, int64_t samplingRatio,
                           float spatialScale, bool halfPixel, bool isMax,
                           float *y) {
  const int64_t batch = xs[0], channels = xs[1], h = xs[2], w = xs[3];
  for (int64_t r = 0; r < numRois; ++r)
    if (batchIndices[r] < 0 || batchIndices[r] >= batch)
      return false;
  detail::parallelRanges(numRois, 1, [&](int64_t r0, int64_t r1) {
    struct Sample {
      int64_t o[4];
      float w[4];
    };
    std::vector<Sample> samples;
    for (int64_t r = r0; r < r1; ++r) {
      const float *roi = rois + r * 4;
      const float offset = halfPixel ? 0.5f : 0.0f;
      float x1 = roi[0] * spatialScale - offset,
            y1 = roi[1] * spatialScale - offset,
            x2 = roi[2] * spatialScale - offset,
            y2 = roi[3] * spatialScale - offset;
      float roiW = x2 - x1, roiH = y2 - y1;
      if (!halfPixel) {
        roiW = std::max(roiW, 1.0f);
        roiH = std::max(roiH, 1.0f);
      }
      const float binH = roiH / outH, binW = roiW / outW;
      const int64_t gridH = samplingRatio > 0
                                ? samplingRatio
                                : static_cast<int64_t>(std::ceil(roiH / outH));
      const int64_t gridW = samplingRatio > 0
                                ? samplingRatio
                                : static_cast<int64_t>(std::ceil(roiW / outW));
      const int64_t count = std::max<int64_t>(gridH * gridW, 1);
      // Every bin's samples: four corners and their bilinear weights.
      samples.clear();
      for (int64_t ph = 0; ph < outH; ++ph)
        for (int64_t pw = 0; pw < outW; ++pw)
          for (int64_t iy = 0; iy < gridH; ++iy)
            for (int64_t ix = 0; ix < gridW; ++ix) {
              float yy = y1 + ph * binH + (iy + 0.5f) * binH / gridH;
              float xx = x1 + pw * binW + (ix + 0.5f) * binW / gridW;
              Sample s{{0, 0, 0, 0}, {0, 0, 0, 0}};
              if (yy < -1.0f || yy > h || xx < -1.0f || xx > w) {
                samples.push_back(s);
                continue;
              }
              yy = std::max(yy, 0.0f);
              xx = std::max(xx, 0.0f);
              int64_t yl = static_cast<int64_t>(yy), xl = static_cast<int64_t>(xx);
              int64_t yh, xh;
              if (yl >= h - 1) {
                yh = yl = h - 1;
                yy = static_cast<float>(yl);
              } else {
                yh = yl + 1;
              }
              if (xl >= w - 1) {
                xh = xl = w - 1;
                xx = static_cast<float>(xl);
              } else {
                xh = xl + 1;
              }
              float ly = yy - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
              s = Sample{{yl * w + xl, yl * w + xh, yh * w + xl, yh * w + xh},
                         {hy * hx, hy * lx, ly * hx, ly * lx}};
              samples.push_back(s);
            }
      const int64_t perBin = gridH * gridW;
      for (int64_t c = 0; c < channels; ++c) {
        const float *in = x + (batchIndices[r] * channels + c) * h * w;
        float *out = y + (r * channels + c) * outH * outW;
        for (int64_t b = 0; b < outH * outW; ++b) {
          const Sample *s = samples.data() + b * perBin;
          if (isMax) {
            float m = perBin ? std::numeric_limits<float>::lowest() : 0.0f;
            for (int64_t i = 0; i < perBin; ++i)
              for (int j = 0; j < 4; ++j)
                m = std::max(m, s[i].w[j] * in[s[i].o[j]]);
            out[b] = m;
          } else {
            float sum = 0;
            for (int64_t i = 0; i < perBin; ++i)
              sum += s[i].w[0] * in[s[i].o[0]] + s[i].w[1] * in[s[i].o[1]] +
                     s[i].w[2] * in[s[i].o[2]] + s[i].w[3] * in[s[i].o[3]];
            out[b] = sum / count;
          }
        }
      }
    }
  });
  return true;
}
