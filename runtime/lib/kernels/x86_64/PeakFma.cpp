//===- PeakFma.cpp - one core's FMA peak, per vector width ----------------===//
//
// Part of opscope's analysis library (opscope-analyze --calibrate): FMA
// loops with independent accumulators, which hide the latency, at 256 and
// 512 bits. Machine.cpp picks one by the tier in force.
//
//===----------------------------------------------------------------------===//

#include "PeakFma.h"

#include <chrono>
#include <cstdint>
#include <immintrin.h>

namespace {
using Clock = std::chrono::steady_clock;
/// Independent accumulators per loop: enough to hide the latency (an FMA's
/// 4 cycles on two pipes needs 8; SSE's multiply then add about 12) and
/// few enough to stay in registers. AVX-512 has 32 vector registers; AVX2
/// and SSE have 16, where 16 accumulators plus the two constants spill:
/// opscope-analyze --calibrate under the avx2 cap measured 81.5 GFLOP/s
/// with 16 against 131.9 with 12 on a Zen 5 core.
constexpr int kAccumulators512 = 16;
constexpr int kAccumulators = 12;
} // namespace

__attribute__((target("avx512f"))) double
opscope::peak::fmaGflopsAvx512(double seconds) {
  __m512 acc[kAccumulators512];
  for (int i = 0; i < kAccumulators512; ++i)
    acc[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  int64_t rounds = 0;
  auto start = Clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 4096; ++r)
      for (int i = 0; i < kAccumulators512; ++i)
        acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    rounds += 4096;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  float sink = 0;
  for (int i = 0; i < kAccumulators512; ++i)
    sink += _mm512_reduce_add_ps(acc[i]);
  volatile float keep = sink;
  (void)keep;
  return rounds * kAccumulators512 * 16.0 * 2.0 / elapsed / 1e9;
}

__attribute__((target("avx2,fma"))) double
opscope::peak::fmaGflopsAvx2(double seconds) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = _mm256_set1_ps(1.0f + i * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  int64_t rounds = 0;
  auto start = Clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 4096; ++r)
      for (int i = 0; i < kAccumulators; ++i)
        acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    rounds += 4096;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  float out[8], sink = 0;
  for (int i = 0; i < kAccumulators; ++i) {
    _mm256_storeu_ps(out, acc[i]);
    sink += out[0];
  }
  volatile float keep = sink;
  (void)keep;
  return rounds * kAccumulators * 8.0 * 2.0 / elapsed / 1e9;
}


/// Below AVX2 (SSE4.1 CPUs, or OPSCOPE_MAX_ISA=sse41) there is no FMA: a
/// multiply and an add per lane on 128-bit vectors, counted as two flops,
/// the way the reference tier's kernels compute.
double opscope::peak::mulAddGflopsSse(double seconds) {
  __m128 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = _mm_set1_ps(1.0f + i * 1e-3f);
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  int64_t rounds = 0;
  auto start = Clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 4096; ++r)
      for (int i = 0; i < kAccumulators; ++i)
        acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], a), b);
    rounds += 4096;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  float out[4], sink = 0;
  for (int i = 0; i < kAccumulators; ++i) {
    _mm_storeu_ps(out, acc[i]);
    sink += out[0];
  }
  volatile float keep = sink;
  (void)keep;
  return rounds * kAccumulators * 4.0 * 2.0 / elapsed / 1e9;
}
