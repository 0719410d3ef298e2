//===- Compare.cpp - comparing output tensors with expected ones ----------===//
//
// Part of opscope's runtime tooling.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/compare.h"

#include <algorithm>
#include <cmath>

using namespace opscope::tooling;

TensorComparison
opscope::tooling::compareTensors(const std::vector<double> &got,
                                 const std::vector<double> &want, double rtol,
                                 double atol) {
  TensorComparison c;
  double dot = 0, ng = 0, nw = 0;
  size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i];
    bool bothNan = std::isnan(g) && std::isnan(w);
    bool sameInf = std::isinf(g) && g == w;
    double d = bothNan || sameInf ? 0.0 : std::fabs(g - w);
    if (std::isnan(d))
      d = INFINITY;
    c.maxAbs = std::max(c.maxAbs, d);
    if (w != 0 && std::isfinite(d))
      c.maxRel = std::max(c.maxRel, d / std::fabs(w));
    // An infinite difference never passes, even against an infinite
    // expected value (whose rtol bound would be infinite too).
    if (!std::isfinite(d) || d > atol + rtol * std::fabs(w))
      ++c.mismatches;
    if (std::isfinite(g) && std::isfinite(w)) {
      dot += g * w;
      ng += g * g;
      nw += w * w;
    }
  }
  // Elements only one side has are mismatches.
  c.mismatches += static_cast<int64_t>(std::max(got.size(), want.size()) - n);
  c.cosine = ng > 0 && nw > 0 ? dot / std::sqrt(ng * nw) : (ng == nw ? 1 : 0);
  return c;
}

void AccuracyStats::add(const std::vector<double> &got,
                        const std::vector<double> &want, int64_t lastDim) {
  TensorComparison c = compareTensors(got, want, 0.0, 0.0);
  ++sets;
  maxAbs = std::max(maxAbs, c.maxAbs);
  maxRel = std::max(maxRel, c.maxRel);
  minCosine = std::min(minCosine, c.cosine);
  sumCosine += c.cosine;
  if (lastDim <= 1 || got.size() != want.size())
    return;
  for (size_t r = 0; r + lastDim <= got.size(); r += lastDim) {
    auto g = std::max_element(got.begin() + r, got.begin() + r + lastDim);
    auto w = std::max_element(want.begin() + r, want.begin() + r + lastDim);
    ++rows;
    top1Agree += (g - got.begin()) == (w - want.begin());
  }
}

std::vector<double> opscope::tooling::asDoubles(rt::DType t, const void *data,
                                                int64_t n) {
  std::vector<double> v(n);
  rt::cast(t, data, rt::DType::F64, v.data(), n);
  return v;
}
