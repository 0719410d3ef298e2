//===- ONNXLinalg.cpp - Einsum and Det ------------------------------------===//
//
// Part of opscope. Converters for Det (osc.det) and Einsum: the equation
// parsed into labels (letters and the dimensions an ellipsis stands for),
// then for f32 lowered to the ops exported models' equations are made of
// (osc.transpose, osc.reshape, osc.matmul, osc.reduce sum, osc.slice for a
// diagonal), or for other element types osc.einsum, whose kernel loops over
// every label.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// Letters are labels 0-51 (a-z, A-Z); the dimensions an ellipsis stands
/// for are 52, 53, ..., aligned at the right across the inputs as
/// broadcasting aligns them.
constexpr int64_t kEllipsisLabel = 52;

struct Equation {
  SmallVector<SmallVector<int64_t>> inputs;
  SmallVector<int64_t> output;
  llvm::DenseMap<int64_t, int64_t> size;
};

int64_t letterLabel(char ch) {
  if (ch >= 'a' && ch <= 'z')
    return ch - 'a';
  if (ch >= 'A' && ch <= 'Z')
    return 26 + (ch - 'A');
  return -1;
}

/// One term's letters, and where its ellipsis is (-1: none). Errors name
/// the term.
FailureOr<std::pair<SmallVector<int64_t>, int>>
parseTerm(NodeContext &c, StringRef term) {
  SmallVector<int64_t> letters;
  int ellipsis = -1;
  for (size_t i = 0; i < term.size();) {
    if (term.substr(i).starts_with("...")) {
      if (ellipsis >= 0) {
        c.error() << "equation term '" << term << "' has two ellipses";
        return failure();
      }
      ellipsis = letters.size();
      i += 3;
      continue;
    }
    int64_t l = letterLabel(term[i]);
    if (l < 0) {
      c.error() << "equation term '" << term << "' has '" << term[i]
                << "', which is neither a letter nor part of '...'";
      return failure();
    }
    letters.push_back(l);
    ++i;
  }
  return std::make_pair(letters, ellipsis);
}

FailureOr<Equation> parseEquation(NodeContext &c, StringRef text,
                                  ArrayRef<Value> inputs) {
  std::string eq;
  for (char ch : text)
    if (ch != ' ' && ch != '\t')
      eq += ch;
  StringRef lhs = eq, rhs;
  bool explicitOutput = false;
  if (size_t arrow = lhs.find("->"); arrow != StringRef::npos) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    explicitOutput = true;
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size()) {
    c.error() << "equation '" << text << "' has " << terms.size()
              << " input terms for " << inputs.size() << " inputs";
    return failure();
  }
  Equation e;
  SmallVector<std::pair<SmallVector<int64_t>, int>> parsed;
  int64_t ellipsisRank = 0;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    auto t = parseTerm(c, term);
    if (failed(t))
      return failure();
    int64_t rank = typeOf(v).getRank(), letters = t->first.size();
    if (t->second < 0 ? rank != letters : rank < letters) {
      c.error() << "equation term '" << term << "' does not fit an input of "
                << "rank " << rank;
      return failure();
    }
    ellipsisRank = std::max(ellipsisRank, rank - letters);
    parsed.push_back(*t);
  }
  // Each input's labels, its ellipsis expanded; each label's size.
  DenseMap<int64_t, int> count;
  for (auto [t, v] : llvm::zip(parsed, inputs)) {
    auto shape = typeOf(v).getShape();
    int64_t extra = shape.size() - t.first.size();
    SmallVector<int64_t> labels;
    for (size_t i = 0; i <= t.first.size(); ++i) {
      if (static_cast<int>(i) == t.second)
        for (int64_t j = 0; j < extra; ++j)
          labels.push_back(kEllipsisLabel + ellipsisRank - extra + j);
      if (i < t.first.size())
        labels.push_back(t.first[i]);
    }
    for (auto [l, d] : llvm::zip(labels, shape)) {
      ++count[l];
      auto [it, fresh] = e.size.try_emplace(l, d);
      if (fresh || it->second == d)
        continue;
      // Only the ellipsis' dimensions broadcast (size 1 against n).
      if (l >= kEllipsisLabel && (d == 1 || it->second == 1)) {
        it->second = std::max(it->second, d);
        continue;
      }
      c.error() << "equation '" << text << "' gives one label the sizes "
                << it->second << " and " << d;
      return failure();
    }
    e.inputs.push_back(labels);
  }
  if (explicitOutput) {
    auto t = parseTerm(c, rhs);
    if (failed(t))
      return failure();
    if (t->second < 0 && ellipsisRank > 0) {
      c.error() << "equation '" << text
                << "' has inputs with '...' but an output without it";
      return failure();
    }
    for (size_t i = 0; i <= t->first.size(); ++i) {
      if (static_cast<int>(i) == t->second)
        for (int64_t j = 0; j < ellipsisRank; ++j)
          e.output.push_back(kEllipsisLabel + j);
      if (i < t->first.size()) {
        int64_t l = t->first[i];
        if (!e.size.count(l) || llvm::is_contained(e.output, l)) {
          c.error() << "equation '" << text << "': output label '" << rhs
                    << "' must name input labels, each once";
          return failure();
        }
        e.output.push_back(l);
      }
    }
  } else {
    // Implicit output: the ellipsis' dimensions, then the labels that
    // appear once, in alphabetical (ASCII) order.
    for (int64_t j = 0; j < ellipsisRank; ++j)
      e.output.push_back(kEllipsisLabel + j);
    SmallVector<std::pair<char, int64_t>> once;
    for (auto [l, n] : count)
      if (l < kEllipsisLabel && n == 1)
        once.push_back({l < 26 ? char('a' + l) : char('A' + l - 26), l});
    llvm::sort(once);
    for (auto [ch, l] : once)
      e.output.push_back(l);
  }
  return e;
}

/// A value and the label of each of its dimensions.
struct Term {
  Value v;
  SmallVector<int64_t> labels;
};

Value transposeTo(NodeContext &c, Value v, ArrayRef<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return v;
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(typeOf(v).getDimSize(p));
  return c.create<TransposeOp>(tensorOf(shape, elemOf(v)), v,
                               i64Array(c, perm));
}

/// `t`'s dimensions in the order of `order` (a permutation of its labels).
void permuteTo(NodeContext &c, Term &t, ArrayRef<int64_t> order) {
  SmallVector<int64_t> perm;
  for (int64_t l : order)
    perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
  t.v = transposeTo(c, t.v, perm);
  t.labels.assign(order.begin(), order.end());
}

/// Sums `t` over the labels `drop` says to.
void sumOut(NodeContext &c, Term &t, llvm::function_ref<bool(int64_t)> drop) {
  SmallVector<int64_t> axes, shape, kept;
  for (auto [i, l] : llvm::enumerate(t.labels)) {
    if (drop(l)) {
      axes.push_back(i);
    } else {
      shape.push_back(typeOf(t.v).getDimSize(i));
      kept.push_back(l);
    }
  }
  if (axes.empty())
    return;
  t.v = c.create<ReduceOp>(
      tensorOf(shape, elemOf(t.v)),
      ReduceKindAttr::get(c.b.getContext(), ReduceKind::sum), t.v,
      i64Array(c, axes), UnitAttr());
  t.labels = kept;
}

/// Takes the diagonal of every label `t` repeats: the two dimensions moved
/// last, merged, and every (n + 1)-th element sliced out.
void takeDiagonals(NodeContext &c, Term &t) {
  for (;;) {
    int64_t p = -1, q = -1;
    for (size_t i = 0; i < t.labels.size() && p < 0; ++i)
      for (size_t j = i + 1; j < t.labels.size(); ++j)
        if (t.labels[i] == t.labels[j]) {
          p = i;
          q = j;
          break;
        }
    if (p < 0)
      return;
    int64_t l = t.labels[p], n = typeOf(t.v).getDimSize(p);
    SmallVector<int64_t> perm, labels, shape;
    for (int64_t i = 0; i < static_cast<int64_t>(t.labels.size()); ++i)
      if (i != p && i != q) {
        perm.push_back(i);
        labels.push_back(t.labels[i]);
        shape.push_back(typeOf(t.v).getDimSize(i));
      }
    perm.push_back(p);
    perm.push_back(q);
    Value v = transposeTo(c, t.v, perm);
    shape.push_back(n * n);
    v = reshape(c, v, shape);
    SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1);
    steps.back() = n + 1;
    shape.back() = n;
    t.v = c.create<SliceOp>(tensorOf(shape, elemOf(v)), v, i64Array(c, starts),
                            i64Array(c, shape), i64Array(c, steps));
    labels.push_back(l);
    t.labels = labels;
  }
}

/// a x b over their shared labels: those `keep` holds stay as batch
/// dimensions, the others are contracted by one batched osc.matmul.
FailureOr<Term> contract(NodeContext &c, Term a, Term b,
                         llvm::function_ref<bool(int64_t)> keep) {
  SmallVector<int64_t> batch, aOnly, bOnly, summed;
  for (int64_t l : a.labels) {
    if (!llvm::is_contained(b.labels, l))
      aOnly.push_back(l);
    else if (keep(l))
      batch.push_back(l);
    else
      summed.push_back(l);
  }
  for (int64_t l : b.labels)
    if (!llvm::is_contained(a.labels, l))
      bOnly.push_back(l);
  auto sizeOf = [&](Term &t, int64_t l) {
    return typeOf(t.v).getDimSize(llvm::find(t.labels, l) - t.labels.begin());
  };
  int64_t nb = 1, m = 1, n = 1, k = 1;
  SmallVector<int64_t> shape;
  for (int64_t l : batch) {
    nb *= sizeOf(a, l);
    shape.push_back(sizeOf(a, l));
  }
  for (int64_t l : aOnly) {
    m *= sizeOf(a, l);
    shape.push_back(sizeOf(a, l));
  }
  for (int64_t l : bOnly) {
    n *= sizeOf(b, l);
    shape.push_back(sizeOf(b, l));
  }
  for (int64_t l : summed)
    k *= sizeOf(a, l);
  SmallVector<int64_t> aOrder(batch), bOrder(batch);
  aOrder.append(aOnly);
  aOrder.append(summed);
  bOrder.append(summed);
  bOrder.append(bOnly);
  permuteTo(c, a, aOrder);
  permuteTo(c, b, bOrder);
  Value av = reshape(c, a.v, {nb, m, k}), bv = reshape(c, b.v, {nb, k, n});
  Value r = c.create<MatMulOp>(tensorOf({nb, m, n}, elemOf(av)), av, bv,
                               UnitAttr(), UnitAttr(),
                               c.b.getF32FloatAttr(1.0f));
  Term t{reshape(c, r, shape), batch};
  t.labels.append(aOnly);
  t.labels.append(bOnly);
  return t;
}

/// The f32 lowering: each input's diagonals taken and its broadcast
/// dimensions expanded, labels no other term needs summed out early, then
/// the inputs contracted left to right and the result put in the output's
/// order.
FailureOr<Value> lowerEinsum(NodeContext &c, const Equation &e,
                             ArrayRef<Value> inputs) {
  SmallVector<Term> terms;
  for (auto [v, labels] : llvm::zip(inputs, e.inputs)) {
    Term t{v, labels};
    SmallVector<int64_t> full;
    for (int64_t l : labels)
      full.push_back(e.size.lookup(l));
    if (ArrayRef<int64_t>(full) != typeOf(v).getShape())
      t.v = c.create<BroadcastToOp>(tensorOf(full, elemOf(v)), v);
    takeDiagonals(c, t);
    terms.push_back(t);
  }
  // Whether a label is needed after term i (in the output or a later term).
  auto neededAfter = [&](size_t i, int64_t l) {
    if (llvm::is_contained(e.output, l))
      return true;
    for (size_t j = i + 1; j < terms.size(); ++j)
      if (llvm::is_contained(terms[j].labels, l))
        return true;
    return false;
  };
  auto neededBy = [&](size_t i, size_t self, int64_t l) {
    if (neededAfter(i, l))
      return true;
    for (size_t j = 0; j <= i; ++j)
      if (j != self && llvm::is_contained(terms[j].labels, l))
        return true;
    return false;
  };
  Term acc = terms[0];
  sumOut(c, acc, [&](int64_t l) { return !neededBy(0, 0, l); });
  for (size_t i = 1; i < terms.size(); ++i) {
    Term t = terms[i];
    sumOut(c, t, [&](int64_t l) {
      return !neededAfter(i, l) && !llvm::is_contained(acc.labels, l);
    });
    auto r = contract(c, acc, t, [&](int64_t l) { return neededAfter(i, l); });
    if (failed(r))
      return failure();
    acc = *r;
  }
  sumOut(c, acc, [&](int64_t l) { return !llvm::is_contained(e.output, l); });
  permuteTo(c, acc, e.output);
  return acc.v;
}
} // namespace

void opscope::onnx_import::addLinalgConverters(llvm::StringMap<Converter> &m) {
  // Einsum (opset 12): every equation, ellipses and implicit outputs
  // included.
  m["Einsum"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    SmallVector<Value> inputs;
    for (unsigned i = 0; i < c.numInputs(); ++i)
      inputs.push_back(c.input(i));
    if (inputs.empty()) {
      c.error() << "needs at least one input";
      return failure();
    }
    Type elem = elemOf(inputs[0]);
    for (Value v : inputs)
      if (elemOf(v) != elem) {
        c.error() << "inputs must share one element type, got " << elem
                  << " and " << elemOf(v);
        return failure();
      }
    std::string text = c.stringAttr("equation", "");
    auto e = parseEquation(c, text, inputs);
    if (failed(e))
      return failure();
    if (elem.isF32()) {
      auto r = lowerEinsum(c, *e, inputs);
      if (failed(r))
        return failure();
      out.push_back(*r);
      return success();
    }
    SmallVector<int64_t> labels, shape;
    for (auto &l : e->inputs)
      labels.append(l);
    labels.append(e->output);
    for (int64_t l : e->output)
      shape.push_back(e->size.lookup(l));
    out.push_back(c.create<EinsumOp>(tensorOf(shape, elem), inputs,
                                     i64Array(c, labels)));
    return success();
  };
  // Det (opset 11): osc.det over the trailing square matrices.
  m["Det"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto shape = typeOf(x).getShape();
    if (shape.size() < 2 || shape.back() != shape[shape.size() - 2]) {
      c.error() << "expects square matrices (... x n x n), got "
                << formatShape(shape);
      return failure();
    }
    out.push_back(
        c.create<DetOp>(tensorOf(shape.drop_back(2), elemOf(x)), x));
    return success();
  };
}
