//===- random.h - counter-based random draws --------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The kernels of the osc random
// ops (OscRandomOps.td): ONNX RandomUniform(Like), RandomNormal(Like) and
// Bernoulli.
//
// The generator is Philox4x32-10 (Salmon et al., "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011; the generator of cuRAND, JAX and PyTorch's
// CUDA draws): a bijection of a 128-bit counter under a 64-bit key. Block
// `b` of four 32-bit words is philox(counter = b, key), so any element can
// be drawn without the ones before it: a kernel splits the output over
// threads and still gives the same values on any thread count or CPU tier.
//
// Keys: a `seed` attribute gives a fixed key (the seed's bits, mixed), so
// the same seed draws the same values every run; without one, every call of
// freshKey() gives a new key (a process-wide counter over a base taken once
// from std::random_device and the clock).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_RANDOM_H
#define OPSCOPE_RUNTIME_RANDOM_H

#include "opscope/runtime/generic.h"

#include <array>
#include <cstdint>

namespace opscope::rt {

/// Philox4x32-10 of the 128-bit counter (c0, c1, c2, c3) under key (k0, k1).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

/// The key a `seed` attribute gives (a function of the seed's value only).
uint64_t seedKey(double seed);
/// A key no earlier call in this process returned.
uint64_t freshKey();

/// Fills `y` (f32 or f64, `n` elements) with draws from [low, high); low ==
/// high gives low. Needs finite low <= high.
void randomUniform(DType t, void *y, int64_t n, double low, double high,
                   uint64_t key);

/// Fills `y` (f32 or f64) with draws from N(mean, scale^2) (Box-Muller).
void randomNormal(DType t, void *y, int64_t n, double mean, double scale,
                  uint64_t key);

/// y[i] = 1 when a uniform draw from [0, 1) is below p[i], else 0; `p` is
/// f32 or f64 and `y` any dtype (bf16 and f16 as their bits of 0 and 1).
void bernoulli(DType pt, const void *p, DType yt, void *y, int64_t n,
               uint64_t key);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_RANDOM_H
