//===- InitAll.h - register everything opscope tools use --------*- C++ -*-===//
//
// Part of opscope. Every tool registers dialects, passes and pipelines through
// these two functions so that no tool can drift from the others.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_INITALL_H
#define OPSCOPE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace opscope {

/// Adds the osc dialect and the upstream dialects opscope's pipelines use.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers opscope's passes and pipelines with the global pass registry.
void registerAllPasses();

} // namespace opscope

#endif // OPSCOPE_INITALL_H
