//===- LinalgBindings.cpp - einsum and the other linear-algebra ops -------===//
//
// Part of opscope's runtime. The linear-algebra ops that are not oneDNN
// products (generic.h): Einsum's general form, Det.
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/generic.h"

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel einsumOp(const OpContext &c, std::string &kernel) {
  std::vector<const void *> ins;
  std::vector<Shape> shapes;
  for (const BufferRef &r : c.op.operands) {
    if (r.dtype != c.out().dtype)
      c.fail("einsum inputs and output must share one element type");
    ins.push_back(c.ptr(r));
    shapes.push_back(r.shape);
  }
  Shape labels = c.ints("labels"), outShape = c.out().shape;
  DType t = c.out().dtype;
  void *yp = c.ptr(c.out());
  if (t != DType::F32 && t != DType::F64 && t != DType::I32 &&
      t != DType::I64)
    c.fail("einsum computes f32, f64, i32 and i64 only");
  kernel = c.ownKernel(false);
  return [=] {
    einsum(t, ins, shapes, labels, outShape, yp);
    return std::string();
  };
}

BoundKernel detOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0);
  if (x.dtype != DType::F32 && x.dtype != DType::F64)
    c.fail("det computes f32 and f64 only");
  const void *xp = c.ptr(x);
  void *yp = c.ptr(c.out());
  Shape s = x.shape;
  DType t = x.dtype;
  kernel = c.ownKernel(false);
  return [=] {
    det(t, xp, s, yp);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerLinalgKernels(KernelRegistry &r) {
  r.add(OpKind::Einsum, {"opscope", {}, einsumOp});
  r.add(OpKind::Det, {"opscope", {}, detOp});
}
