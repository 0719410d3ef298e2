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

/// Accuracy of one output over many input sets (`opscope-run --compare-to`,
/// ITREX's `--mode=accuracy`): error maxima, the lowest and the mean cosine,
/// and top-1 agreement (argmax over the last dimension, per row) for outputs
/// whose last dimension is > 1.
struct AccuracyStats {
  int64_t sets = 0;
  double maxAbs = 0, maxRel = 0, minCosine = 1, sumCosine = 0;
  int64_t rows = 0, top1Agree = 0;
  /// Adds one input set: `got` and `want` hold the same shape, whose last
  /// dimension is `lastDim`.
  void add(const std::vector<double> &got, const std::vector<double> &want,
           int64_t lastDim);
  double meanCosine() const { return sets ? sumCosine / sets : 1.0; }
  /// Fraction of rows whose argmax agrees; negative when not applicable.
  double top1() const {
    return rows ? static_cast<double>(top1Agree) / rows : -1.0;
  }
};

/// `n` elements of type `t` as doubles.
std::vector<double> asDoubles(rt::DType t, const void *data, int64_t n);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_COMPARE_H
