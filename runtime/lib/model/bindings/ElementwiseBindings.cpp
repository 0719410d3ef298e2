//===- ElementwiseBindings.cpp - unary, binary, compare, where, reduce ----===//
//
// Part of opscope's runtime. Elementwise kinds and reductions on the
// generic kernels (generic.h), with broadcast walks planned here, once.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/generic.h"

#include <algorithm>

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel unaryOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireComputable(x);
  UnaryKind k = c.enumAttr<UnaryKind>("kind");
  UnaryParams def = defaultUnaryParams(k);
  float alpha = static_cast<float>(c.floatAttr("alpha", def.alpha));
  float beta = static_cast<float>(c.floatAttr("beta", def.beta));
  DType t = x.dtype;
  int64_t n = x.elements();
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  kernel = c.ownKernel();
  return [=] {
    unary(k, t, xp, yp, n, alpha, beta);
    return std::string();
  };
}

BoundKernel binaryOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  c.requireComputable(a);
  BinaryKind k = c.enumAttr<BinaryKind>("kind");
  DType t = a.dtype;
  StridedWalk w = broadcastWalk(y.shape, {a.shape, b.shape});
  const void *ap = c.ptr(a), *bp = c.ptr(b);
  void *yp = c.ptr(y);
  kernel = c.ownKernel();
  return [=] {
    binary(k, t, ap, bp, yp, w);
    return std::string();
  };
}

BoundKernel compareOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  c.requireComputable(a);
  CompareKind k = c.enumAttr<CompareKind>("kind");
  DType t = a.dtype;
  StridedWalk w = broadcastWalk(y.shape, {a.shape, b.shape});
  const void *ap = c.ptr(a), *bp = c.ptr(b);
  auto *yp = c.ptr<uint8_t>(y);
  kernel = c.ownKernel(false);
  return [=] {
    compare(k, t, ap, bp, yp, w);
    return std::string();
  };
}

BoundKernel whereOp(const OpContext &c, std::string &kernel) {
  const BufferRef &cond = c.in(0), &a = c.in(1), &b = c.in(2), &y = c.out();
  StridedWalk w = broadcastWalk(y.shape, {cond.shape, a.shape, b.shape});
  size_t es = dtypeSize(y.dtype);
  auto *cp = c.ptr<const uint8_t>(cond);
  const void *ap = c.ptr(a), *bp = c.ptr(b);
  void *yp = c.ptr(y);
  kernel = c.ownKernel(false);
  return [=] {
    where(cp, ap, bp, yp, w, es);
    return std::string();
  };
}

BoundKernel reduceOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireComputable(x);
  ReduceKind k = c.enumAttr<ReduceKind>("kind");
  Shape axes = c.ints("axes");
  std::sort(axes.begin(), axes.end());
  DType t = x.dtype;
  Shape xs = x.shape;
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  kernel = c.ownKernel();
  return [=] {
    reduce(k, t, xp, xs, axes, yp);
    return std::string();
  };
}

BoundKernel argReduceOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  c.requireComputable(x);
  if (c.out().dtype != DType::I64)
    c.fail("the result must be i64");
  bool min = c.flag("min"), last = c.flag("select_last_index");
  int64_t axis = c.intAttr("axis");
  DType t = x.dtype;
  Shape xs = x.shape;
  const void *xp = c.ptr(x);
  int64_t *yp = c.ptr<int64_t>(c.out());
  kernel = c.ownKernel(false);
  return [=] {
    argReduce(min, last, t, xp, xs, axis, yp);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerElementwiseKernels(KernelRegistry &r) {
  r.add(OpKind::ArgReduce, {"opscope", {}, argReduceOp});
  r.add(OpKind::Unary, {"opscope", {}, unaryOp});
  r.add(OpKind::Binary, {"opscope", {}, binaryOp});
  r.add(OpKind::Compare, {"opscope", {}, compareOp});
  r.add(OpKind::Where, {"opscope", {}, whereOp});
  r.add(OpKind::Reduce, {"opscope", {}, reduceOp});
}
