//===- TransposedLayout.h - osc-sparse-layout's transposed chains -*- C++ -*-===//
//
// Part of opscope. Internal to OscTransforms.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_TRANSPOSEDLAYOUT_H
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_TRANSPOSEDLAYOUT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace opscope::osc {

struct TransposedLayoutStats {
  unsigned groups = 0;  ///< groups of values that went transposed
  unsigned values = 0;  ///< values in those groups
  unsigned links = 0;   ///< sparse inner products reading a transposed input
  unsigned reorders = 0; ///< transpose ops inserted at chain boundaries
  unsigned layerNorms = 0; ///< layer norms running transposed
  unsigned attentionTransposesRemoved = 0; ///< head split/merge transposes
};

/// Keeps activations transposed (hidden x tokens) around the function's
/// sparse inner products where that saves more than the reorders it needs.
TransposedLayoutStats transposeSparseChains(mlir::func::FuncOp func);

} // namespace opscope::osc

#endif
