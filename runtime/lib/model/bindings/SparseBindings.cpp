//===- SparseBindings.cpp - block-sparse inner products -------------------===//
//
// Part of opscope's runtime. osc.sparse_inner_product: the weight operand is
// the packed blob (sparse_format.h) the compiler wrote into `.weights`,
// validated here once and then read in place from the mapped file (every
// session of a model shares it).
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse.h"

#include <cstring>
#include <memory>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
BoundKernel sparseInnerProduct(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  c.requireF32(x, "input");
  c.requireF32(y, "output");
  if (w.kind != BufferRef::Weight || w.dtype != DType::I8 || w.shape.size() != 1)
    c.fail("the packed weight must be a constant 1-D i8 buffer");
  const void *blob = c.ptr<const void>(w);
  if (reinterpret_cast<uintptr_t>(blob) % 64)
    c.fail("the packed weight is not 64-byte aligned in the weights file");
  std::string bad = sparse::validate(blob, w.bytes());
  if (!bad.empty())
    c.fail("malformed packed sparse weight: " + bad);
  sparse::Header h;
  std::memcpy(&h, blob, sizeof(h));
  Shape ws = c.ints("weight_shape");
  if (ws.size() != 2 || ws[0] != h.n || ws[1] != h.k)
    c.fail("weight_shape does not match the packed weight (" +
           std::to_string(h.n) + "x" + std::to_string(h.k) + ")");
  bool s8 = h.valueType == static_cast<uint8_t>(sparse::ValueType::S8);
  if (s8 && !c.hasAttr("input_scale"))
    c.fail(std::string("packed weights of type ") +
           sparse::valueTypeName(static_cast<sparse::ValueType>(h.valueType)) +
           " need the input's quantization (input_scale, input_zero_point)");
  SparseLayout layout{c.flag("transposed_input"), c.flag("transposed_output")};
  int64_t m = y.elements() / h.n;
  if (m * h.n != y.elements() || x.elements() != m * h.k)
    c.fail("input/output sizes do not match weight " + std::to_string(h.n) +
           "x" + std::to_string(h.k));
  const float *bias = c.has(2) ? c.constF32(c.in(2)) : nullptr;
  if (c.has(2) && !bias)
    c.fail("sparse_inner_product needs a constant bias");
  if (s8) {
    if (h.k % 4)
      c.fail("int8 sparse kernels need K to be a multiple of 4, got " +
             std::to_string(h.k));
    // --precision int8: the f32 input (either layout: quantizing is
    // elementwise) goes to u8 on entry, into a buffer the kernel owns.
    auto [xScale, xZero] = c.inputQuantization();
    auto ip = std::make_shared<SparseInnerProductS8>(m, blob, bias,
                                                     c.postOps(), layout);
    kernel = ip->implementation();
    auto xq = std::make_shared<std::vector<uint8_t>>(x.elements());
    const float *xp = c.ptr<const float>(x);
    float *yp = c.ptr<float>(y);
    const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
    int64_t count = x.elements(), k = h.k;
    bool transposed = layout.transposedInput;
    return [=, xScale = xScale, xZero = xZero] {
      // A transposed (K x M) input goes to the kernel's VNNI layout: K/4
      // rows of M dwords of four consecutive k.
      if (transposed)
        quantizeU8Transposed(xp, xq->data(), k, m, xScale, xZero);
      else
        quantizeU8(xp, xq->data(), count, xScale, xZero);
      ip->run(xq->data(), xScale, xZero, yp, sum);
      return std::string();
    };
  }
  auto ip = std::make_shared<SparseInnerProduct>(m, blob, bias, c.postOps(),
                                                 layout);
  kernel = ip->implementation();
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(y);
  const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  return [=] {
    ip->run(xp, yp, sum);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerSparseKernels(KernelRegistry &r) {
  r.add(OpKind::SparseInnerProduct, {"opscope", {}, sparseInnerProduct});
}
