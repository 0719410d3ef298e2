//===- Resize.cpp - ONNX Resize (nearest, linear, cubic) ------------------===//
//
// Part of opscope's runtime. Separable: every dimension is resized
// independently from taps planned per output index.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/generic.h"

#include "KernelTable.h"
#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

using namespace opscope::rt;
using opscope::rt::detail::parallelRanges;

namespace {
/// Input coordinate of output index `o` along one dimension (ONNX Resize);
/// `roiStart` and `roiEnd` are the crop box's along it (tf_crop_and_resize).
double sourceCoordinate(CoordinateTransform t, int64_t o, int64_t in,
                        int64_t out, double scale, double roiStart = 0.0,
                        double roiEnd = 1.0) {
  switch (t) {
  case CoordinateTransform::TfHalfPixelForNn:
    return (o + 0.5) / scale;
  case CoordinateTransform::TfCropAndResize:
    return out > 1 ? roiStart * (in - 1) +
                         o * (roiEnd - roiStart) * (in - 1) / (out - 1)
                   : 0.5 * (roiStart + roiEnd) * (in - 1);
  case CoordinateTransform::HalfPixel:
    return (o + 0.5) / scale - 0.5;
  case CoordinateTransform::PytorchHalfPixel:
    return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  case CoordinateTransform::AlignCorners: {
    // ONNX: length_resized is input * scale, unrounded, when scales are given.
    double resized = scale * in;
    return resized == 1.0 ? 0.0 : double(o) * (in - 1) / (resized - 1.0);
  }
  case CoordinateTransform::Asymmetric:
    return o / scale;
  case CoordinateTransform::HalfPixelSymmetric: {
    double adjustment = out / (scale * in);
    double center = in / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (o + 0.5) / scale - 0.5;
  }
  }
  return 0;
}

int64_t nearestIndex(NearestMode m, double c, int64_t in) {
  double r;
  switch (m) {
  case NearestMode::RoundPreferFloor:
    r = (c - std::floor(c) == 0.5) ? std::floor(c) : std::round(c);
    break;
  case NearestMode::RoundPreferCeil:
    r = (c - std::floor(c) == 0.5) ? std::ceil(c) : std::round(c);
    break;
  case NearestMode::Floor:
    r = std::floor(c);
    break;
  case NearestMode::Ceil:
  default:
    r = std::ceil(c);
    break;
  }
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
}

/// Whether a dimension of unchanged size (scale 1) is copied as it is.
/// ONNX Runtime copies it whatever the transformation, tf_half_pixel_for_nn
/// too (ONNX's reference would shift it by half a pixel); a crop maps it
/// onto its roi.
bool identityAtUnitScale(const ResizeParams &p) {
  return p.transform != CoordinateTransform::TfCropAndResize;
}

/// The crop box of dimension `d` (tf_crop_and_resize), else the whole one.
std::pair<double, double> roiOf(const ResizeParams &p, size_t d) {
  size_t rank = p.roi.size() / 2;
  if (p.transform != CoordinateTransform::TfCropAndResize || d >= rank)
    return {0.0, 1.0};
  return {p.roi[d], p.roi[rank + d]};
}

/// Taps (source index, weight) for every output index along dimension `d`.
std::vector<std::vector<std::pair<int64_t, float>>>
resizeTaps(const ResizeParams &p, size_t d, int64_t in, int64_t out,
           double scale) {
  std::vector<std::vector<std::pair<int64_t, float>>> taps(out);
  auto [roiStart, roiEnd] = roiOf(p, d);
  for (int64_t o = 0; o < out; ++o) {
    double c =
        sourceCoordinate(p.transform, o, in, out, scale, roiStart, roiEnd);
    auto &t = taps[o];
    if (p.mode == ResizeMode::Nearest) {
      t.push_back({nearestIndex(p.nearest, c, in), 1.0f});
      continue;
    }
    if (p.mode == ResizeMode::Linear) {
      c = std::clamp(c, 0.0, double(in - 1));
      int64_t i0 = static_cast<int64_t>(std::floor(c));
      double r = c - i0;
      t.push_back({i0, static_cast<float>(1 - r)});
      t.push_back({std::min(i0 + 1, in - 1), static_cast<float>(r)});
      continue;
    }
    int64_t i0 = static_cast<int64_t>(std::floor(c));
    double r = c - i0;
    double a = p.cubicA;
    double w[4] = {
        ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
        ((a + 2) * r - (a + 3)) * r * r + 1,
        ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
        ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a};
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      int64_t i = i0 - 1 + k;
      if (p.excludeOutside && (i < 0 || i >= in))
        w[k] = 0;
      sum += w[k];
    }
    for (int k = 0; k < 4; ++k) {
      double wk = p.excludeOutside && sum != 0 ? w[k] / sum : w[k];
      t.push_back({std::clamp<int64_t>(i0 - 1 + k, 0, in - 1),
                   static_cast<float>(wk)});
    }
  }
  return taps;
}
/// tf_crop_and_resize: every output whose coordinate is outside the input
/// in some dimension becomes the extrapolation value (ONNX's reference
/// writes it for the whole sample, not an interpolation of it).
void extrapolateOutside(const ResizeParams &p, const Shape &xShape, float *y,
                        const Shape &yShape) {
  size_t rank = yShape.size();
  std::vector<std::vector<char>> outside(rank);
  bool any = false;
  for (size_t d = 0; d < rank; ++d) {
    auto [roiStart, roiEnd] = roiOf(p, d);
    double scale = p.scales.empty() ? double(yShape[d]) / xShape[d]
                                    : double(p.scales[d]);
    outside[d].resize(yShape[d]);
    for (int64_t o = 0; o < yShape[d]; ++o) {
      double c = sourceCoordinate(p.transform, o, xShape[d], yShape[d], scale,
                                  roiStart, roiEnd);
      outside[d][o] = c < 0 || c > double(xShape[d] - 1);
      any |= outside[d][o] != 0;
    }
  }
  if (!any)
    return;
  Shape at(rank, 0);
  int64_t n = numElements(yShape);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < rank; ++d)
      if (outside[d][at[d]]) {
        y[i] = p.extrapolationValue;
        break;
      }
    for (size_t d = rank; d-- > 0;) {
      if (++at[d] < yShape[d])
        break;
      at[d] = 0;
    }
  }
}
} // namespace

void opscope::rt::resize(const ResizeParams &p, const float *x,
                         const Shape &xShape, float *y, const Shape &yShape) {
  // Separable: resize one dimension at a time through a scratch buffer.
  std::vector<float> cur(x, x + numElements(xShape)), next;
  Shape shape = xShape;
  bool crop = p.transform == CoordinateTransform::TfCropAndResize;
  for (size_t d = 0; d < shape.size(); ++d) {
    double scale = p.scales.empty() ? double(yShape[d]) / shape[d]
                                    : double(p.scales[d]);
    if (yShape[d] == shape[d] && scale == 1.0 && identityAtUnitScale(p))
      continue;
    auto taps = resizeTaps(p, d, shape[d], yShape[d], scale);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < d; ++i)
      outer *= shape[i];
    for (size_t i = d + 1; i < shape.size(); ++i)
      inner *= shape[i];
    next.assign(outer * yShape[d] * inner, 0.0f);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < yShape[d]; ++j) {
        float *dst = next.data() + (o * yShape[d] + j) * inner;
        for (auto [src, w] : taps[j]) {
          const float *s = cur.data() + (o * shape[d] + src) * inner;
          for (int64_t i = 0; i < inner; ++i)
            dst[i] += w * s[i];
        }
      }
    shape[d] = yShape[d];
    cur.swap(next);
  }
  std::memcpy(y, cur.data(), cur.size() * sizeof(float));
  if (crop)
    extrapolateOutside(p, xShape, y, yShape);
}

/// Resize2DPlan::colWindows for the columns' taps c0, c1.
static std::vector<int32_t> colWindows(const std::vector<int64_t> &c0,
                                      const std::vector<int64_t> &c1) {
  constexpr int64_t w = Resize2DPlan::kWindowCols;
  std::vector<int32_t> out;
  for (int64_t o = 0; o + w <= int64_t(c0.size()); o += w) {
    const int64_t base = c0[o];
    bool fits = base <= std::numeric_limits<int32_t>::max();
    for (int64_t i = o; i < o + w; ++i)
      fits = fits && c0[i] >= base && c0[i] < base + w && c1[i] >= base &&
             c1[i] < base + w;
    out.push_back(fits ? int32_t(base) : -1);
    for (const auto *c : {&c0, &c1})
      for (int64_t i = o; i < o + w; ++i)
        out.push_back(fits ? int32_t((*c)[i] - base) : 0);
  }
  return out;
}

/// Linear weights computed as ONNX Runtime's CPU Resize computes them
/// (upsample.h's SetupUpsampleBilinear): the source coordinate in float
/// from the float scale, clamped, the taps floor and floor + 1, each tap's
/// weight the distance to the other one (both 0.5 on the edge, where the
/// taps coincide). False for transforms this does not cover (the double
/// taps stay).
static bool ortLinearWeights(const ResizeParams &p, size_t d, int64_t in, int64_t out,
                      std::vector<int64_t> *src, std::vector<float> *w) {
  float scale = p.scales.empty() ? float(out) / float(in) : p.scales[d];
  for (int64_t o = 0; o < out; ++o) {
    float c, fo = static_cast<float>(o);
    switch (p.transform) {
    case CoordinateTransform::HalfPixel:
      c = (fo + 0.5f) / scale - 0.5f;
      break;
    case CoordinateTransform::PytorchHalfPixel:
      c = out > 1 ? (fo + 0.5f) / scale - 0.5f : 0.0f;
      break;
    case CoordinateTransform::Asymmetric:
      c = fo / scale;
      break;
    default:
      return false;
    }
    if (scale == 1.0f)
      c = fo;
    c = std::max(0.0f, std::min(c, static_cast<float>(in - 1)));
    int64_t i1 = std::min(static_cast<int64_t>(c), in - 1);
    int64_t i2 = std::min(i1 + 1, in - 1);
    src[0][o] = i1, src[1][o] = i2;
    w[0][o] = std::fabs(c - static_cast<float>(i2));
    w[1][o] = std::fabs(c - static_cast<float>(i1));
    if (i1 == i2)
      w[0][o] = w[1][o] = 0.5f;
  }
  return true;
}

std::optional<Resize2DPlan>
opscope::rt::planResize2D(const ResizeParams &p, const Shape &xShape,
                          const Shape &yShape) {
  size_t r = xShape.size();
  // (Leading dimensions are copied: they must map to themselves.)
  if (r < 2 || (p.mode != ResizeMode::Nearest && p.mode != ResizeMode::Linear) ||
      !identityAtUnitScale(p))
    return std::nullopt;
  Resize2DPlan plan;
  plan.planes = 1;
  for (size_t d = 0; d + 2 < r; ++d) {
    bool unit = p.scales.empty() || p.scales[d] == 1.0f;
    if (xShape[d] != yShape[d] || !unit)
      return std::nullopt;
    plan.planes *= xShape[d];
  }
  plan.inH = xShape[r - 2], plan.inW = xShape[r - 1];
  plan.outH = yShape[r - 2], plan.outW = yShape[r - 1];
  if (plan.inH == 0 || plan.inW == 0)
    return std::nullopt;
  auto fill = [&](size_t d, int64_t in, int64_t out, std::vector<int64_t> *src,
                  std::vector<float> *w) {
    double scale = p.scales.empty() ? double(out) / in : double(p.scales[d]);
    auto taps = resizeTaps(p, d, in, out, scale);
    for (int k = 0; k < 2; ++k) {
      src[k].resize(out);
      w[k].resize(out);
    }
    for (int64_t o = 0; o < out; ++o) {
      const auto &t = taps[o];
      src[0][o] = t[0].first, w[0][o] = t[0].second;
      src[1][o] = t.size() > 1 ? t[1].first : t[0].first;
      w[1][o] = t.size() > 1 ? t[1].second : 0.0f;
    }
  };
  fill(r - 2, plan.inH, plan.outH, plan.rowSrc, plan.rowW);
  fill(r - 1, plan.inW, plan.outW, plan.colSrc, plan.colW);
  // Bilinear: ONNX Runtime's weights and, in resize2D, its order of
  // operations, so that a dynamically quantized network, which rounds
  // every activation to 8 bits after it, sees the same bits (issue 53: an
  // ulp here moved a value across a quantization step, and the step grew
  // through the following layers).
  if (p.mode == ResizeMode::Linear)
    plan.ortOrder =
        ortLinearWeights(p, r - 2, plan.inH, plan.outH, plan.rowSrc,
                         plan.rowW) &&
        ortLinearWeights(p, r - 1, plan.inW, plan.outW, plan.colSrc,
                         plan.colW);
  if (p.mode == ResizeMode::Linear && !plan.ortOrder) {
    fill(r - 2, plan.inH, plan.outH, plan.rowSrc, plan.rowW);
    fill(r - 1, plan.inW, plan.outW, plan.colSrc, plan.colW);
  }
  if (plan.ortOrder)
    plan.colWindows = colWindows(plan.colSrc[0], plan.colSrc[1]);
  plan.colCopy = std::all_of(plan.colW[1].begin(), plan.colW[1].end(),
                             [](float w) { return w == 0.0f; }) &&
                 std::all_of(plan.colW[0].begin(), plan.colW[0].end(),
                             [](float w) { return w == 1.0f; });
  return plan;
}

/// resize2D's bilinear form in ONNX Runtime's order (UpsampleBilinear):
/// y = ((wx0*wy0)*x00 + (wx1*wy0)*x01) + (wx0*wy1)*x10 + (wx1*wy1)*x11,
/// each product rounded, no fused multiply-add (the table's rows compile
/// with -ffp-contract=off). The two taps of each source row are gathered
/// once into contiguous rows (the table's gatherTaps), so the blend
/// (blendTapsOrt) is element-wise and vectorizes. Planes over the threads
/// in force, each range with its own tap rows.
static void resize2DOrtOrder(const Resize2DPlan &plan, const float *x,
                             float *y) {
  const KernelTable &table = kernelTable();
  const int64_t iw = plan.inW, ow = plan.outW;
  const int64_t *c0 = plan.colSrc[0].data(), *c1 = plan.colSrc[1].data();
  const float *wx0 = plan.colW[0].data(), *wx1 = plan.colW[1].data();
  const int64_t grain = std::max<int64_t>(
      1, (int64_t(1) << 16) / std::max<int64_t>(1, plan.outH * ow));
  if (table.resizeRowOrt) {
    // Each output row from its two source rows directly.
    parallelRanges(plan.planes, grain, [&](int64_t first, int64_t last) {
      for (int64_t pl = first; pl < last; ++pl) {
        const float *xp = x + pl * plan.inH * iw;
        float *yp = y + pl * plan.outH * ow;
        for (int64_t oy = 0; oy < plan.outH; ++oy)
          table.resizeRowOrt(xp + plan.rowSrc[0][oy] * iw,
                             xp + plan.rowSrc[1][oy] * iw, iw, c0, c1,
                             plan.colWindows.data(), wx0, wx1,
                             plan.rowW[0][oy], plan.rowW[1][oy], yp + oy * ow,
                             ow);
      }
    });
    return;
  }
  parallelRanges(plan.planes, grain, [&](int64_t first, int64_t last) {
    // Gathered taps of two source rows: [k][0] the first, [k][1] the second.
    std::vector<float> taps[2][2];
    for (auto &t : taps)
      t[0].resize(ow), t[1].resize(ow);
    for (int64_t pl = first; pl < last; ++pl) {
      const float *xp = x + pl * plan.inH * iw;
      float *yp = y + pl * plan.outH * ow;
      int64_t cached[2] = {-1, -1};
      auto gather = [&](int64_t s, int keep) -> int {
        for (int k = 0; k < 2; ++k)
          if (cached[k] == s)
            return k;
        int k =
            keep == 0 ? 1 : keep == 1 ? 0 : (cached[0] <= cached[1] ? 0 : 1);
        table.gatherTaps(xp + s * iw, iw, c0, c1, taps[k][0].data(),
                         taps[k][1].data(), ow);
        cached[k] = s;
        return k;
      };
      for (int64_t oy = 0; oy < plan.outH; ++oy) {
        int k0 = gather(plan.rowSrc[0][oy], -1);
        int k1 = gather(plan.rowSrc[1][oy], k0);
        table.blendTapsOrt(taps[k0][0].data(), taps[k0][1].data(),
                           taps[k1][0].data(), taps[k1][1].data(), wx0, wx1,
                           plan.rowW[0][oy], plan.rowW[1][oy], yp + oy * ow,
                           ow);
      }
    }
  });
}

void opscope::rt::resize2D(const Resize2DPlan &plan, const float *x, float *y) {
  if (plan.ortOrder)
    return resize2DOrtOrder(plan, x, y);
  const KernelTable &table = kernelTable();
  const int64_t iw = plan.inW, ow = plan.outW;
  const int64_t *c0 = plan.colSrc[0].data(), *c1 = plan.colSrc[1].data();
  const float *w0 = plan.colW[0].data(), *w1 = plan.colW[1].data();
  // Planes over the threads in force, each range with its own rows.
  const int64_t grain = std::max<int64_t>(
      1, (int64_t(1) << 16) / std::max<int64_t>(1, plan.outH * ow));
  parallelRanges(plan.planes, grain, [&](int64_t first, int64_t last) {
    std::vector<float> rows[2] = {std::vector<float>(ow),
                                  std::vector<float>(ow)};
    for (int64_t pl = first; pl < last; ++pl) {
      const float *xp = x + pl * plan.inH * iw;
      float *yp = y + pl * plan.outH * ow;
      int64_t cached[2] = {-1, -1};
      // The horizontally resampled source row `s`, in one of two buffers;
      // `keep` is a buffer not to overwrite (the other row of a blend).
      auto row = [&](int64_t s, int keep, int &at) -> const float * {
        for (int k = 0; k < 2; ++k)
          if (cached[k] == s)
            return rows[at = k].data();
        int k =
            keep == 0 ? 1 : keep == 1 ? 0 : (cached[0] <= cached[1] ? 0 : 1);
        // Nearest (colCopy): a copy, no 0 * inf.
        table.resampleRow(xp + s * iw, c0, c1, w0, w1, rows[k].data(), ow,
                          plan.colCopy);
        cached[k] = s;
        return rows[at = k].data();
      };
      for (int64_t oy = 0; oy < plan.outH; ++oy) {
        float *dst = yp + oy * ow;
        float a = plan.rowW[0][oy], b = plan.rowW[1][oy];
        int k0 = -1, k1 = -1;
        const float *r0 = row(plan.rowSrc[0][oy], -1, k0);
        if (b == 0.0f && a == 1.0f) {
          std::memcpy(dst, r0, ow * sizeof(float));
          continue;
        }
        const float *r1 = row(plan.rowSrc[1][oy], k0, k1);
        table.blendRows(r0, r1, a, b, dst, ow);
      }
    }
  });
}

void opscope::rt::resize2DNhwc(const Resize2DPlan &plan, int64_t channels,
                               const float *x, float *y) {
  const KernelTable &table = kernelTable();
  const int64_t c = channels, iw = plan.inW, ow = plan.outW;
  const int64_t batches = channels ? plan.planes / channels : 0;
  // Output rows of every image over the threads in force, 64K floats a
  // range at least.
  const int64_t grain =
      std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, ow * c));
  parallelRanges(batches * plan.outH, grain, [&](int64_t begin, int64_t end) {
    for (int64_t at = begin; at < end; ++at) {
      int64_t n = at / plan.outH, oy = at % plan.outH;
      const float *xb = x + n * plan.inH * iw * c;
      float *yb = y + n * plan.outH * ow * c;
      // The plain kernel's arithmetic, per channel: rows resampled
      // horizontally, then blended (or, with weights 1 and 0, taken).
      float a = plan.rowW[0][oy], b = plan.rowW[1][oy];
      bool oneRow = b == 0.0f && a == 1.0f;
      const float *r0 = xb + plan.rowSrc[0][oy] * iw * c;
      const float *r1 = xb + plan.rowSrc[1][oy] * iw * c;
      table.resizeRowNhwc(r0, r1, plan.colSrc[0].data(), plan.colSrc[1].data(),
                          plan.colW[0].data(), plan.colW[1].data(), a, b,
                          plan.colCopy, oneRow, yb + oy * ow * c, ow, c);
    }
  });
}
