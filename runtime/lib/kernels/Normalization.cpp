//===- Normalization.cpp - batch norm, global pooling, softmax on any axis ===//
//
// Part of opscope's runtime. The plain (non-fused) normalisation and pooling
// helpers (channels-last max pooling over the kernel table's pixel
// maximum); the hot last-axis softmax and layer norm are in kernels.h.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"
#include "Parallel.h"

#include "opscope/runtime/generic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace opscope::rt;

void opscope::rt::batchNorm(const float *x, const Shape &shape,
                            const float *scale, const float *bias,
                            const float *mean, const float *var, float eps,
                            float *y) {
  int64_t n = shape[0], c = shape.size() > 1 ? shape[1] : 1;
  int64_t inner = numElements(shape) / std::max<int64_t>(n * c, 1);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      float s = scale[ch] / std::sqrt(var[ch] + eps);
      float t = bias[ch] - mean[ch] * s;
      const float *in = x + (b * c + ch) * inner;
      float *out = y + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i)
        out[i] = in[i] * s + t;
    }
}

void opscope::rt::instanceNorm(const float *x, const Shape &shape,
                               const float *scale, const float *bias,
                               float eps, float *y) {
  int64_t c = shape.size() > 1 ? shape[1] : 1;
  int64_t rows = shape.empty() ? 1 : shape[0] * c;
  int64_t inner = numElements(shape) / std::max<int64_t>(rows, 1);
  if (inner == 0)
    return;
  auto row = kernelTable().instanceNormRow;
  // A range of rows per thread, each range at least ~32K elements.
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / inner);
  detail::parallelRanges(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      row(x + r * inner, y + r * inner, inner, scale[r % c], bias[r % c], eps);
  });
}

void opscope::rt::lrn(const float *x, const Shape &shape, int64_t size,
                      float alpha, float beta, float bias, float *y) {
  int64_t c = shape.size() > 1 ? shape[1] : 1;
  int64_t rows = shape.empty() ? 1 : shape[0] * c;
  int64_t inner = numElements(shape) / std::max<int64_t>(rows, 1);
  if (inner == 0)
    return;
  auto row = kernelTable().lrnRow;
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const float k = alpha / static_cast<float>(size);
  int64_t grain = std::max<int64_t>(1, (int64_t(1) << 15) / inner);
  detail::parallelRanges(rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t ch = r % c, lo = std::max<int64_t>(0, ch - before),
              hi = std::min<int64_t>(c - 1, ch + after);
      row(x + r * inner, x + (r - ch + lo) * inner, inner, hi - lo + 1,
          y + r * inner, inner, k, beta, bias);
    }
  });
}

void opscope::rt::maxPool2DNhwc(const float *x, const Shape &input,
                                const Shape &output, const Shape &kernel,
                                const Shape &strides, const Shape &pads,
                                const Shape &dilations, float *y) {
  auto maxPixel = kernelTable().maxPixelNhwc;
  const int64_t c = input[1], ih = input[2], iw = input[3];
  const int64_t oh = output[2], ow = output[3];
  const int64_t taps = kernel[0] * kernel[1];
  // Output columns whose whole window is inside the image along the row,
  // [ox0, ox1): their windows are the first one's moved by the stride, so
  // it is gathered once per output row and then advanced (checking each
  // pixel's bounds took 28% of the CNN's pool at 32 channels, AVX2 tier).
  const int64_t span = (kernel[1] - 1) * dilations[1];
  const int64_t ox0 =
      std::min<int64_t>(ow, (pads[1] + strides[1] - 1) / strides[1]);
  int64_t ox1 = ox0;
  while (ox1 < ow && ox1 * strides[1] - pads[1] + span < iw)
    ++ox1;
  // Output rows (image by image) over the threads, 16K outputs a range at
  // least: on one thread the corpus CNN's pool took 0.10 ms alone and 0.18
  // with a second thread in force, its input half in the other core's
  // cache (the convolution before it ran on both; AMD EPYC Zen 3, AVX2
  // tier).
  const int64_t grain =
      std::max<int64_t>(1, (int64_t(1) << 14) / std::max<int64_t>(1, ow * c));
  detail::parallelRanges(input[0] * oh, grain, [&](int64_t r0, int64_t r1) {
    // The window's pixels: on the stack up to 8x8 windows.
    const float *onStack[64];
    std::vector<const float *> onHeap;
    const float **px = onStack;
    if (taps > 64) {
      onHeap.resize(taps);
      px = onHeap.data();
    }
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / oh, oy = r % oh;
      const float *xb = x + n * ih * iw * c;
      float *yb = y + n * oh * ow * c;
      // Output pixel (oy, ox) from the `count` window pixels in px.
      auto maxOf = [&](int64_t count, int64_t ox) {
        float *out = yb + (oy * ow + ox) * c;
        if (count)
          maxPixel(px, count, out, c);
        else
          std::fill(out, out + c, std::numeric_limits<float>::lowest());
      };
      // The same, gathering its window's pixels inside the image into px;
      // returns how many.
      auto pool = [&](int64_t ox) {
        int64_t count = 0;
        for (int64_t ky = 0; ky < kernel[0]; ++ky) {
          int64_t sy = oy * strides[0] - pads[0] + ky * dilations[0];
          if (sy < 0 || sy >= ih)
            continue;
          for (int64_t kx = 0; kx < kernel[1]; ++kx) {
            int64_t sx = ox * strides[1] - pads[1] + kx * dilations[1];
            if (sx >= 0 && sx < iw)
              px[count++] = xb + (sy * iw + sx) * c;
          }
        }
        maxOf(count, ox);
        return count;
      };
      for (int64_t ox = 0; ox < ox0; ++ox)
        pool(ox);
      if (ox0 < ox1) {
        int64_t count = pool(ox0);
        for (int64_t ox = ox0 + 1; ox < ox1; ++ox) {
          for (int64_t j = 0; j < count; ++j)
            px[j] += strides[1] * c;
          maxOf(count, ox);
        }
      }
      for (int64_t ox = ox1; ox < ow; ++ox)
        pool(ox);
    }
  });
}

void opscope::rt::globalPool(bool isMax, const float *x, const Shape &shape,
                             float *y) {
  // Each plane is a contiguous row: the table's row reduction (16 partial
  // sums or maxima per row, at the tier's vector width).
  int64_t planes = shape[0] * shape[1];
  int64_t inner = numElements(shape) / std::max<int64_t>(planes, 1);
  kernelTable().reduceRows(isMax ? ReduceKind::Max : ReduceKind::Mean, x, y,
                           planes, inner);
}

void opscope::rt::softmaxAxis(const float *x, const Shape &shape, int64_t axis,
                              bool log, float *y) {
  int64_t outer = 1, inner = 1, len = shape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *in = x + o * len * inner + i;
      float *out = y + o * len * inner + i;
      float mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j)
        mx = std::max(mx, in[j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(double(in[j * inner] - mx));
      for (int64_t j = 0; j < len; ++j) {
        double v = in[j * inner] - mx;
        out[j * inner] = static_cast<float>(log ? v - std::log(sum)
                                                : std::exp(v) / sum);
      }
    }
}

void opscope::rt::maxPool2DNchw(const float *x, const Shape &input,
                                const Shape &output, const Shape &kernel,
                                const Shape &strides, const Shape &pads,
                                const Shape &dilations, float *y) {
  const int64_t planes = input[0] * input[1], ih = input[2], iw = input[3];
  const int64_t oh = output[2], ow = output[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0],
                sw = strides[1], dh = dilations[0], dw = dilations[1];
  // Planes over the threads in force, 64K outputs a range at least.
  const int64_t grain =
      std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, oh * ow));
  detail::parallelRanges(planes, grain, [&](int64_t p0, int64_t p1) {
    std::vector<float> acc(ow);
    for (int64_t pl = p0; pl < p1; ++pl) {
      const float *xp = x + pl * ih * iw;
      float *yp = y + pl * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        std::fill(acc.begin(), acc.end(), std::numeric_limits<float>::lowest());
        // Rows of the window inside the image; padded cells never win.
        for (int64_t ky = 0; ky < kh; ++ky) {
          int64_t sy = oy * sh - pads[0] + ky * dh;
          if (sy < 0 || sy >= ih)
            continue;
          const float *row = xp + sy * iw;
          for (int64_t kx = 0; kx < kw; ++kx) {
            // Output columns whose tap kx lands inside the row.
            int64_t off = kx * dw - pads[1];
            int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
            int64_t hi = std::min<int64_t>(ow, (iw - 1 - off) / sw + 1);
            if (iw - 1 - off < 0)
              hi = 0;
            float *a = acc.data();
            if (sw == 1) {
              const float *r = row + off;
              for (int64_t ox = lo; ox < hi; ++ox)
                a[ox] = std::max(a[ox], r[ox]);
            } else {
              for (int64_t ox = lo; ox < hi; ++ox)
                a[ox] = std::max(a[ox], row[ox * sw + off]);
            }
          }
        }
        std::copy(acc.begin(), acc.end(), yp + oy * ow);
      }
    }
  });
}
