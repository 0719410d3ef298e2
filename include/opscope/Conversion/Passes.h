//===- Passes.h - opscope conversion passes ---------------------*- C++ -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_CONVERSION_PASSES_H
#define OPSCOPE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace opscope {

#define GEN_PASS_DECL
#include "opscope/Conversion/Passes.h.inc"

/// convert-osc-to-runtime followed by MLIR's arith/cf/func to LLVM
/// lowerings: a planned osc module becomes an LLVM-dialect module ready for
/// translation. Registered as `osc-lower-to-llvm`.
void buildOscLowerToLLVMPipeline(mlir::OpPassManager &pm);
void registerConversionPipelines();

#define GEN_PASS_REGISTRATION
#include "opscope/Conversion/Passes.h.inc"

} // namespace opscope

#endif // OPSCOPE_CONVERSION_PASSES_H
