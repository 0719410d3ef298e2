//===- OscShapes.h - shape rules of osc ops ---------------------*- C++ -*-===//
//
// Part of opscope. The output-shape arithmetic of the windowed and broadcasting
// ops, shared by the verifiers, the ONNX importer and the tests. Deliberately
// free of MLIR IR headers so any layer can use it.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCSHAPES_H
#define OPSCOPE_DIALECT_OSC_IR_OSCSHAPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace opscope::osc {

/// Numpy broadcast of two shapes, or nullopt when they are incompatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Output size of one spatial dimension of a convolution or pooling window.
/// Returns a value < 1 when the window does not fit.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode = false);

/// Output size of one spatial dimension of a transposed convolution.
int64_t transposedWindowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                   int64_t padBegin, int64_t padEnd,
                                   int64_t dilation, int64_t outputPadding);

/// Result shape of a batched matmul after applying the transpose flags, or
/// nullopt with `error` set.
std::optional<llvm::SmallVector<int64_t>>
matmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
            bool transposeA, bool transposeB, std::string &error);

/// Formats a shape the way every opscope report does: `1x128x768`, `scalar`
/// for rank 0.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_IR_OSCSHAPES_H
