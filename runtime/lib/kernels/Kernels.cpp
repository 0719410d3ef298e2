//===- Kernels.cpp - layer_norm, softmax, gelu and conversions ------------===//
//
// Part of opscope's runtime. The entry points of kernels.h: each calls the
// kernel table's form for the tier in force (KernelTable.h); the bf16
// outputs are computed in f32 a block of rows at a time and rounded. The
// f32 row kernels (layer norm, softmax) split their rows over the threads
// in force, in ranges of at least kRowGrain elements.
//
//===----------------------------------------------------------------------===//

#include "AlignedBuffer.h"
#include "KernelTable.h"
#include "Parallel.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>

using namespace opscope::rt;

namespace {
/// The fewest elements a thread's range of rows holds: below it a parallel
/// region costs more than the rows (a few microseconds).
constexpr int64_t kRowGrain = int64_t(1) << 15;

int64_t rowGrain(int64_t cols) {
  return std::max<int64_t>(1, kRowGrain / std::max<int64_t>(cols, 1));
}
} // namespace

void opscope::rt::transcendental(Transcendental f, const float *x, float *y,
                                 int64_t n) {
  kernelTable().transcendental(f, x, y, n);
}

void opscope::rt::gelu(const float *x, float *y, int64_t n, bool tanhForm) {
  kernelTable().gelu(x, y, n, tanhForm);
}

void opscope::rt::layerNorm(const float *x, const float *gamma,
                            const float *beta, float *y, int64_t rows,
                            int64_t cols, float eps) {
  const KernelTable &kt = kernelTable();
  detail::parallelRanges(rows, rowGrain(cols), [&](int64_t r0, int64_t r1) {
    kt.layerNorm(x + r0 * cols, gamma, beta, y + r0 * cols, r1 - r0, cols,
                 eps);
  });
}

void opscope::rt::layerNormTransposed(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      int64_t rows, int64_t cols, float eps) {
  kernelTable().layerNormTransposed(x, gamma, beta, y, rows, cols, eps);
}

void opscope::rt::softmax(const float *x, const float *mask,
                          int64_t maskRowGroup, float *y, int64_t rows,
                          int64_t cols, bool log) {
  const KernelTable &kt = kernelTable();
  int64_t group = std::max<int64_t>(1, maskRowGroup);
  // Row r reads mask row r / group, counted from the call's first row: a
  // range that starts inside a group is cut at that group's end, and the
  // rest starts on a group.
  auto call = [&](int64_t r0, int64_t r1) {
    kt.softmax(x + r0 * cols, mask ? mask + (r0 / group) * cols : nullptr,
               group, y + r0 * cols, r1 - r0, cols, log);
  };
  detail::parallelRanges(rows, rowGrain(cols), [&](int64_t r0, int64_t r1) {
    if (mask && r0 % group != 0) {
      int64_t end = std::min(r1, (r0 / group + 1) * group);
      call(r0, end);
      r0 = end;
    }
    if (r0 < r1)
      call(r0, r1);
  });
}

void opscope::rt::roundToBf16(const float *x, uint16_t *y, int64_t n) {
  kernelTable().toBf16(x, y, n);
}

void opscope::rt::roundToBf16AsF32(const float *x, float *y, int64_t n) {
  kernelTable().roundToBf16AsF32(x, y, n);
}

void opscope::rt::bf16ToF32(const uint16_t *x, float *y, int64_t n) {
  kernelTable().fromBf16(x, y, n);
}

void opscope::rt::quantizeU8(const float *x, uint8_t *q, int64_t n,
                             float scale, int32_t zeroPoint) {
  kernelTable().quantizeU8(x, q, n, 1.0f / scale, zeroPoint);
}

void opscope::rt::quantizeS8(const float *x, int8_t *q, int64_t n,
                             float scale) {
  kernelTable().quantizeS8(x, q, n, 1.0f / scale);
}

float opscope::rt::maxAbs(const float *x, int64_t n) {
  return kernelTable().maxAbs(x, n);
}

namespace {
/// Runs `f(first, count, scratch)` over blocks of rows that each fit about
/// 16 KiB of f32 scratch (at least one row) and never straddle a multiple
/// of `boundary`, then rounds each block's f32 rows into `y` (bf16).
template <typename F>
void bf16Rows(uint16_t *y, int64_t rows, int64_t cols, int64_t boundary,
              F f) {
  thread_local AlignedBuffer<float> scratch;
  int64_t block = std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1));
  scratch.resize(block * cols);
  for (int64_t r = 0; r < rows;) {
    int64_t n = std::min({block, rows - r, boundary - r % boundary});
    f(r, n, scratch.data);
    roundToBf16(scratch.data, y + r * cols, n * cols);
    r += n;
  }
}
} // namespace

void opscope::rt::layerNorm(const float *x, const float *gamma,
                            const float *beta, uint16_t *y, int64_t rows,
                            int64_t cols, float eps) {
  bf16Rows(y, rows, cols, rows > 0 ? rows : 1,
           [&](int64_t r, int64_t n, float *tmp) {
             layerNorm(x + r * cols, gamma, beta, tmp, n, cols, eps);
           });
}

void opscope::rt::softmax(const float *x, const float *mask,
                          int64_t maskRowGroup, uint16_t *y, int64_t rows,
                          int64_t cols, bool log) {
  // Every block reads one mask row: blocks end at the mask groups' ends.
  int64_t group = std::max<int64_t>(1, maskRowGroup);
  bf16Rows(y, rows, cols, mask ? group : std::max<int64_t>(rows, 1),
           [&](int64_t r, int64_t n, float *tmp) {
             softmax(x + r * cols, mask ? mask + (r / group) * cols : nullptr,
                     n, tmp, n, cols, log);
           });
}


