//===- compare.h - comparing output tensors with expected ones -*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). The accuracy check of
// `opscope-run --expect`: element-wise tolerance, error maxima, cosine.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_COMPARE_H
#define OPSCOPE_RUNTIME_TOOLING_COMPARE_H

#include "opscope/runtime/generic.h"

#include <cstdint>
#include <vector>

namespace opscope::tooling {

struct TensorComparison {
  double maxAbs = 0, maxRel = 0, cosine = 1;
  /// Elements with |got - want| > atol + rtol * |want|.
  int64_t mismatches = 0;
  bool matches() const { return mismatches == 0; }
};

/// NaN matches NaN and an infinity the same infinity; any other NaN or
/// infinity difference is a mismatch (and an infinite maxAbs). The cosine is
/// over finite pairs.
TensorComparison compareTensors(const std::vector<double> &got,
                                const std::vector<double> &want, double rtol,
                                double atol);

/// `n` elements of type `t` as doubles.
std::vector<double> asDoubles(rt::DType t, const void *data, int64_t n);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_COMPARE_H
