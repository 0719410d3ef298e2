//===- Passes.h - osc dialect passes ----------------------------*- C++ -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/Statistic.h"

namespace opscope::osc {

#define GEN_PASS_DECL
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"

//===----------------------------------------------------------------------===//
// Fusion pattern families (osc-fuse enables each with an option). Each takes
// an optional statistic counting its rewrites.
//===----------------------------------------------------------------------===//

/// x / c -> x * (1/c); a constant scalar multiply of a matmul -> its scale.
void populateOscScalarFoldingPatterns(mlir::RewritePatternSet &patterns,
                                      llvm::Statistic *counter = nullptr);
/// A transpose swapping a matmul operand's last two dimensions -> the
/// matmul's transpose_a/b flag.
void populateOscTransposeFoldingPatterns(mlir::RewritePatternSet &patterns,
                                         llvm::Statistic *counter = nullptr);
/// matmul with a constant 2-D weight -> inner_product (weight N x K), and a
/// following bias add into it.
void populateOscInnerProductFusionPatterns(
    mlir::RewritePatternSet &patterns, llvm::Statistic *innerProducts = nullptr,
    llvm::Statistic *biases = nullptr);
/// GELU formulas (erf and tanh forms) -> osc.gelu.
void populateOscGeluFusionPatterns(mlir::RewritePatternSet &patterns,
                                   llvm::Statistic *counter = nullptr);
/// x * clip(x + 3, 0, 6) / 6 and x * hard_sigmoid(x) -> osc.unary hard_swish.
void populateOscHardSwishFusionPatterns(mlir::RewritePatternSet &patterns,
                                        llvm::Statistic *counter = nullptr);
/// x * sigmoid(x) -> osc.unary swish (SiLU).
void populateOscSwishFusionPatterns(mlir::RewritePatternSet &patterns,
                                    llvm::Statistic *counter = nullptr);
/// x * tanh(softplus(x)) -> osc.unary mish.
void populateOscMishFusionPatterns(mlir::RewritePatternSet &patterns,
                                   llvm::Statistic *counter = nullptr);
/// Decomposed LayerNorm -> osc.layer_norm.
void populateOscLayerNormFusionPatterns(mlir::RewritePatternSet &patterns,
                                        llvm::Statistic *counter = nullptr);
/// Activations and residual adds -> post-ops of their producer.
void populateOscPostOpFusionPatterns(mlir::RewritePatternSet &patterns,
                                     llvm::Statistic *counter = nullptr);
/// Additive attention masks -> osc.softmax's mask.
void populateOscAttentionFusionPatterns(mlir::RewritePatternSet &patterns,
                                        llvm::Statistic *counter = nullptr);
/// Inference BatchNorm after a conv -> folded into the conv's weights.
void populateOscConvBatchNormFusionPatterns(mlir::RewritePatternSet &patterns,
                                            llvm::Statistic *counter = nullptr);
/// Inference BatchNorm after a conv_transpose -> folded into its weights.
void populateOscConvTransposeBatchNormPatterns(mlir::RewritePatternSet &patterns,
                                               llvm::Statistic *counter = nullptr);
/// ONNX Runtime's quantize_dynamic layers (DynamicQuantizeLinear ->
/// conv_integer / matmul_integer -> Cast -> Mul [-> bias Add] [-> relu])
/// -> the integer op's dequantizing form.
void populateOscDynamicQuantFusionPatterns(mlir::RewritePatternSet &patterns,
                                           llvm::Statistic *counter = nullptr);
/// conv_transpose with kernel == stride -> 1x1 conv + depth-to-space
/// shuffle (applied after the other fusions, which it would hide).
void populateOscConvTransposeAsConvPatterns(mlir::RewritePatternSet &patterns,
                                            llvm::Statistic *counter = nullptr);

/// Import cleanup and fusion: the pipeline every compilation runs before
/// layout, probes and lowering. Registered as `osc-optimize`.
void buildOscOptimizationPipeline(mlir::OpPassManager &pm);

/// Registers the osc pipelines with the global registry.
void registerOscPipelines();

#define GEN_PASS_REGISTRATION
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"

} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H
