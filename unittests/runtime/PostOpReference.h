//===- PostOpReference.h - post-ops in double for kernel tests --*- C++ -*-===//
//
// Part of opscope's tests. Each post-op written out in double from its
// definition (ONNX's for the activations), independent of the runtime's
// kinds.def expressions, and the activations the kernel tests apply.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_UNITTESTS_RUNTIME_POSTOPREFERENCE_H
#define OPSCOPE_UNITTESTS_RUNTIME_POSTOPREFERENCE_H

#include "opscope/runtime/kinds.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace opscope::rt::postops {

/// `v` through post-op `p` (`sum` the residual a sum post-op adds).
inline double referencePostOp(const PostOp &p, double v, double sum) {
  const double a = p.alpha, b = p.beta;
  switch (p.kind) {
  case PostOpKind::Relu:
    return v > 0 ? v : 0;
  case PostOpKind::GeluErf:
    return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  case PostOpKind::GeluTanh:
    return 0.5 * v *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  case PostOpKind::Sigmoid:
    return 1 / (1 + std::exp(-v));
  case PostOpKind::Tanh:
    return std::tanh(v);
  case PostOpKind::HardSwish:
    return v * std::min(1.0, std::max(0.0, v / 6 + 0.5));
  case PostOpKind::Relu6:
    return std::min(6.0, std::max(0.0, v));
  case PostOpKind::Swish:
    return v / (1 + std::exp(-v));
  case PostOpKind::LeakyRelu:
    return v >= 0 ? v : a * v;
  case PostOpKind::Elu:
    return v >= 0 ? v : a * (std::exp(v) - 1);
  case PostOpKind::HardSigmoid:
    return std::min(1.0, std::max(0.0, a * v + b));
  case PostOpKind::Clip:
    return std::min(b, std::max(a, v));
  case PostOpKind::Mish:
    return v * std::tanh(v > 0 ? v + std::log1p(std::exp(-v))
                               : std::log1p(std::exp(v)));
  case PostOpKind::Sum:
    return v + sum;
  }
  return v;
}

/// Every activation post-op, the parameterised ones with the values real
/// exports carry: LeakyRelu 0.1 (Darknet/YOLO), Elu 0.7, HardSigmoid
/// 0.2/0.5 (Paddle's squeeze-excite), a clip to [-0.5, 1.5] (bounds the
/// tests' values cross).
inline std::vector<PostOp> everyActivation() {
  return {PostOp::Relu,
          PostOp::GeluErf,
          PostOp::GeluTanh,
          PostOp::Sigmoid,
          PostOp::Tanh,
          PostOp::HardSwish,
          PostOp::Relu6,
          PostOp::Swish,
          PostOp(PostOpKind::LeakyRelu, 0.1f),
          PostOp(PostOpKind::Elu, 0.7f),
          PostOp(PostOpKind::HardSigmoid, 0.2f, 0.5f),
          PostOp(PostOpKind::Clip, -0.5f, 1.5f),
          PostOp::Mish};
}

} // namespace opscope::rt::postops

#endif // OPSCOPE_UNITTESTS_RUNTIME_POSTOPREFERENCE_H
