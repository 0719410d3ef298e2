//===- DenseMatMul.cpp - oneDNN batched matmul ----------------------------===//
//
// Part of opscope's runtime. osc.matmul on oneDNN's matmul primitive, in
// f32, bf16 (operands rounded, or read as bf16 inside a bf16 chain) and
// dynamically quantized int8; see Dense.cpp for the other dense kernels.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

struct MatMul::Impl {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  bool constB = false, bf16 = false, int8 = false;
  /// bf16 without native bf16: f32 kernels on f32 operands (a constant b
  /// rounded to bf16 once).
  bool asF32 = false;
  int64_t aElems = 0, bElems = 0;
  /// bf16: the f32 operands rounded (a bf16 one widened without native
  /// bf16) into threadScratch slots 0 and 1; bf16 chains: which buffers are
  /// bf16, and without native bf16 a bf16 c is written in f32 (slot 2) and
  /// rounded.
  MatMul::Bf16Io io;
  int64_t cElems = 0;
  /// int8: the quantized operands, the output scale (scale x a's x b's)
  /// and b's scale (fixed for a constant b).
  std::vector<int8_t> aS8, bS8;
  float outScale = 1.0f, bScale = 1.0f, scale = 1.0f;
  dnnl::memory scaleMem;
  std::unordered_map<int, dnnl::memory> args;
};

namespace {
/// Symmetric per-tensor s8 quantization of n values: returns the scale
/// (max |x| / limit; 1 for all zeros). The rhs (oneDNN's weights) takes
/// int8WeightLimit(): 7 bits where the tier's int8 kernels would saturate.
float quantizeS8Dynamic(const float *x, int8_t *q, int64_t n,
                        int limit = 127) {
  float amax = maxAbs(x, n);
  float scale = amax > 0.0f ? amax / float(limit) : 1.0f;
  quantizeS8(x, q, n, scale);
  return scale;
}
} // namespace

MatMul::MatMul(const Dims &aShape, const Dims &bShape, const Dims &cShape,
               bool transposeA, bool transposeB, float scale,
               const float *constB, bool bf16, bool int8, Bf16Io bf16Io)
    : impl(std::make_unique<Impl>()) {
  if (bf16 && int8)
    throw std::invalid_argument("a matmul computes in bf16 or int8, not both");
  if ((bf16Io.a || bf16Io.b || bf16Io.c) && !bf16)
    throw std::invalid_argument("bf16 operands need a bf16 matmul");
  if (bf16Io.b && constB)
    throw std::invalid_argument("a constant rhs is f32");
  Context &ctx = context();
  // Promote rank-1 operands to matrices, then align batch ranks.
  Dims a = aShape, b = bShape;
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);
  // A batched lhs against one matrix is one big matrix product: fold the
  // batch into the rows (oneDNN's 2-D kernels are faster than its
  // broadcast batch loop, and this is every unfused Linear layer).
  bool bIsMatrix = std::all_of(b.begin(), b.end() - 2,
                               [](int64_t d) { return d == 1; });
  if (!transposeA && a.size() > 2 && bIsMatrix) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.size(); ++i)
      rows *= a[i];
    a = {rows, a.back()};
    b = {b[b.size() - 2], b.back()};
  }
  size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  // Logical dims/strides of op(a) and op(b) over the stored row-major data.
  auto logical = [&](const Dims &stored, bool transpose, Dims &dims,
                     Dims &strides) {
    dims = stored;
    strides.assign(rank, 0);
    int64_t acc = 1;
    for (size_t i = rank; i-- > 0;) {
      strides[i] = acc;
      acc *= stored[i];
    }
    if (transpose) {
      std::swap(dims[rank - 1], dims[rank - 2]);
      std::swap(strides[rank - 1], strides[rank - 2]);
    }
  };
  Dims ad, as, bd, bs;
  logical(a, transposeA, ad, as);
  logical(b, transposeB, bd, bs);
  Dims cd(rank);
  for (size_t i = 0; i + 2 < rank; ++i)
    cd[i] = std::max(ad[i], bd[i]);
  cd[rank - 2] = ad[rank - 2];
  cd[rank - 1] = bd[rank - 1];
  impl->bf16 = bf16;
  impl->int8 = int8;
  impl->scale = scale;
  impl->asF32 = bf16 && !nativeBf16();
  dt in = bf16 && !impl->asF32 ? dt::bf16 : dt::f32;
  dt aType = int8 ? dt::s8 : in, bType = int8 ? dt::s8 : in;
  impl->aElems = product(aShape);
  impl->bElems = product(bShape);
  dnnl::memory::desc aMd(toDims(ad), aType, toDims(as));
  dnnl::memory::desc bPlain(toDims(bd), bType, toDims(bs));
  dnnl::memory::desc bMd =
      constB ? dnnl::memory::desc(toDims(bd), bType, tag::any) : bPlain;
  impl->io = bf16Io;
  impl->cElems = product(cShape);
  dnnl::memory::desc cMd(toDims(cd),
                         bf16Io.c && !impl->asF32 ? dt::bf16 : dt::f32,
                         plainTag(rank));
  dnnl::primitive_attr attr;
  // int8: the scale changes with every run's ranges, and oneDNN 2.6 takes
  // run-time output scales only on its slower gemm:jit matmul (brg needs
  // them fixed), so it is a binary-multiply post-op by a one-element
  // tensor instead (free on brg; a separate pass over a 12 x 512 x 512
  // output took longer than the int8 product itself).
  dnnl::memory::desc scaleMd(dnnl::memory::dims(rank, 1), dt::f32,
                             plainTag(rank));
  if (int8) {
    dnnl::post_ops po;
    po.append_binary(dnnl::algorithm::binary_mul, scaleMd);
    attr.set_post_ops(po);
  } else if (scale != 1.0f) {
    attr.set_output_scales(0, {scale});
  }
  impl->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(aMd, bMd, cMd),
                                          attr, ctx.engine);
  impl->prim = dnnl::matmul(impl->pd);
  impl->a = dnnl::memory(aMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->c = dnnl::memory(cMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->constB = constB != nullptr;

  if (int8) {
    impl->aS8.resize(impl->aElems);
    if (constB) {
      // Quantized once; packing copies it.
      std::vector<int8_t> q(impl->bElems);
      impl->bScale =
          quantizeS8Dynamic(constB, q.data(), impl->bElems, int8WeightLimit());
      impl->b = packed(bPlain, impl->pd.weights_desc(), q.data());
    } else {
      impl->bS8.resize(impl->bElems);
      impl->b = dnnl::memory(bPlain, ctx.engine, DNNL_MEMORY_NONE);
    }
    impl->scaleMem = dnnl::memory(scaleMd, ctx.engine, &impl->outScale);
    impl->args = {{DNNL_ARG_SRC, impl->a},
                  {DNNL_ARG_WEIGHTS, impl->b},
                  {DNNL_ARG_DST, impl->c},
                  {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   impl->scaleMem}};
    return;
  }
  // A constant b is rounded once here, then packed.
  std::vector<float> constB32;
  std::vector<uint16_t> constB16;
  if (constB && impl->asF32) {
    constB32.resize(impl->bElems);
    roundToBf16AsF32(constB, constB32.data(), impl->bElems);
    constB = constB32.data();
  }
  if (constB && bf16 && !impl->asF32) {
    constB16.resize(impl->bElems);
    roundToBf16(constB, constB16.data(), impl->bElems);
    dnnl::memory plainB(bPlain, ctx.engine, constB16.data());
    impl->b = dnnl::memory(impl->pd.weights_desc(), ctx.engine);
    dnnl::reorder(plainB, impl->b).execute(ctx.stream, plainB, impl->b);
    ctx.stream.wait();
  } else {
    impl->b = constB ? packed(bPlain, impl->pd.weights_desc(), constB)
                     : dnnl::memory(bPlain, ctx.engine, DNNL_MEMORY_NONE);
  }
  impl->args = {{DNNL_ARG_SRC, impl->a},
                {DNNL_ARG_WEIGHTS, impl->b},
                {DNNL_ARG_DST, impl->c}};
}

MatMul::~MatMul() = default;

void MatMul::run(const float *a, const float *b, float *c) {
  const Bf16Io &io = impl->io;
  if (io.a || io.b || io.c)
    throw std::logic_error("this matmul has bf16 operands: use runRaw");
  runRaw(a, b, c);
}

void MatMul::runRaw(const void *a, const void *b, void *c) {
  Context &ctx = context();
  Impl &I = *impl;
  auto f32 = [](const void *p) { return static_cast<const float *>(p); };
  auto bf = [](const void *p) { return static_cast<const uint16_t *>(p); };
  // An operand as the kernel reads it: an f32 one rounded to bf16, or as
  // it is without native bf16 (f32 kernels; only a constant b, the
  // weights, is rounded, once); a bf16 one as it is, or widened then.
  auto operand = [&](const void *p, bool isBf16, int slot,
                     int64_t n) -> void * {
    if (I.asF32 && !isBf16)
      return const_cast<void *>(p);
    if (I.asF32) {
      auto *r32 = static_cast<float *>(threadScratch(slot, n * sizeof(float)));
      bf16ToF32(bf(p), r32, n);
      return r32;
    }
    if (isBf16)
      return const_cast<void *>(p);
    auto *r16 = static_cast<uint16_t *>(threadScratch(slot, n * 2));
    roundToBf16(f32(p), r16, n);
    return r16;
  };
  if (I.int8) {
    float aScale = quantizeS8Dynamic(f32(a), I.aS8.data(), I.aElems);
    I.a.set_data_handle(I.aS8.data());
    if (!I.constB) {
      I.bScale = quantizeS8Dynamic(f32(b), I.bS8.data(), I.bElems,
                                   int8WeightLimit());
      I.b.set_data_handle(I.bS8.data());
    }
    I.outScale = I.scale * aScale * I.bScale;
  } else if (I.bf16) {
    I.a.set_data_handle(operand(a, I.io.a, 0, I.aElems));
    if (!I.constB)
      I.b.set_data_handle(operand(b, I.io.b, 1, I.bElems));
  } else {
    I.a.set_data_handle(const_cast<void *>(a));
    if (!I.constB)
      I.b.set_data_handle(const_cast<void *>(b));
  }
  bool roundC = I.io.c && I.asF32;
  auto *c32 = roundC ? static_cast<float *>(
                           threadScratch(2, I.cElems * sizeof(float)))
                     : nullptr;
  I.c.set_data_handle(roundC ? c32 : c);
  I.prim.execute(ctx.stream, I.args);
  ctx.stream.wait();
  if (roundC)
    roundToBf16(c32, static_cast<uint16_t *>(c), I.cElems);
}

std::string MatMul::implementation() const {
  return std::string(impl->pd.impl_info_str()) + (impl->asF32 ? ":f32" : "") +
         (impl->int8 && int8WeightLimit() < 127 ? ":s8w7" : "");
}
