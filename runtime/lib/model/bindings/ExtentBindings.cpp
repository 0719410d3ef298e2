//===- ExtentBindings.cpp - ops whose output extent depends on the data ---===//
//
// Part of opscope's runtime. non_zero, compress and unique on the kernels of
// extents.h: each writes its bounded output and its run-time extent, the
// op's last result (docs/architecture.md, "Data-dependent output shapes").
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/extents.h"

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel nonZeroOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  const void *xp = c.ptr(x);
  int64_t *ip = c.ptr<int64_t>(c.out(0));
  int64_t *np = c.ptr<int64_t>(c.out(1));
  Shape shape = x.shape;
  DType t = x.dtype;
  if (c.out(0).elements() != numElements(shape) * int64_t(shape.size()))
    c.fail("indices must be rank x elements of the input");
  kernel = c.ownKernel(false);
  return [=] {
    *np = nonZero(t, xp, shape, ip);
    return std::string();
  };
}

BoundKernel compressOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &cond = c.in(1);
  const void *xp = c.ptr(x);
  const uint8_t *cp = c.ptr<uint8_t>(cond);
  void *yp = c.ptr(c.out(0));
  int64_t *np = c.ptr<int64_t>(c.out(1));
  Shape shape = x.shape;
  size_t elem = dtypeSize(x.dtype);
  int64_t axis = c.hasAttr("axis") ? c.intAttr("axis") : -1;
  if (axis >= static_cast<int64_t>(shape.size()) || cond.shape.size() != 1)
    c.fail("axis " + std::to_string(axis) + " out of range");
  int64_t condLen = cond.shape[0];
  kernel = c.ownKernel(false);
  return [=] {
    *np = compress(elem, xp, shape, axis, cp, condLen, yp);
    return std::string();
  };
}

BoundKernel uniqueOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  const void *xp = c.ptr(x);
  void *yp = c.ptr(c.out(0));
  int64_t *ip = c.ptr<int64_t>(c.out(1)), *inv = c.ptr<int64_t>(c.out(2)),
          *cp = c.ptr<int64_t>(c.out(3)), *np = c.ptr<int64_t>(c.out(4));
  Shape shape = x.shape;
  DType t = x.dtype;
  if (t == DType::F16 || t == DType::BF16)
    c.fail(std::string("element type ") + dtypeName(t) +
           " is not supported by unique");
  int64_t axis = c.hasAttr("axis") ? c.intAttr("axis") : -1;
  if (axis >= static_cast<int64_t>(shape.size()))
    c.fail("axis " + std::to_string(axis) + " out of range");
  bool sorted = !c.flag("unsorted");
  kernel = c.ownKernel(false);
  return [=] {
    *np = unique(t, xp, shape, axis, sorted, yp, ip, inv, cp);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerExtentKernels(KernelRegistry &r) {
  r.add(OpKind::NonZero, {"opscope", {}, nonZeroOp});
  r.add(OpKind::Compress, {"opscope", {}, compressOp});
  r.add(OpKind::Unique, {"opscope", {}, uniqueOp});
}
