//===- OscRandomOps.cpp - verifiers of the random draws -------------------===//
//
// Part of opscope. The verifiers of the ops of OscRandomOps.td
// (random_uniform, random_normal, bernoulli).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include <cmath>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

LogicalResult RandomUniformOp::verify() {
  double low = getLow().convertToDouble(), high = getHigh().convertToDouble();
  if (!std::isfinite(low) || !std::isfinite(high) || low > high)
    return emitOpError("needs finite low <= high, got low ")
           << low << " and high " << high;
  return success();
}

LogicalResult RandomNormalOp::verify() {
  double mean = getMean().convertToDouble(),
         scale = getScale().convertToDouble();
  if (!std::isfinite(mean) || !std::isfinite(scale) || scale < 0)
    return emitOpError("needs a finite mean and a finite scale >= 0, got mean ")
           << mean << " and scale " << scale;
  return success();
}

LogicalResult BernoulliOp::verify() {
  return verifyResultShape(*this, getOutput(),
                           tensorType(getInput()).getShape());
}
