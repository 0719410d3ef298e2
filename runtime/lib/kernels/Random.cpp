//===- Random.cpp - Philox4x32-10 draws -----------------------------------===//
//
// Part of opscope's runtime. The kernels of random.h. Each Philox block (four
// 32-bit words) gives a fixed number of elements: four f32 values (24 bits
// each), two f64 values (53 bits from two words), four f32 or two f64
// normals (Box-Muller on pairs of uniforms). Element i's value depends on
// the key and i only, so the output is split over threads in whole blocks
// and is the same on any thread count.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/random.h"

#include "Parallel.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

using namespace opscope;
using namespace opscope::rt;

std::array<uint32_t, 4> opscope::rt::philox4x32(std::array<uint32_t, 4> c,
                                                std::array<uint32_t, 2> k) {
  constexpr uint32_t M0 = 0xD2511F53, M1 = 0xCD9E8D57;
  constexpr uint32_t W0 = 0x9E3779B9, W1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += W0;
      k[1] += W1;
    }
    uint64_t p0 = uint64_t(M0) * c[0], p1 = uint64_t(M1) * c[2];
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

namespace {
/// SplitMix64's finalizer: a bijection that spreads every input bit.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Calls f(first element, elements, words) for every block of `perBlock`
/// elements covering [0, n), in parallel over whole blocks.
template <typename F>
void forBlocks(int64_t n, int perBlock, uint64_t key, F &&f) {
  int64_t blocks = (n + perBlock - 1) / perBlock;
  std::array<uint32_t, 2> k = {uint32_t(key), uint32_t(key >> 32)};
  // A block costs ~40 multiplies: 4096 blocks is tens of microseconds.
  detail::parallelRanges(blocks, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      auto w = philox4x32({uint32_t(b), uint32_t(uint64_t(b) >> 32), 0, 0}, k);
      int64_t first = b * perBlock;
      f(first, int(std::min<int64_t>(perBlock, n - first)), w);
    }
  });
}

/// [0, 1) from 24 bits of a word: exact in f32.
inline double unit24(uint32_t w) { return (w >> 8) * 0x1p-24; }
/// [0, 1) from 53 bits of two words: exact in f64.
inline double unit53(uint32_t a, uint32_t b) {
  return ((uint64_t(a >> 5) << 26) + (b >> 6)) * 0x1p-53;
}

/// low + (high - low) u, kept below high where rounding reaches it.
template <typename T> inline T scaled(double u, double low, double high) {
  T y = static_cast<T>(low + (high - low) * u);
  if (y >= static_cast<T>(high) && low < high)
    y = std::nextafter(static_cast<T>(high), static_cast<T>(low));
  return y;
}

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Writes 0 or 1 of element type Y.
template <typename Y, typename P>
void bernoulliInto(const P *p, Y *y, int64_t n, Y one, uint64_t key) {
  constexpr bool wide = sizeof(P) == 8;
  forBlocks(n, wide ? 2 : 4, key, [&](int64_t first, int count, auto &w) {
    for (int j = 0; j < count; ++j) {
      double u = wide ? unit53(w[2 * j], w[2 * j + 1]) : unit24(w[j]);
      y[first + j] = u < p[first + j] ? one : Y(0);
    }
  });
}

template <typename P>
void bernoulliFrom(const P *p, DType yt, void *y, int64_t n, uint64_t key) {
  switch (yt) {
  case DType::F32:
    return bernoulliInto(p, static_cast<float *>(y), n, 1.0f, key);
  case DType::F64:
    return bernoulliInto(p, static_cast<double *>(y), n, 1.0, key);
  case DType::F16:
    return bernoulliInto(p, static_cast<uint16_t *>(y), n, uint16_t(0x3C00),
                         key);
  case DType::BF16:
    return bernoulliInto(p, static_cast<uint16_t *>(y), n, uint16_t(0x3F80),
                         key);
  case DType::I1:
  case DType::I8:
  case DType::U8:
    return bernoulliInto(p, static_cast<uint8_t *>(y), n, uint8_t(1), key);
  case DType::I16:
    return bernoulliInto(p, static_cast<int16_t *>(y), n, int16_t(1), key);
  case DType::I32:
    return bernoulliInto(p, static_cast<int32_t *>(y), n, int32_t(1), key);
  case DType::I64:
    return bernoulliInto(p, static_cast<int64_t *>(y), n, int64_t(1), key);
  }
}
} // namespace

uint64_t opscope::rt::seedKey(double seed) {
  uint64_t bits;
  std::memcpy(&bits, &seed, sizeof bits);
  return mix64(bits);
}

uint64_t opscope::rt::freshKey() {
  static const uint64_t base =
      (uint64_t(std::random_device{}()) << 32) ^
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  static std::atomic<uint64_t> next{0};
  // Distinct counters give distinct keys (mix64 is a bijection).
  return mix64(base + next.fetch_add(1, std::memory_order_relaxed) *
                          0x9E3779B97F4A7C15ull);
}

void opscope::rt::randomUniform(DType t, void *y, int64_t n, double low,
                                double high, uint64_t key) {
  if (t == DType::F64) {
    double *d = static_cast<double *>(y);
    forBlocks(n, 2, key, [&](int64_t first, int count, auto &w) {
      for (int j = 0; j < count; ++j)
        d[first + j] = scaled<double>(unit53(w[2 * j], w[2 * j + 1]), low, high);
    });
    return;
  }
  float *f = static_cast<float *>(y);
  forBlocks(n, 4, key, [&](int64_t first, int count, auto &w) {
    for (int j = 0; j < count; ++j)
      f[first + j] = scaled<float>(unit24(w[j]), low, high);
  });
}

void opscope::rt::randomNormal(DType t, void *y, int64_t n, double mean,
                               double scale, uint64_t key) {
  // Box-Muller: u1 in (0, 1] keeps the logarithm finite.
  auto pair = [&](double u1, double u2, double &z0, double &z1) {
    double r = std::sqrt(-2.0 * std::log(u1));
    z0 = mean + scale * r * std::cos(kTwoPi * u2);
    z1 = mean + scale * r * std::sin(kTwoPi * u2);
  };
  if (t == DType::F64) {
    double *d = static_cast<double *>(y);
    forBlocks(n, 2, key, [&](int64_t first, int count, auto &w) {
      double z[2];
      pair(unit53(w[0], w[1]) + 0x1p-53, unit53(w[2], w[3]), z[0], z[1]);
      for (int j = 0; j < count; ++j)
        d[first + j] = z[j];
    });
    return;
  }
  float *f = static_cast<float *>(y);
  forBlocks(n, 4, key, [&](int64_t first, int count, auto &w) {
    double z[4];
    pair(unit24(w[0]) + 0x1p-24, unit24(w[1]), z[0], z[1]);
    pair(unit24(w[2]) + 0x1p-24, unit24(w[3]), z[2], z[3]);
    for (int j = 0; j < count; ++j)
      f[first + j] = static_cast<float>(z[j]);
  });
}

void opscope::rt::bernoulli(DType pt, const void *p, DType yt, void *y,
                            int64_t n, uint64_t key) {
  if (pt == DType::F64)
    bernoulliFrom(static_cast<const double *>(p), yt, y, n, key);
  else
    bernoulliFrom(static_cast<const float *>(p), yt, y, n, key);
}
