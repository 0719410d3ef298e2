//===- KernelRegistry.h - kernels by op kind, one choice        -*- C++ -*-===//
//
// Part of opscope's runtime (internal). Every kernel factory registers under
// the op kind it executes (kinds.def), the way the importer's converters()
// table registers ONNX ops. A kind may have several candidates (the coming
// sparse, bf16 and int8 kernels register beside the fp32 ones); which one
// runs an op is decided in KernelRegistry::make and nowhere else.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_MODEL_KERNELREGISTRY_H
#define OPSCOPE_RUNTIME_LIB_MODEL_KERNELREGISTRY_H

#include "OpContext.h"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace opscope::rt {

/// One way to execute an op kind.
struct KernelCandidate {
  /// Short name for diagnostics (`onednn`, `opscope`).
  std::string name;
  /// Whether this candidate can run the op (element types, layouts, ...).
  /// Empty: it accepts every op of its kind.
  std::function<bool(const OpContext &)> accepts;
  /// Builds the kernel bound to the op's buffers and sets `kernelName` to
  /// the implementation chosen (`onednn:brg:avx512_core`, ...). Throws
  /// through OpContext::fail when it cannot.
  std::function<BoundKernel(const OpContext &, std::string &kernelName)> make;
};

class KernelRegistry {
public:
  void add(OpKind kind, KernelCandidate candidate);
  const std::vector<KernelCandidate> &candidates(OpKind kind) const {
    return table[static_cast<size_t>(kind)];
  }
  /// The kernel of `op`: the first candidate registered for its kind that
  /// accepts it. Throws opscope::Error naming the op when none does.
  BoundKernel make(const OpDesc &op, const Buffers &buffers,
                   std::string &kernelName) const;

private:
  std::array<std::vector<KernelCandidate>, KindTraits<OpKind>::size> table;
};

/// The registry with every kernel family of this runtime, built once.
const KernelRegistry &kernelRegistry();

// The kernel families (one file each under bindings/).
void registerDenseKernels(KernelRegistry &r);         // oneDNN
void registerSparseKernels(KernelRegistry &r);        // block-sparse
void registerQuantKernels(KernelRegistry &r);         // ONNX quantization ops
void registerNormalizationKernels(KernelRegistry &r); // norms, softmax, gelu
void registerElementwiseKernels(KernelRegistry &r);   // unary .. cast
void registerDataMovementKernels(KernelRegistry &r);  // transpose .. resize
void registerIndexingKernels(KernelRegistry &r);      // cumsum .. scatters
void registerExtentKernels(KernelRegistry &r);        // non_zero .. nms
void registerRecurrentKernels(KernelRegistry &r);     // LSTM, GRU, RNN
void registerLinalgKernels(KernelRegistry &r);        // einsum, det
void registerRandomKernels(KernelRegistry &r);        // uniform, normal, bernoulli

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_MODEL_KERNELREGISTRY_H
