//===- RandomBindings.cpp - random_uniform, random_normal, bernoulli ------===//
//
// Part of opscope's runtime. The random ops on the kernels of random.h. An
// op with a `seed` draws with the seed's key on every run (the same values
// each time); an op without one takes a fresh key at every run.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/random.h"

#include <optional>

using namespace opscope;
using namespace opscope::rt;

namespace {
std::optional<uint64_t> seedOf(const OpContext &c) {
  if (!c.hasAttr("seed"))
    return std::nullopt;
  double seed = c.floatAttr("seed", 0);
  if (!std::isfinite(seed))
    c.fail("seed must be finite");
  return seedKey(seed);
}

const BufferRef &floatResult(const OpContext &c) {
  const BufferRef &y = c.out();
  if (y.dtype != DType::F32 && y.dtype != DType::F64)
    c.fail(std::string("draws f32 or f64, not ") + dtypeName(y.dtype));
  return y;
}

BoundKernel randomUniformOp(const OpContext &c, std::string &kernel) {
  const BufferRef &y = floatResult(c);
  double low = c.floatAttr("low", 0), high = c.floatAttr("high", 1);
  if (!std::isfinite(low) || !std::isfinite(high) || low > high)
    c.fail("needs finite low <= high");
  DType t = y.dtype;
  void *yp = c.ptr(y);
  int64_t n = y.elements();
  std::optional<uint64_t> key = seedOf(c);
  // Scalar code, split over threads in whole Philox blocks.
  kernel = c.ownKernel(false);
  return [=] {
    randomUniform(t, yp, n, low, high, key ? *key : freshKey());
    return std::string();
  };
}

BoundKernel randomNormalOp(const OpContext &c, std::string &kernel) {
  const BufferRef &y = floatResult(c);
  double mean = c.floatAttr("mean", 0), scale = c.floatAttr("scale", 1);
  if (!std::isfinite(mean) || !std::isfinite(scale) || scale < 0)
    c.fail("needs a finite mean and a finite scale >= 0");
  DType t = y.dtype;
  void *yp = c.ptr(y);
  int64_t n = y.elements();
  std::optional<uint64_t> key = seedOf(c);
  kernel = c.ownKernel(false);
  return [=] {
    randomNormal(t, yp, n, mean, scale, key ? *key : freshKey());
    return std::string();
  };
}

BoundKernel bernoulliOp(const OpContext &c, std::string &kernel) {
  const BufferRef &p = c.in(0), &y = c.out();
  if (p.dtype != DType::F32 && p.dtype != DType::F64)
    c.fail(std::string("probabilities must be f32 or f64, not ") +
           dtypeName(p.dtype));
  if (p.elements() != y.elements())
    c.fail("the result's shape differs from the input's");
  DType pt = p.dtype, yt = y.dtype;
  const void *pp = c.ptr(p);
  void *yp = c.ptr(y);
  int64_t n = y.elements();
  std::optional<uint64_t> key = seedOf(c);
  kernel = c.ownKernel(false);
  return [=] {
    bernoulli(pt, pp, yt, yp, n, key ? *key : freshKey());
    return std::string();
  };
}
} // namespace

void opscope::rt::registerRandomKernels(KernelRegistry &r) {
  r.add(OpKind::RandomUniform, {"opscope", {}, randomUniformOp});
  r.add(OpKind::RandomNormal, {"opscope", {}, randomNormalOp});
  r.add(OpKind::Bernoulli, {"opscope", {}, bernoulliOp});
}
