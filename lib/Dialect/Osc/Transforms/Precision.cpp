//===- Precision.cpp - osc-precision --------------------------------------===//
//
// Part of opscope. `--precision bf16`: inner products compute in bf16 with
// their weights converted once, at compile time. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCPRECISION
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
struct PrecisionPass : osc::impl::OscPrecisionBase<PrecisionPass> {
  using OscPrecisionBase::OscPrecisionBase;

  void runOnOperation() override {
    if (precision != "fp32" && precision != "bf16") {
      emitError(getOperation()->getLoc(),
                "osc-precision: precision must be fp32 or bf16, got '")
          << precision << "'";
      return signalPassFailure();
    }
    llvm::Regex keep(keepFp32);
    std::string regexError;
    if (!keepFp32.empty() && !keep.isValid(regexError)) {
      emitError(getOperation()->getLoc(),
                "osc-precision: invalid keep-fp32 regex '")
          << keepFp32 << "': " << regexError;
      return signalPassFailure();
    }
    unsigned converted = 0, kept = 0, total = 0;
    double before = 0, after = 0;
    if (precision == "bf16")
      getOperation().walk([&](InnerProductOp op) {
        ++total;
        auto wType = cast<RankedTensorType>(op.getWeight().getType());
        if (!wType.getElementType().isF32() ||
            !cast<RankedTensorType>(op.getInput().getType())
                 .getElementType()
                 .isF32())
          return;
        if (!keepFp32.empty())
          for (const std::string &src : sourceNodes(op.getLoc()))
            if (keep.match(src)) {
              ++kept;
              return;
            }
        auto values = readF32Constant(op.getWeight());
        if (!values)
          return;
        auto c = op.getWeight().getDefiningOp<ConstantOp>();
        std::string name = derivedWeightName(op.getWeight(), ".bf16");
        OpBuilder b(c);
        auto type = RankedTensorType::get(wType.getShape(), b.getBF16Type());
        auto bf = b.create<ConstantOp>(c.getLoc(),
                                       makeBf16Weight(type, *values, name));
        op.getWeightMutable().assign(bf.getOutput());
        if (c->use_empty())
          c.erase();
        before += 4.0 * type.getNumElements();
        after += 2.0 * type.getNumElements();
        ++converted;
      });
    if (report)
      llvm::outs() << "osc-precision: " << precision << ", " << converted
                   << " of " << total << " inner products in bf16"
                   << (kept ? " (" + std::to_string(kept) +
                                  " kept in fp32 by keep-fp32)"
                            : std::string())
                   << ", their weights "
                   << llvm::format("%.1f", before / (1 << 20)) << " -> "
                   << llvm::format("%.1f", after / (1 << 20))
                   << " MiB; " << converted
                   << " f32-to-bf16 conversions (one inside each bf16 "
                      "kernel), f32 between ops\n";
  }
};
} // namespace
