//===- Quantize.cpp - ONNX quantization kernels ---------------------------===//
//
// Part of opscope's runtime. See quantize.h. Portable code: these ops sit
// at the edges of quantized graphs; the int8 compute of inner products runs
// on oneDNN and the sparse VNNI kernels.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/quantize.h"

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
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
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
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<uint8_t>(
        s > 0 ? std::clamp(std::nearbyint(x[i] / s) + z, 0.0f, 255.0f) : z);
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
