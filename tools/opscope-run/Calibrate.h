//===- Calibrate.h - opscope-run --calibrate --------------------*- C++ -*-===//
//
// Part of opscope-run. int8 calibration as an observer run of an fp32
// model: the inputs of every probed inner product, over a set of inputs.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_RUN_CALIBRATE_H
#define OPSCOPE_TOOLS_RUN_CALIBRATE_H

#include "opscope/runtime/calibration.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"

#include <string>
#include <vector>

namespace opscope {
/// Runs `model` twice over `sets` (first the ranges, then histograms of
/// `bins` bins between them) and returns the statistics of the f32 input
/// of every probed inner_product and sparse_inner_product. Throws
/// opscope::Error when the model has no probes or no such op.
calibration::Calibration
calibrate(const Model &model,
          const std::vector<std::vector<rt::HostTensor>> &sets,
          const std::string &source, int bins = calibration::kDefaultBins);
} // namespace opscope

#endif
