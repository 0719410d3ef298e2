//===- TransposedLayout.cpp - osc-sparse-layout's transposed chains -------===//
//
// Part of opscope. Intel's "transposed IR": around sparse inner products the
// activations are kept as hidden x tokens (Y^T = W X^T), so the sparse
// weight is the streaming operand and no kernel transposes its tiles.
//
// The decision is made per group of values that must share a layout:
//   - a layer norm's input and output (it normalizes in either layout);
//   - a sparse inner product's residual `sum` and its output.
// A group goes transposed when what that saves (sparse inputs and outputs
// that no longer transpose their tiles, attention transposes that vanish
// into matmul flags) outweighs the reorders it needs: one where a producer
// cannot write the transposed layout (a function argument, a gather, a
// dense op), and one where a value meets a consumer that cannot read it.
// Attention: `transpose(reshape(x^T))` feeding matmuls becomes a reshape of
// x^T with the matmul's transpose flag flipped, and the context
// `reshape(transpose(P x V))` becomes the swapped product `V^T x P^T`,
// which is already hidden x tokens.
//
//===----------------------------------------------------------------------===//

#include "TransposedLayout.h"

#include "opscope/Dialect/Osc/IR/OscOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
RankedTensorType rankedType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// The transposed type of a `[..., H]` activation: `H x M`.
RankedTensorType transposedType(RankedTensorType t) {
  int64_t h = t.getShape().back();
  return RankedTensorType::get({h, t.getNumElements() / h},
                               t.getElementType());
}

/// A value that can be read or written as hidden x tokens: rank >= 2 with
/// static shape.
bool layoutCandidate(Value v) {
  auto t = rankedType(v);
  return t && t.hasStaticShape() && t.getRank() >= 2 &&
         t.getElementType().isF32() && t.getShape().back() > 0;
}

/// A layer norm over the last axis only (the transposed kernel's case).
bool lastAxisLayerNorm(LayerNormOp ln) {
  auto t = rankedType(ln.getInput());
  return t && !ln.getTransposed() && ln.getAxis() == t.getRank() - 1 &&
         layoutCandidate(ln.getInput());
}

/// Attention's head split of a `1 x S x H` activation (tokens = S):
/// `transpose(reshape(x), perm)` to `1.. x nh x S x dh` (perm swaps the
/// token and head axes) or `1.. x nh x dh x S` (keys, already transposed),
/// read only as matmul operands. Returns the transpose, or null.
TransposeOp headSplit(OpOperand &use) {
  auto reshape = dyn_cast<ReshapeOp>(use.getOwner());
  if (!reshape || !reshape->hasOneUse())
    return {};
  auto t = dyn_cast<TransposeOp>(*reshape->getUsers().begin());
  if (!t)
    return {};
  auto in = rankedType(use.get()), split = rankedType(reshape.getOutput());
  if (!in || !split || !split.hasStaticShape() || split.getRank() < 3)
    return {};
  int64_t r = split.getRank();
  int64_t h = in.getShape().back(), m = in.getNumElements() / h;
  ArrayRef<int64_t> s = split.getShape();
  // Leading dims are 1 (batch 1), then tokens, heads, head size.
  for (int64_t i = 0; i < r - 3; ++i)
    if (s[i] != 1)
      return {};
  if (s[r - 3] != m || s[r - 2] * s[r - 1] != h)
    return {};
  ArrayRef<int64_t> perm = t.getPerm();
  for (int64_t i = 0; i < r - 3; ++i)
    if (perm[i] != i)
      return {};
  bool queries = perm[r - 3] == r - 2 && perm[r - 2] == r - 3 &&
                 perm[r - 1] == r - 1;
  bool keys = perm[r - 3] == r - 2 && perm[r - 2] == r - 1 &&
              perm[r - 1] == r - 3;
  if (!queries && !keys)
    return {};
  for (Operation *user : t->getUsers())
    if (!isa<MatMulOp>(user))
      return {};
  return t;
}

/// Attention's head merge: `reshape(transpose(matmul(P, V), [.., S<->nh ..]))`
/// to `1 x S x H`, each result used once. Returns the matmul, or null.
MatMulOp headMerge(Value v) {
  auto reshape = v.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return {};
  auto t = reshape.getInput().getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse())
    return {};
  auto mm = t.getInput().getDefiningOp<MatMulOp>();
  if (!mm || !mm->hasOneUse())
    return {};
  auto c = rankedType(mm.getOutput()), out = rankedType(v);
  if (!c || !out || !c.hasStaticShape() || c.getRank() < 3)
    return {};
  int64_t r = c.getRank();
  ArrayRef<int64_t> s = c.getShape(), perm = t.getPerm();
  for (int64_t i = 0; i < r - 3; ++i)
    if (s[i] != 1 || perm[i] != i)
      return {};
  if (perm[r - 3] != r - 2 || perm[r - 2] != r - 3 || perm[r - 1] != r - 1)
    return {};
  // c is 1.. x nh x S x dh; v must be [.., S, nh * dh] with S tokens.
  int64_t h = out.getShape().back();
  if (h != s[r - 3] * s[r - 1] || out.getNumElements() / h != s[r - 2])
    return {};
  return mm;
}

struct Layout {
  func::FuncOp func;
  TransposedLayoutStats stats;
  /// Group index per value, and the values of each group in program order.
  DenseMap<Value, unsigned> groupOf;
  SmallVector<SmallVector<Value>> groups;

  /// Operand `use` reads its value transposed once the value is.
  bool accepts(OpOperand &use) {
    Operation *owner = use.getOwner();
    if (auto s = dyn_cast<SparseInnerProductOp>(owner))
      return use.getOperandNumber() == 0 ||
             (s.getSumInput() && use.get() == s.getSumInput() &&
              use.getOperandNumber() != 0);
    if (auto ln = dyn_cast<LayerNormOp>(owner))
      return use.getOperandNumber() == 0 && lastAxisLayerNorm(ln);
    return static_cast<bool>(headSplit(use));
  }

  /// `v`'s producer can write it transposed.
  bool producible(Value v) {
    if (isa_and_nonnull<SparseInnerProductOp>(v.getDefiningOp()))
      return true;
    if (auto ln = v.getDefiningOp<LayerNormOp>())
      return lastAxisLayerNorm(ln);
    if (headMerge(v))
      // The swapped product has no row-major twin: every reader must take
      // the transposed layout.
      return llvm::all_of(v.getUses(),
                          [&](OpOperand &u) { return accepts(u); });
    return false;
  }

  /// Values whose layout is tied to `v`'s.
  SmallVector<Value, 2> coupled(Value v) {
    SmallVector<Value, 2> out;
    auto tie = [&](Operation *op) {
      if (auto ln = dyn_cast<LayerNormOp>(op); ln && lastAxisLayerNorm(ln)) {
        out.push_back(ln.getInput());
        out.push_back(ln.getOutput());
      }
      if (auto s = dyn_cast<SparseInnerProductOp>(op); s && s.getSumInput()) {
        out.push_back(s.getSumInput());
        out.push_back(s.getOutput());
      }
    };
    if (Operation *def = v.getDefiningOp())
      tie(def);
    for (Operation *user : v.getUsers())
      tie(user);
    return out;
  }

  void buildGroups() {
    SmallVector<Value> seeds;
    func.walk([&](SparseInnerProductOp s) {
      seeds.push_back(s.getInput());
      seeds.push_back(s.getOutput());
    });
    for (Value seed : seeds) {
      if (groupOf.count(seed))
        continue;
      unsigned g = groups.size();
      groups.emplace_back();
      SmallVector<Value> work{seed};
      groupOf[seed] = g;
      while (!work.empty()) {
        Value v = work.pop_back_val();
        groups[g].push_back(v);
        for (Value w : coupled(v))
          if (groupOf.try_emplace(w, g).second)
            work.push_back(w);
      }
    }
  }

  /// Whether group `g` goes transposed, and how many reorders it needs.
  bool decide(ArrayRef<Value> group, unsigned &reorders) {
    unsigned saved = 0;
    reorders = 0;
    for (Value v : group) {
      if (!layoutCandidate(v))
        return false;
      bool made = producible(v);
      if (isa_and_nonnull<SparseInnerProductOp>(v.getDefiningOp()) ||
          headMerge(v))
        ++saved;
      bool rowMajorReader = false;
      for (OpOperand &u : v.getUses()) {
        if (!accepts(u)) {
          rowMajorReader = true;
          continue;
        }
        if (isa<SparseInnerProductOp>(u.getOwner()) &&
            u.getOperandNumber() == 0)
          ++saved;
        else if (headSplit(u))
          ++saved;
      }
      // A producer that cannot write it: one reorder in, and row-major
      // readers keep the original. Otherwise one reorder out for them.
      reorders += !made || rowMajorReader;
    }
    return saved > reorders;
  }

  /// `x^T` (H x M) from a row-major `[..., H]` value, or back.
  Value reorder(OpBuilder &b, Location loc, Value v, RankedTensorType rowMajor,
                bool toTransposed) {
    auto t = transposedType(rowMajor);
    auto flat = RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)},
                                      t.getElementType());
    auto perm = b.getDenseI64ArrayAttr({1, 0});
    ++stats.reorders;
    if (toTransposed) {
      Value x = v;
      if (rowMajor != flat)
        x = b.create<ReshapeOp>(loc, flat, v);
      return b.create<TransposeOp>(loc, t, x, perm);
    }
    Value x = b.create<TransposeOp>(loc, flat, v, perm);
    if (rowMajor != flat)
      x = b.create<ReshapeOp>(loc, rowMajor, x);
    return x;
  }

  void builderAfter(OpBuilder &b, Value v) {
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  }

  /// Rewrites the head split read by `use` (of a now transposed value).
  void rewriteHeadSplit(OpOperand &use, RankedTensorType /*rowMajor*/) {
    auto reshape = cast<ReshapeOp>(use.getOwner());
    auto t = cast<TransposeOp>(*reshape->getUsers().begin());
    bool queries = t.getPerm().back() == rankedType(t.getOutput()).getRank() - 1;
    // x^T (H x S) as 1.. x nh x dh x S.
    auto split = rankedType(reshape.getOutput());
    SmallVector<int64_t> shape(split.getShape());
    int64_t r = shape.size();
    int64_t s = shape[r - 3], nh = shape[r - 2], dh = shape[r - 1];
    shape[r - 3] = nh;
    shape[r - 2] = dh;
    shape[r - 1] = s;
    OpBuilder b(reshape);
    Value heads = b.create<ReshapeOp>(
        reshape.getLoc(),
        RankedTensorType::get(shape, split.getElementType()), use.get());
    for (OpOperand &mmUse : llvm::make_early_inc_range(t->getUses())) {
      auto mm = cast<MatMulOp>(mmUse.getOwner());
      mmUse.set(heads);
      if (queries) { // the operand is now its own transpose
        if (mmUse.getOperandNumber() == 0)
          mm.setTransposeA(!mm.getTransposeA());
        else
          mm.setTransposeB(!mm.getTransposeB());
      }
    }
    t.erase();
    reshape.erase();
    ++stats.attentionTransposesRemoved;
  }

  /// Replaces the head merge producing `v` by the swapped product; returns
  /// the transposed value.
  Value rewriteHeadMerge(Value v) {
    MatMulOp mm = headMerge(v);
    auto reshape = v.getDefiningOp<ReshapeOp>();
    auto t = reshape.getInput().getDefiningOp<TransposeOp>();
    auto c = rankedType(mm.getOutput());
    SmallVector<int64_t> shape(c.getShape());
    std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
    OpBuilder b(mm);
    // (op_a(A) op_b(B))^T = op_b(B)^T op_a(A)^T.
    auto swapped = b.create<MatMulOp>(
        mm.getLoc(), RankedTensorType::get(shape, c.getElementType()),
        mm.getRhs(), mm.getLhs(),
        mm.getTransposeB() ? UnitAttr() : b.getUnitAttr(),
        mm.getTransposeA() ? UnitAttr() : b.getUnitAttr(), mm.getScaleAttr(),
        mm.getComputeBf16Attr(), mm.getComputeInt8Attr());
    for (NamedAttribute a : mm->getDiscardableAttrs())
      swapped->setAttr(a.getName(), a.getValue());
    b.setInsertionPoint(reshape);
    Value out = b.create<ReshapeOp>(reshape.getLoc(),
                                    transposedType(rankedType(v)), swapped);
    v.replaceAllUsesWith(out);
    reshape.erase();
    t.erase();
    mm.erase();
    ++stats.attentionTransposesRemoved;
    return out;
  }

  void apply(ArrayRef<Value> group) {
    // Everything about the group is read before any of it changes: a layer
    // norm whose output went transposed no longer looks like a row-major
    // one from its input's side.
    struct Plan {
      Value v;
      RankedTensorType rowMajor;
      bool made;
      SmallVector<OpOperand *> readers, rowMajorReaders;
    };
    SmallVector<Plan> plans;
    for (Value v : group) {
      Plan p{v, rankedType(v), producible(v), {}, {}};
      for (OpOperand &u : v.getUses())
        (accepts(u) ? p.readers : p.rowMajorReaders).push_back(&u);
      plans.push_back(std::move(p));
    }
    for (Plan &p : plans) {
      Value v = p.v;
      auto t = transposedType(p.rowMajor);
      ++stats.values;
      OpBuilder b(func.getContext());
      Value vt;
      if (!p.made) {
        builderAfter(b, v);
        vt = reorder(b, v.getLoc(), v, p.rowMajor, /*toTransposed=*/true);
        for (OpOperand *u : p.readers)
          u->set(vt);
      } else {
        if (auto s = v.getDefiningOp<SparseInnerProductOp>()) {
          s.setTransposedOutput(true);
          v.setType(t);
          vt = v;
        } else if (auto ln = v.getDefiningOp<LayerNormOp>()) {
          ln.setTransposed(true);
          ln.setAxis(1);
          v.setType(t);
          vt = v;
          ++stats.layerNorms;
        } else {
          vt = rewriteHeadMerge(v);
        }
        if (!p.rowMajorReaders.empty()) {
          builderAfter(b, vt);
          Value back = reorder(b, v.getLoc(), vt, p.rowMajor, false);
          for (OpOperand *u : p.rowMajorReaders)
            u->set(back);
        }
      }
      // Transposed readers: sparse inputs take the flag; sums and layer
      // norms follow their own output (same group); head splits are
      // rewritten.
      for (OpOperand *u : p.readers) {
        if (auto s = dyn_cast<SparseInnerProductOp>(u->getOwner())) {
          if (u->getOperandNumber() == 0) {
            s.setTransposedInput(true);
            ++stats.links;
          }
          continue;
        }
        if (isa<LayerNormOp>(u->getOwner()))
          continue;
        rewriteHeadSplit(*u, p.rowMajor);
      }
    }
  }
};
} // namespace

TransposedLayoutStats osc::transposeSparseChains(func::FuncOp func) {
  // (Not `Layout l{func, {}, ...}`: DenseMap's size constructor is explicit,
  // so copy-list-initializing it is an error under clang.)
  Layout l;
  l.func = func;
  l.buildGroups();
  SmallVector<unsigned> chosen;
  for (unsigned g = 0; g < l.groups.size(); ++g) {
    unsigned reorders = 0;
    if (l.decide(l.groups[g], reorders))
      chosen.push_back(g);
  }
  // Decide everything first: rewriting one group changes the uses another
  // group's decision looked at.
  for (unsigned g : chosen)
    l.apply(l.groups[g]);
  l.stats.groups = chosen.size();
  return l.stats;
}
