//===- IndexingBindings.cpp - cumsum, top-k, N-d gathers, scatters --------===//
//
// Part of opscope's runtime. The indexing ops on the kernels of indexing.h.
// An index out of range at run time ends the run with an error naming the
// op (the kernels check every index before using it), as gather's does.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/indexing.h"

#include <algorithm>
#include <memory>

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel cumSumOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireComputable(x);
  const void *xp = c.ptr(x);
  void *yp = c.ptr(c.out());
  Shape shape = x.shape;
  DType t = x.dtype;
  int64_t axis = c.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    c.fail("axis " + std::to_string(axis) + " out of range");
  bool exclusive = c.flag("exclusive"), reverse = c.flag("reverse");
  // f32 with elements after the axis adds rows on the kernel table; a scan
  // along the last axis, and other types, are scalar loops.
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  bool rows = t == DType::F32 && inner > 1;
  kernel = c.ownKernel(rows);
  return [=] {
    cumSum(t, xp, shape, axis, exclusive, reverse, yp);
    return std::string();
  };
}

BoundKernel topKOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireComputable(x);
  const void *xp = c.ptr(x);
  void *vp = c.ptr(c.out(0));
  int64_t *ip = c.ptr<int64_t>(c.out(1));
  Shape shape = x.shape;
  DType t = x.dtype;
  int64_t axis = c.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
      c.out(0).shape.size() != shape.size())
    c.fail("axis " + std::to_string(axis) + " out of range");
  int64_t k = c.out(0).shape[axis];
  bool smallest = c.flag("smallest");
  // A partial sort of each slice: scalar code.
  kernel = c.ownKernel(false);
  if (!c.has(1)) {
    if (c.op.results.size() != 2)
      c.fail("a compile-time k has no count result");
    return [=] {
      topK(t, xp, shape, axis, k, smallest, vp, ip);
      return std::string();
    };
  }
  // k read at run time: the results are bounded by the axis length, and
  // the op's last result receives k (docs/architecture.md, "Data-dependent
  // output shapes").
  const BufferRef &kr = c.in(1);
  if (kr.dtype != DType::I64 || kr.elements() != 1)
    c.fail("k must be one i64 value");
  int64_t len = shape[axis];
  if (k != len || c.op.results.size() != 3)
    c.fail("a run-time k needs results bounded by the axis length " +
           std::to_string(len) + " and a count result");
  const int64_t *kp = c.ptr<const int64_t>(kr);
  int64_t *np = c.ptr<int64_t>(c.out(2));
  std::string where = "op '" + c.op.name + "' (top_k): k ";
  return [=]() {
    int64_t rk = *kp;
    if (rk < 0 || rk > len) {
      topK(t, xp, shape, axis, 0, smallest, vp, ip, len); // all padding
      *np = 0;
      return where + std::to_string(rk) + " is out of range for " +
             std::to_string(len) + " elements along axis " +
             std::to_string(axis);
    }
    topK(t, xp, shape, axis, rk, smallest, vp, ip, len);
    *np = rk;
    return std::string();
  };
}

BoundKernel gatherNDOp(const OpContext &c, std::string &kernel) {
  const BufferRef &idx = c.in(1);
  const void *xp = c.ptr(c.in(0)), *ip = c.ptr(idx);
  void *yp = c.ptr(c.out());
  Shape ds = c.in(0).shape, is = idx.shape;
  DType it = idx.dtype;
  int64_t batchDims = c.intAttr("batch_dims");
  size_t es = dtypeSize(c.in(0).dtype);
  std::string where = "op '" + c.op.name + "' (gather_nd): index out of range";
  kernel = c.ownKernel(false);
  return [=] {
    if (!gatherND(xp, ds, ip, it, is, batchDims, yp, es))
      return where;
    return std::string();
  };
}

BoundKernel scatterNDOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &idx = c.in(1);
  c.requireComputable(x);
  const void *xp = c.ptr(x), *ip = c.ptr(idx), *up = c.ptr(c.in(2));
  void *yp = c.ptr(c.out());
  Shape ds = x.shape, is = idx.shape;
  DType t = x.dtype, it = idx.dtype;
  auto reduction = c.enumAttr<ScatterReduction>("reduction");
  std::string where =
      "op '" + c.op.name + "' (scatter_nd): index out of range";
  // f32 slices under add or mul run the kernel table's rows (scatterND).
  int64_t slice = 1;
  for (size_t d = is.empty() ? 0 : is.back(); d < ds.size(); ++d)
    slice *= ds[d];
  kernel = c.ownKernel(t == DType::F32 && slice > 1 &&
                       (reduction == ScatterReduction::Add ||
                        reduction == ScatterReduction::Mul));
  return [=] {
    if (!scatterND(reduction, t, xp, ds, ip, it, is, up, yp))
      return where;
    return std::string();
  };
}

BoundKernel scatterElementsOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &idx = c.in(1);
  c.requireComputable(x);
  const void *xp = c.ptr(x), *ip = c.ptr(idx), *up = c.ptr(c.in(2));
  void *yp = c.ptr(c.out());
  Shape ds = x.shape, is = idx.shape;
  DType t = x.dtype, it = idx.dtype;
  int64_t axis = c.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(ds.size()) ||
      is.size() != ds.size())
    c.fail("axis " + std::to_string(axis) + " out of range");
  auto reduction = c.enumAttr<ScatterReduction>("reduction");
  std::string where =
      "op '" + c.op.name + "' (scatter_elements): index out of range";
  kernel = c.ownKernel(false);
  return [=] {
    if (!scatterElements(reduction, t, xp, ds, ip, it, is, axis, up, yp))
      return where;
    return std::string();
  };
}

BoundKernel reverseSequenceOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &lens = c.in(1);
  const void *xp = c.ptr(x), *lp = c.ptr(lens);
  void *yp = c.ptr(c.out());
  Shape shape = x.shape;
  DType lt = lens.dtype;
  int64_t b = c.intAttr("batch_axis"), t = c.intAttr("time_axis");
  if (shape.size() < 2 || b < 0 || b > 1 || t < 0 || t > 1 || b == t)
    c.fail("batch_axis and time_axis must be 0 and 1, one each");
  size_t es = dtypeSize(x.dtype);
  std::string where = "op '" + c.op.name +
                      "' (reverse_sequence): a sequence length is below 0 "
                      "or above the time axis";
  kernel = c.ownKernel(false);
  return [=] {
    if (!reverseSequence(xp, shape, lp, lt, b, t, yp, es))
      return where;
    return std::string();
  };
}
BoundKernel tfidfVectorizerOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  if (x.dtype != DType::I32 && x.dtype != DType::I64)
    c.fail("tokens must be i32 or i64");
  if (y.dtype != DType::F32 || (x.shape.size() != 1 && x.shape.size() != 2))
    c.fail("expects C or N x C tokens and an f32 output");
  TfIdfParams p;
  p.mode = c.enumAttr<TfIdfMode>("mode");
  p.minGram = c.intAttr("min_gram_length");
  p.maxGram = c.intAttr("max_gram_length");
  p.maxSkip = c.intAttr("max_skip_count");
  p.ngramCounts = c.ints("ngram_counts");
  p.ngramIndexes = c.ints("ngram_indexes");
  p.pool = c.ints("pool");
  p.weights = c.floats("weights");
  if (p.minGram < 1 || p.maxGram < p.minGram || p.maxSkip < 0 ||
      p.maxSkip > (int64_t(1) << 40) || p.ngramIndexes.empty() ||
      std::any_of(p.ngramIndexes.begin(), p.ngramIndexes.end(),
                  [](int64_t i) { return i < 0 || i > (int64_t(1) << 40); }))
    c.fail("n-gram lengths, max_skip_count or ngram_indexes out of range");
  if (!p.weights.empty() && p.weights.size() != p.ngramIndexes.size())
    c.fail("weights must have one entry per entry of ngram_indexes");
  auto table = std::make_shared<TfIdfVectorizer>(p);
  int64_t rows = x.shape.size() == 2 ? x.shape[0] : 1;
  int64_t length = x.shape.back();
  if (y.shape.back() != table->columns())
    c.fail("output columns do not match max(ngram_indexes) + 1");
  const void *xp = c.ptr(x);
  float *yp = c.ptr<float>(y);
  DType t = x.dtype;
  kernel = c.ownKernel(false);
  return [=] {
    table->run(xp, t, rows, length, yp);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerIndexingKernels(KernelRegistry &r) {
  r.add(OpKind::CumSum, {"opscope", {}, cumSumOp});
  r.add(OpKind::TopK, {"opscope", {}, topKOp});
  r.add(OpKind::GatherND, {"opscope", {}, gatherNDOp});
  r.add(OpKind::ScatterND, {"opscope", {}, scatterNDOp});
  r.add(OpKind::ScatterElements, {"opscope", {}, scatterElementsOp});
  r.add(OpKind::ReverseSequence, {"opscope", {}, reverseSequenceOp});
  r.add(OpKind::TfIdfVectorizer, {"opscope", {}, tfidfVectorizerOp});
}
