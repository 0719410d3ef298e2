//===- Quantize.cpp - ONNX quantization kernels ---------------------------===//
//
// Part of opscope's runtime. See quantize.h. Portable code: these ops sit
// at the edges of quantized graphs; the int8 compute of inner products runs
// on oneDNN and the sparse VNNI kernels.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/quantize.h"

#include "AlignedBuffer.h"
#include "KernelTable.h"
#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

using namespace opscope::rt;

namespace {
int32_t load(const void *p, DType t, int64_t i) {
  switch (t) {
  case DType::U8:
    return static_cast<const uint8_t *>(p)[i];
  case DType::I8:
    return static_cast<const int8_t *>(p)[i];
  case DType::I32:
    return static_cast<const int32_t *>(p)[i];
  default:
    throw std::invalid_argument("quantized data must be u8, i8 or i32");
  }
}

float saturate(float v, DType t) {
  return t == DType::U8 ? std::clamp(v, 0.0f, 255.0f)
                        : std::clamp(v, -128.0f, 127.0f);
}
} // namespace

void opscope::rt::quantizeLinear(const float *x, const float *scale,
                                 const void *zero, DType type, int64_t outer,
                                 int64_t channels, int64_t inner, void *y) {
  if (type != DType::U8 && type != DType::I8)
    throw std::invalid_argument("quantize_linear produces u8 or i8");
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      float s = scale[c];
      float z = zero ? static_cast<float>(load(zero, type, c)) : 0.0f;
      int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        float q = saturate(std::nearbyint(x[base + i] / s) + z, type);
        if (type == DType::U8)
          static_cast<uint8_t *>(y)[base + i] = static_cast<uint8_t>(q);
        else
          static_cast<int8_t *>(y)[base + i] = static_cast<int8_t>(q);
      }
    }
}

void opscope::rt::dequantizeLinear(const void *x, DType type,
                                   const float *scale, const void *zero,
                                   int64_t outer, int64_t channels,
                                   int64_t inner, float *y) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      float s = scale[c];
      int32_t z = zero ? load(zero, type, c) : 0;
      int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        y[base + i] = static_cast<float>(load(x, type, base + i) - z) * s;
    }
}

void opscope::rt::dynamicQuantizeParams(const float *x, int64_t n,
                                        float *scale, uint8_t *zero) {
  float lo, hi;
  kernelTable().rangeWithZero(x, n, &lo, &hi);
  // As ONNX's reference, in f32: scale = range / 255, zero point =
  // saturate(round(0 - min / scale)).
  float s = (hi - lo) / 255.0f;
  float z = s > 0 ? std::clamp(std::nearbyint(0.0f - lo / s), 0.0f, 255.0f) : 0;
  *scale = s;
  *zero = static_cast<uint8_t>(z);
}

void opscope::rt::dynamicQuantizeLinear(const float *x, int64_t n, uint8_t *y,
                                        float *scale, uint8_t *zero) {
  dynamicQuantizeParams(x, n, scale, zero);
  float s = *scale, z = *zero;
  if (s > 0)
    kernelTable().quantizeU8Div(x, y, n, s, z);
  else
    std::fill(y, y + n, *zero);
}

const uint8_t *opscope::rt::dynamicQuantizeToScratch(const float *x,
                                                     int64_t n, float *scale,
                                                     uint8_t *zero) {
  // One buffer per thread for every dequantizing op: ops run one at a time
  // on a thread, and the data is read only inside the op that made it (a
  // buffer per op would hold every layer's input at once).
  thread_local AlignedBuffer<uint8_t> quantized;
  quantized.resize(static_cast<size_t>(n));
  dynamicQuantizeLinear(x, n, quantized.data, scale, zero);
  return quantized.data;
}

void opscope::rt::dequantizeSums(void *y, int64_t outer, int64_t channels,
                                 int64_t inner, const float *scale,
                                 int64_t scaleCount, const float *bias,
                                 int64_t biasCount, bool relu) {
  auto dequantizeRow = kernelTable().dequantizeRow;
  char *base = static_cast<char *>(y);
  constexpr int64_t kGrain = 1 << 14; // elements per thread at least
  if (inner == 1) {
    // Rows of `channels` outputs (an inner product): vectors across them.
    int64_t ss = scaleCount > 1, sb = biasCount > 1;
    detail::parallelRanges(outer, std::max<int64_t>(1, kGrain / channels),
                           [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        char *row = base + 4 * r * channels;
        dequantizeRow(row, reinterpret_cast<float *>(row), channels, scale, ss,
                      bias, sb, relu);
      }
    });
    return;
  }
  // Planes of `inner` outputs, one channel's scale and bias each (NCHW).
  detail::parallelRanges(outer * channels, std::max<int64_t>(1, kGrain / inner),
                         [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      int64_t c = p % channels;
      char *plane = base + 4 * p * inner;
      dequantizeRow(plane, reinterpret_cast<float *>(plane), inner,
                    scale + (scaleCount > 1 ? c : 0), 0,
                    bias ? bias + (biasCount > 1 ? c : 0) : nullptr, 0, relu);
    }
  });
}

void opscope::rt::matmulInteger(const void *a, DType aType, const Shape &aShape,
                                const void *b, DType bType, const Shape &bShape,
                                const void *aZero, int64_t aZeroCount,
                                const void *bZero, int64_t bZeroCount,
                                int32_t *y, const Shape &yShape) {
  size_t ar = aShape.size(), br = bShape.size(), yr = yShape.size();
  int64_t m = aShape[ar - 2], k = aShape[ar - 1], n = bShape[br - 1];
  // Batch offsets of a and b for each output batch index (broadcast).
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < yr; ++d)
    batches *= yShape[d];
  std::vector<int32_t> bz(n), az(m);
  for (int64_t j = 0; j < n; ++j)
    bz[j] = bZero ? load(bZero, bType, bZeroCount == 1 ? 0 : j) : 0;
  for (int64_t i = 0; i < m; ++i)
    az[i] = aZero ? load(aZero, aType, aZeroCount == 1 ? 0 : i) : 0;
#pragma omp parallel for
  for (int64_t bi = 0; bi < batches; ++bi) {
    // The output batch index, digit by digit, mapped into a and b.
    int64_t rest = bi, aOff = 0, bOff = 0, aStride = m * k, bStride = k * n;
    for (int64_t d = static_cast<int64_t>(yr) - 3; d >= 0; --d) {
      int64_t idx = rest % yShape[d];
      rest /= yShape[d];
      int64_t da = d - (static_cast<int64_t>(yr) - static_cast<int64_t>(ar));
      int64_t db = d - (static_cast<int64_t>(yr) - static_cast<int64_t>(br));
      if (da >= 0) {
        if (aShape[da] != 1)
          aOff += idx * aStride;
        aStride *= aShape[da];
      }
      if (db >= 0) {
        if (bShape[db] != 1)
          bOff += idx * bStride;
        bStride *= bShape[db];
      }
    }
    std::vector<int32_t> acc(n);
    for (int64_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0);
      for (int64_t c = 0; c < k; ++c) {
        int32_t av = load(a, aType, aOff + i * k + c) - az[i];
        if (av == 0)
          continue;
        for (int64_t j = 0; j < n; ++j)
          acc[j] += av * (load(b, bType, bOff + c * n + j) - bz[j]);
      }
      std::copy(acc.begin(), acc.end(), y + (bi * m + i) * n);
    }
  }
}

std::vector<int32_t> opscope::rt::centerWeights(const void *w, DType wType,
                                                const Shape &wShape,
                                                const void *wZero,
                                                int64_t wZeroCount) {
  int64_t oc = wShape[0], n = 1;
  for (int64_t d : wShape)
    n *= d;
  int64_t per = n / oc;
  std::vector<int32_t> ws(static_cast<size_t>(n));
  for (int64_t o = 0; o < oc; ++o) {
    int32_t wz = wZero ? load(wZero, wType, wZeroCount == 1 ? 0 : o) : 0;
    for (int64_t i = 0; i < per; ++i)
      ws[o * per + i] = load(w, wType, o * per + i) - wz;
  }
  return ws;
}

void opscope::rt::convInteger(const void *x, DType xType, const Shape &xShape,
                              const int32_t *wCentered, const Shape &wShape,
                              const void *xZero, const ConvIntegerWindow &win,
                              int32_t *y, const Shape &yShape) {
  // Spatial dimensions padded to three (size 1, stride 1, no padding).
  size_t sp = xShape.size() - 2;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0};
  for (size_t i = 0; i < sp; ++i) {
    size_t d = 3 - sp + i;
    in[d] = xShape[2 + i];
    k[d] = wShape[2 + i];
    out[d] = yShape[2 + i];
    st[d] = win.strides[i];
    dl[d] = win.dilations[i];
    pb[d] = win.pads[i];
  }
  int64_t n = xShape[0], c = xShape[1], oc = wShape[0], g = win.groups;
  int64_t cg = c / g, ocg = oc / g;
  int64_t inPlane = in[0] * in[1] * in[2], kVol = k[0] * k[1] * k[2];
  int64_t outPlane = out[0] * out[1] * out[2];
  // The input's zero point subtracted once: x - xZero as i32.
  int32_t xz = xZero ? load(xZero, xType, 0) : 0;
  std::vector<int32_t> xs(static_cast<size_t>(n * c * inPlane));
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = load(x, xType, static_cast<int64_t>(i)) - xz;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o) {
      int64_t grp = o / ocg;
      const int32_t *wo = wCentered + o * cg * kVol;
      int32_t *yo = y + (b * oc + o) * outPlane;
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            int32_t acc = 0;
            for (int64_t ic = 0; ic < cg; ++ic) {
              const int32_t *xc =
                  xs.data() + (b * c + grp * cg + ic) * inPlane;
              const int32_t *wc = wo + ic * kVol;
              for (int64_t kd = 0; kd < k[0]; ++kd) {
                int64_t id = od * st[0] - pb[0] + kd * dl[0];
                if (id < 0 || id >= in[0])
                  continue;
                for (int64_t kh = 0; kh < k[1]; ++kh) {
                  int64_t ih = oh * st[1] - pb[1] + kh * dl[1];
                  if (ih < 0 || ih >= in[1])
                    continue;
                  const int32_t *xrow = xc + (id * in[1] + ih) * in[2];
                  const int32_t *wrow = wc + (kd * k[1] + kh) * k[2];
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    int64_t iw = ow * st[2] - pb[2] + kw * dl[2];
                    if (iw >= 0 && iw < in[2])
                      acc += xrow[iw] * wrow[kw];
                  }
                }
              }
            }
            yo[(od * out[1] + oh) * out[2] + ow] = acc;
          }
    }
}

int32_t opscope::rt::quantizedValue(const void *p, DType t, int64_t i) {
  return load(p, t, i);
}
