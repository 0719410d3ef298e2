//===- Fuse.cpp - osc-fuse: decomposed patterns to kernel-sized ops -------===//
//
// Part of opscope. Each fusion is a rewrite pattern; the pass picks the
// families its options enable and lets the greedy driver chain them (a
// matmul becomes an inner_product, which takes its bias, then its GELU, then
// the residual Add). Fused ops get a FusedLoc of every op they replace.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCFUSE
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
struct FusePass : osc::impl::OscFuseBase<FusePass> {
  using OscFuseBase::OscFuseBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto module = getOperation()->getParentOfType<ModuleOp>();
    if (module && module->hasAttr(kWeightsElidedAttr))
      getOperation().emitWarning(
          "osc-fuse: this IR was printed with --elide-weights; fusions that "
          "read weight data (matmul to inner_product) are skipped");
    // One family per option; the greedy driver chains them.
    RewritePatternSet patterns(ctx);
    if (foldScalars)
      populateOscScalarFoldingPatterns(patterns, &numScales);
    if (foldTransposes)
      populateOscTransposeFoldingPatterns(patterns, &numTransposes);
    if (fuseInnerProduct)
      populateOscInnerProductFusionPatterns(patterns, &numInnerProducts,
                                            &numBiases);
    if (fuseGelu)
      populateOscGeluFusionPatterns(patterns, &numGelus);
    if (fuseHardSwish)
      populateOscHardSwishFusionPatterns(patterns, &numHardSwishes);
    if (fuseSwish)
      populateOscSwishFusionPatterns(patterns, &numSwishes);
    if (fuseMish)
      populateOscMishFusionPatterns(patterns, &numMishes);
    if (fuseLayerNorm)
      populateOscLayerNormFusionPatterns(patterns, &numLayerNorms);
    if (fusePostOps)
      populateOscPostOpFusionPatterns(patterns, &numPostOps);
    if (fuseAttention)
      populateOscAttentionFusionPatterns(patterns, &numMasks);
    if (fuseConvBn) {
      populateOscConvBatchNormFusionPatterns(patterns, &numConvBns);
      populateOscConvTransposeBatchNormPatterns(patterns, &numConvBns);
    }
    if (fuseDynamicQuant)
      populateOscDynamicQuantFusionPatterns(patterns, &numDynamicQuant);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Last, once batch norms and activations have fused into them:
    // non-overlapping transposed convolutions become 1x1 convolutions.
    if (deconvAsConv) {
      RewritePatternSet late(ctx);
      populateOscConvTransposeAsConvPatterns(late, &numDeconvs);
      if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(late))))
        return signalPassFailure();
    }
  }
};
} // namespace
