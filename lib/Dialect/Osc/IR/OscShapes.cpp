//===- OscShapes.cpp - shape rules of osc ops -----------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/Dialect/Traits.h"

using namespace opscope;

std::optional<llvm::SmallVector<int64_t>>
osc::broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  llvm::SmallVector<int64_t> result;
  if (!mlir::OpTrait::util::getBroadcastedShape(a, b, result))
    return std::nullopt;
  return result;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t osc::windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                              int64_t padBegin, int64_t padEnd,
                              int64_t dilation, bool ceilMode) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t room = in + padBegin + padEnd - span;
  if (room < 0 || stride <= 0)
    return 0;
  if (!ceilMode)
    return room / stride + 1;
  int64_t out = ceilDiv(room, stride) + 1;
  // A last window starting inside the end padding covers no input element;
  // ONNX and PyTorch drop it.
  if ((out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

int64_t osc::transposedWindowOutputSize(int64_t in, int64_t kernel,
                                        int64_t stride, int64_t padBegin,
                                        int64_t padEnd, int64_t dilation,
                                        int64_t outputPadding) {
  return stride * (in - 1) + outputPadding + dilation * (kernel - 1) + 1 -
         padBegin - padEnd;
}

std::optional<llvm::SmallVector<int64_t>>
osc::matmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                 bool transposeA, bool transposeB, std::string &error) {
  if (lhs.size() < 2 || rhs.size() < 2) {
    error = "operands must have rank >= 2";
    return std::nullopt;
  }
  int64_t m = lhs[lhs.size() - (transposeA ? 1 : 2)];
  int64_t kA = lhs[lhs.size() - (transposeA ? 2 : 1)];
  int64_t kB = rhs[rhs.size() - (transposeB ? 1 : 2)];
  int64_t n = rhs[rhs.size() - (transposeB ? 2 : 1)];
  if (kA != kB) {
    error = "contraction dimensions differ: lhs has K=" + std::to_string(kA) +
            ", rhs has K=" + std::to_string(kB);
    return std::nullopt;
  }
  auto batch = broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch) {
    error = "batch dimensions " + formatShape(lhs.drop_back(2)) + " and " +
            formatShape(rhs.drop_back(2)) + " do not broadcast";
    return std::nullopt;
  }
  batch->push_back(m);
  batch->push_back(n);
  return batch;
}

std::string osc::formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}
