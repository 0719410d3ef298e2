//===- PeakFma.cpp - one core's FMA and int8 peaks, per tier --------------===//
//
// Part of opscope's analysis library (opscope-analyze --calibrate): FMA
// loops with independent accumulators, which hide the latency, at 256 and
// 512 bits, and the int8 multiply-adds of each tier. Machine.cpp picks
// them by the tier in force.
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

namespace {
/// The int8 steps: 4096 multiply-adds into each accumulator they keep in
/// `state`; they return the u8 x s8 products of one multiply-add into
/// every accumulator.
using Int8Steps = int64_t (*)(void *state);
constexpr int kStepsPerCall = 4096;
/// Runs `steps` for `seconds`; GOP/s, two per product.
double int8Loop(Int8Steps steps, double seconds) {
  alignas(64) unsigned char state[12 * 64] = {};
  int64_t calls = 0, products = 0;
  auto start = Clock::now();
  double elapsed = 0;
  do {
    products = steps(state);
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  volatile unsigned char keep = state[0];
  (void)keep;
  return calls * double(kStepsPerCall) * products * 2.0 / elapsed / 1e9;
}
} // namespace

/// `NAME(state)`: 4096 steps `accI = STEP(accI)` (with `a` and `b` the
/// multiplicands, SETUP's) on accumulators acc0.. of type V, as many as
/// EACH names (at most 12), loaded from and stored back to `state`: named,
/// in a function without calls (in the timing loop's array GCC 12 stored
/// them to the stack on every step). Returns the products of one step on
/// them all, a u8 x s8 product per byte of V. `HIDE` runs before each
/// step: below VNNI an empty volatile asm that hides `a` from the
/// compiler, so that the products, the same on every step and not fed by
/// the accumulator, are computed on every step (vpdpbusd reads its
/// accumulator: nothing to hide). A macro, not a template: the steps need
/// their tier's target attribute.
#define OPSCOPE_PEAK_LOAD(i) V acc##i = acc[i];
#define OPSCOPE_PEAK_STEP(i)                                                   \
  HIDE;                                                                        \
  acc##i = STEP(acc##i);
#define OPSCOPE_PEAK_STORE(i) acc[i] = acc##i;
#define OPSCOPE_PEAK_EACH8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define OPSCOPE_PEAK_EACH12(X) OPSCOPE_PEAK_EACH8(X) X(8) X(9) X(10) X(11)
#define OPSCOPE_PEAK_ONE(i) +1
#define OPSCOPE_INT8_STEPS(NAME, TARGET, EACH)                                 \
  __attribute__((target(TARGET), noinline)) int64_t NAME(void *state) {        \
    V *acc = static_cast<V *>(state);                                          \
    SETUP;                                                                     \
    EACH(OPSCOPE_PEAK_LOAD)                                                    \
    for (int r = 0; r < kStepsPerCall; ++r) {                                  \
      EACH(OPSCOPE_PEAK_STEP)                                                  \
    }                                                                          \
    EACH(OPSCOPE_PEAK_STORE)                                                   \
    return (0 EACH(OPSCOPE_PEAK_ONE)) * int64_t(sizeof(V));                    \
  }

namespace {
// vpdpbusd adds into its accumulator (4-5 cycles on two pipes: 12
// accumulators hide it); below VNNI only the last vpaddd does, and the
// multiplies of different steps overlap, so 8 suffice.

#define V __m512i
#define SETUP V a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5)
#define HIDE (void)0
#define STEP(x) _mm512_dpbusd_epi32(x, a, b)
OPSCOPE_INT8_STEPS(stepsAvx512Vnni, "avx512f,avx512bw,avx512vnni",
                   OPSCOPE_PEAK_EACH12)
#undef STEP
#undef HIDE
#undef SETUP
#undef V

#define V __m256i
#define SETUP V a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(5)
#define HIDE (void)0
// GCC 12 copies the accumulator of _mm256_dpbusd_avx_epi32 through a
// scratch register and the stack on every step (285 against 528 GOP/s on
// a Zen 5 core): the instruction itself, VEX-encoded.
__attribute__((target("avx2,avxvnni"))) inline __m256i
dpbusdVex(__m256i acc, __m256i a, __m256i b) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
  return acc;
}
#define STEP(x) dpbusdVex(x, a, b)
OPSCOPE_INT8_STEPS(stepsAvxVnni, "avx2,avxvnni", OPSCOPE_PEAK_EACH12)
#undef STEP
#undef HIDE
#undef SETUP
#undef V

#define V __m512i
#define SETUP                                                                  \
  V a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5),                          \
    ones = _mm512_set1_epi16(1)
#define HIDE __asm__ volatile("" : "+v"(a))
#define STEP(x)                                                                \
  _mm512_add_epi32(x, _mm512_madd_epi16(_mm512_maddubs_epi16(a, b), ones))
OPSCOPE_INT8_STEPS(stepsAvx512, "avx512f,avx512bw", OPSCOPE_PEAK_EACH8)
#undef STEP
#undef HIDE
#undef SETUP
#undef V

#define V __m256i
#define SETUP                                                                  \
  V a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(5),                          \
    ones = _mm256_set1_epi16(1)
#define HIDE __asm__ volatile("" : "+x"(a))
#define STEP(x)                                                                \
  _mm256_add_epi32(x, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones))
OPSCOPE_INT8_STEPS(stepsAvx2, "avx2", OPSCOPE_PEAK_EACH8)
#undef STEP
#undef HIDE
#undef SETUP
#undef V

#define V __m128i
#define SETUP                                                                  \
  V a = _mm_set1_epi8(3), b = _mm_set1_epi8(5), ones = _mm_set1_epi16(1)
#define HIDE __asm__ volatile("" : "+x"(a))
#define STEP(x) _mm_add_epi32(x, _mm_madd_epi16(_mm_maddubs_epi16(a, b), ones))
OPSCOPE_INT8_STEPS(stepsSsse3, "ssse3", OPSCOPE_PEAK_EACH8)
#undef STEP
#undef HIDE
#undef SETUP
#undef V
} // namespace

double opscope::peak::int8GopsAvx512Vnni(double seconds) {
  return int8Loop(stepsAvx512Vnni, seconds);
}
double opscope::peak::int8GopsAvxVnni(double seconds) {
  return int8Loop(stepsAvxVnni, seconds);
}
double opscope::peak::int8GopsAvx512(double seconds) {
  return int8Loop(stepsAvx512, seconds);
}
double opscope::peak::int8GopsAvx2(double seconds) {
  return int8Loop(stepsAvx2, seconds);
}
double opscope::peak::int8GopsSsse3(double seconds) {
  return int8Loop(stepsSsse3, seconds);
}
