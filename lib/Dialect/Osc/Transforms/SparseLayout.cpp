//===- SparseLayout.cpp - osc-sparse-layout -------------------------------===//
//
// Part of opscope. Detection (1x4 block sparsity of every inner product's
// weight), the choice of the sparse kernel, packing of the weight into the
// runtime's block-sparse format at compile time, and the transposed
// activation layout along chains of sparse ops. The packing code is the
// runtime's own header (sparse_format.h), so the blob the compiler writes
// is the blob the kernels read.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "TransposedLayout.h"

#include "opscope/runtime/sparse_format.h"
#include "opscope/runtime/tuning.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace opscope::osc {
#define GEN_PASS_DEF_OSCSPARSELAYOUT
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
namespace sp = opscope::rt::sparse;

namespace {
struct SparseLayoutPass : osc::impl::OscSparseLayoutBase<SparseLayoutPass> {
  using OscSparseLayoutBase::OscSparseLayoutBase;
  tuning::Database database;
  bool haveDatabase = false;
  unsigned fellBack = 0;
  /// Ops decided by an entry of another M or thread count (the nearest).
  unsigned nearest = 0;
  /// Ops with an entry made sparse by the threshold: their sparsity lies
  /// where no measured ratio bounds the answer.
  unsigned outsideSparse = 0;
  /// A range of ratios, printed as whole percentages ("80%", "40-42%").
  struct PercentRange {
    double lo = 1, hi = 0;
    void add(double v) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    std::string str() const {
      long a = std::lround(lo * 100), b = std::lround(hi * 100);
      return std::to_string(a) + (a == b ? "" : "-" + std::to_string(b)) + "%";
    }
  };
  /// Inner products the threshold kept dense (mode auto, no tuning database
  /// entry) although at least `threshold` of their weight's elements are
  /// zero, because too few zeros fill whole 1x4 blocks (4x1 or unstructured
  /// pruning): how many, their element and their 1x4 block sparsity.
  unsigned unblocked = 0;
  PercentRange unblockedElements, unblockedBlocks;
  /// Inner products the threshold would have made sparse but whose sparse
  /// kernel runs scalar on the target CPU (scalar-precisions), and their
  /// precisions.
  unsigned keptScalar = 0;
  std::set<std::string> keptScalarPrecisions;

  void runOnOperation() override {
    if (mode != "auto" && mode != "always" && mode != "never") {
      emitError(getOperation()->getLoc(),
                "osc-sparse-layout: mode must be auto, always or never, got '")
          << mode << "'";
      return signalPassFailure();
    }
    if (!(threshold >= 0.0 && threshold <= 1.0)) {
      emitError(getOperation()->getLoc(),
                "osc-sparse-layout: threshold must be in [0, 1], got ")
          << threshold;
      return signalPassFailure();
    }
    if (!tuningDb.empty()) {
      // The compiler cannot ask oneDNN for its version (it does not link
      // the runtime): the CPU model and ISA features must match this
      // machine; opscope-compile passes this machine's own file.
      std::string error;
      tuning::Database db;
      if (!tuning::tryLoad(tuningDb, nullptr, db, error)) {
        emitError(getOperation()->getLoc(), "osc-sparse-layout: ") << error;
        return signalPassFailure();
      }
      tuning::MachineKey here = tuning::thisMachine(db.key.onednn);
      if (db.key != here) {
        emitError(getOperation()->getLoc(), "osc-sparse-layout: ")
            << tuningDb << ": tuning database of another machine: measured on "
            << db.key.describe() << ", this is " << here.describe()
            << "; refusing to use it (re-run opscope-tune here)";
        return signalPassFailure();
      }
      database = std::move(db);
      haveDatabase = true;
    }
    // Per function: the pass instance runs on every function in turn.
    fellBack = 0;
    nearest = 0;
    outsideSparse = 0;
    keptScalar = 0;
    keptScalarPrecisions.clear();
    unblocked = 0;
    unblockedElements = unblockedBlocks = PercentRange();
    SmallVector<InnerProductOp> candidates;
    getOperation().walk([&](InnerProductOp op) { candidates.push_back(op); });
    SmallVector<SparseInnerProductOp> sparseOps;
    for (InnerProductOp op : candidates)
      if (auto s = makeSparse(op))
        sparseOps.push_back(s);
    numSparse = sparseOps.size();

    TransposedLayoutStats layout;
    if (transposeChains)
      layout = transposeSparseChains(getOperation());
    numLinks = layout.links;
    numReorders = layout.reorders;
    if (unblocked > 0)
      llvm::errs() << "osc-sparse-layout: note: " << unblocked << " of "
                   << candidates.size() << " inner products stay dense "
                   << "although " << unblockedElements.str()
                   << " of their weights are zero: too few of the zeros fill "
                      "whole 1x4 blocks (1x4 block sparsity "
                   << unblockedBlocks.str() << ", under the threshold "
                   << llvm::format("%g", double(threshold))
                   << "), and the sparse kernels run 1x4 and 4x4 blocks "
                      "(docs/sparsity.md, Blocks)\n";
    if (keptScalar > 0) {
      std::string precisions;
      for (const std::string &p : keptScalarPrecisions)
        precisions += (precisions.empty() ? "" : ", ") + p;
      llvm::errs() << "osc-sparse-layout: note: " << keptScalar << " of "
                   << candidates.size()
                   << " inner products stay dense although their 1x4 block "
                      "sparsity reaches the threshold "
                   << llvm::format("%g", double(threshold))
                   << ": the sparse kernels for " << precisions
                   << " run scalar on this CPU's tier"
                   << (tier.empty() ? std::string()
                                    : " (" + tier.getValue() + ")")
                   << ", slower than dense; --sparse=always forces them, "
                      "and opscope-tune's database decides by measurement\n";
    }
    if (haveDatabase && fellBack > 0)
      llvm::errs() << "osc-sparse-layout: " << fellBack << " of "
                   << candidates.size()
                   << " inner products have no tuning database entry (weight "
                      "shape, precision, at any M or thread count): the "
                      "threshold "
                   << llvm::format("%g", double(threshold))
                   << " decided for them\n";
    if (haveDatabase && outsideSparse > 0)
      llvm::errs() << "osc-sparse-layout: " << outsideSparse << " of "
                   << candidates.size()
                   << " inner products made sparse by the threshold "
                   << llvm::format("%g", double(threshold))
                   << ": their block sparsity lies outside the ratios their "
                      "tuning database entry measured, where no measurement "
                      "bounds the answer (opscope-tune --sparsity with their "
                      "ratio measures it; --print-fusion's choice column "
                      "names them)\n";
    if (haveDatabase && nearest > 0)
      llvm::errs() << "osc-sparse-layout: " << nearest << " of "
                   << candidates.size()
                   << " inner products decided by the nearest tuning "
                      "database entry (another M or thread count; "
                      "--print-fusion's choice column names it)\n";

    if (report)
      llvm::outs() << "osc-sparse-layout: " << sparseOps.size() << " of "
                   << candidates.size()
                   << " inner products sparse (mode " << mode
                   << (haveDatabase ? " with tuning database" : "")
                   << ", threshold " << llvm::format("%g", double(threshold))
                   << (haveDatabase ? " without an entry" : "") << "); "
                   << layout.values << " activations kept transposed ("
                   << layout.links << " sparse inputs, " << layout.layerNorms
                   << " layer norms, " << layout.attentionTransposesRemoved
                   << " attention transposes folded into matmuls), "
                   << layout.reorders << " reorder ops inserted\n";
  }

  /// Measures `op`'s weight and, if the mode picks it, replaces the op by a
  /// sparse_inner_product with the packed weight.
  SparseInnerProductOp makeSparse(InnerProductOp op) {
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    bool bf16 = wType.getElementType().isBF16();
    // An int8 inner product (--precision int8): i8 weight with row scales.
    bool s8 = wType.getElementType().isInteger(8) && op.getWeightScales();
    if (!(wType.getElementType().isF32() || bf16 || s8) ||
        !cast<RankedTensorType>(op.getInput().getType())
             .getElementType()
             .isF32() ||
        (op.getBias() && !readF32Constant(op.getBias())))
      return {};
    auto values = readWeightValues(
        op.getWeight(), s8 ? *op.getWeightScales() : ArrayRef<float>());
    if (!values)
      return {};
    int64_t n = wType.getDimSize(0), k = wType.getDimSize(1);
    if (s8 && k % 4) // the VNNI kernel reads four k per dword
      return {};
    sp::BlockSparsity bs = sp::measure(values->data(), n, k, {1, sp::kBlockCols});
    double ratio = bs.ratio();
    // 4x4 blocks where the weight's 1x4 blocks line up in them (a model
    // pruned with --block 4x4): four outputs per activation load.
    int64_t blockRows = sp::chooseBlockRows(values->data(), n, k);
    const char *precisionName = s8 ? "int8" : bf16 ? "bf16" : "fp32";
    bool scalar = llvm::is_contained(
        llvm::split(StringRef(scalarPrecisions.getValue()), ','),
        precisionName);
    bool pick = mode == "always";
    std::string why = "mode " + mode.getValue();
    bool byThreshold = false;
    if (mode == "auto") {
      // The tuning library's one choice, shared with the what-if and
      // opscope-profile. The compiled model runs on however many threads
      // its caller gives it: one-thread entries decide (the nearest thread
      // count where there are none), as opscope-tune measures by default.
      tuning::Query q;
      q.n = n;
      q.k = k;
      q.m = cast<RankedTensorType>(op.getResult().getType()).getNumElements() /
            n;
      q.precision = precisionName;
      q.threads = 1;
      // (A weight without zero blocks "lines up" in any block shape.)
      q.block = blockRows == 4 && bs.zeroBlocks > 0 ? "4x4" : "1x4";
      q.sparsity = ratio;
      q.threshold = threshold;
      q.scalarSparse = scalar;
      tuning::Choice c = tuning::choose(haveDatabase ? &database : nullptr, q);
      pick = c.sparse;
      why = c.reason;
      if (haveDatabase && !c.tuned() && !c.entry)
        ++fellBack;
      else if (haveDatabase && !c.tuned() && c.sparse)
        ++outsideSparse;
      if (haveDatabase && c.tuned() && !c.misses.empty())
        ++nearest;
      if (!c.tuned() && ratio >= threshold && scalar) {
        ++keptScalar;
        keptScalarPrecisions.insert(precisionName);
      }
      byThreshold = !c.tuned();
    }
    // Staying dense: the faster of oneDNN's two dense primitives, where the
    // database measured both (fp32).
    if (!pick && mode == "auto" && haveDatabase && !bf16 && !s8) {
      auto outType = cast<RankedTensorType>(op.getResult().getType());
      if (const tuning::Entry *e =
              database.find(n, k, outType.getNumElements() / n, "fp32");
          e && e->matmulFaster()) {
        op.setDenseKernelAttr(StringAttr::get(op.getContext(), "matmul"));
        why += llvm::formatv("; dense on oneDNN's matmul {0:F3} ms < inner "
                             "product {1:F3} ms",
                             e->matmulMs, e->denseMs)
                   .str();
      }
    }
    if (!tuningDb.empty())
      op->setAttr("osc.kernel_choice",
                  StringAttr::get(op.getContext(), why));
    int64_t zeros = std::count(values->begin(), values->end(), 0.0f);
    double elementRatio = static_cast<double>(zeros) / values->size();
    if (!pick && byThreshold && ratio < threshold &&
        elementRatio >= threshold) {
      ++unblocked;
      unblockedElements.add(elementRatio);
      unblockedBlocks.add(ratio);
    }
    if (!pick)
      return {};
    int64_t nnz = bs.blocks - bs.zeroBlocks;
    // A bf16 weight (--precision bf16) packs as bf16 pairs, an int8 one as
    // VNNI s8 dwords: packing re-derives each row's scale from the
    // dequantized row (max |w| / 127), which gives back the same scale and
    // the same s8 values.
    sp::ValueType vt = s8     ? sp::ValueType::S8
                       : bf16 ? sp::ValueType::BF16
                              : sp::ValueType::F32;
    sp::Header h = sp::layout(
        vt, n, k, sp::countNonZeroBlocks(values->data(), n, k, blockRows),
        blockRows);
    std::vector<char> blob(h.totalBytes);
    sp::pack(values->data(), n, k, vt, blob.data(), blockRows);

    OpBuilder b(op);
    auto blobType = RankedTensorType::get({static_cast<int64_t>(blob.size())},
                                          b.getIntegerType(8));
    auto attr = DenseResourceElementsAttr::get(
        blobType, derivedWeightName(op.getWeight(),
                                    blockRows == 4 ? ".sparse4x4" : ".sparse1x4"),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(blob, 64));
    auto packed = b.create<ConstantOp>(op.getWeight().getLoc(), attr);
    auto sparse = b.create<SparseInnerProductOp>(
        op.getLoc(), op.getType(), op.getInput(), packed.getOutput(), op.getBias(),
        op.getSumInput(), op.getPostOps(), b.getDenseI64ArrayAttr({n, k}),
        b.getF64FloatAttr(ratio),
        b.getF64FloatAttr(elementRatio),
        b.getI64IntegerAttr(nnz), /*transposed_input=*/UnitAttr(),
        /*transposed_output=*/UnitAttr(), op.getInputScaleAttr(),
        op.getInputZeroPointAttr(), b.getI64IntegerAttr(blockRows));
    // Keep whatever else the op carried (e.g. names for reports).
    for (NamedAttribute a : op->getDiscardableAttrs())
      sparse->setAttr(a.getName(), a.getValue());
    if (Attribute choice = op->getAttr("osc.kernel_choice"))
      sparse->setAttr("osc.kernel_choice", choice);
    op.replaceAllUsesWith(sparse.getOutput());
    Value weight = op.getWeight();
    op.erase();
    if (auto c = weight.getDefiningOp<ConstantOp>(); c && c->use_empty())
      c.erase();
    return sparse;
  }

};
} // namespace
