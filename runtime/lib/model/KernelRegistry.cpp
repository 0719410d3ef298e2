//===- KernelRegistry.cpp - kernels by op kind ----------------------------===//
//
// Part of opscope's runtime.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"

using namespace opscope;
using namespace opscope::rt;

void KernelRegistry::add(OpKind kind, KernelCandidate candidate) {
  table[static_cast<size_t>(kind)].push_back(std::move(candidate));
}

BoundKernel KernelRegistry::make(const OpDesc &op, const Buffers &buffers,
                                 std::string &kernelName) const {
  OpContext c{op, buffers};
  for (const BufferRef &r : op.results)
    if (r.kind != BufferRef::Arena)
      c.fail("result is not planned in the arena");
  const auto &list = candidates(op.kind);
  if (list.empty())
    c.fail("this runtime has no kernel for the op kind");
  for (const KernelCandidate &k : list)
    if (!k.accepts || k.accepts(c))
      return k.make(c, kernelName);
  std::string names;
  for (const KernelCandidate &k : list)
    names += (names.empty() ? "" : ", ") + k.name;
  c.fail("no kernel accepts this op (candidates: " + names + ")");
}

const KernelRegistry &opscope::rt::kernelRegistry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerDenseKernels(r);
    registerSparseKernels(r);
    registerQuantKernels(r);
    registerNormalizationKernels(r);
    registerElementwiseKernels(r);
    registerDataMovementKernels(r);
    registerIndexingKernels(r);
    registerExtentKernels(r);
    registerRecurrentKernels(r);
    registerLinalgKernels(r);
    registerRandomKernels(r);
    return r;
  }();
  return registry;
}

BoundKernel opscope::rt::makeKernel(const OpDesc &op, const Buffers &buffers,
                                    std::string &kernelName) {
  return kernelRegistry().make(op, buffers, kernelName);
}
