//===- Dense.cpp - oneDNN-backed dense kernels ----------------------------===//
//
// Part of opscope's runtime. oneDNN's C++ API throws; this file is built with
// exceptions and is the only place that talks to oneDNN.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"

#include <dnnl.hpp>

#include <cstring>
#include <stdexcept>
#include <unordered_map>

using namespace opscope::rt;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

namespace {
/// One CPU engine and stream per process; primitives are created against it.
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
Context &context() {
  static Context ctx;
  return ctx;
}

dnnl::algorithm algorithmOf(PostOp p) {
  switch (p) {
  case PostOp::Relu:
    return dnnl::algorithm::eltwise_relu;
  case PostOp::GeluErf:
    return dnnl::algorithm::eltwise_gelu_erf;
  case PostOp::GeluTanh:
    return dnnl::algorithm::eltwise_gelu_tanh;
  case PostOp::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  case PostOp::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case PostOp::HardSwish:
    return dnnl::algorithm::eltwise_hardswish;
  case PostOp::Sum:
    break;
  }
  throw std::logic_error("sum is not an eltwise post-op");
}
} // namespace

struct InnerProduct::Impl {
  int64_t m, k, n;
  bool hasSum = false;
  dnnl::inner_product_forward::primitive_desc pd;
  dnnl::inner_product_forward prim;
  dnnl::memory src, weights, bias, dst;
  /// Execution arguments, bound once: run() only swaps the data handles of
  /// the src and dst memories they refer to.
  std::unordered_map<int, dnnl::memory> args;
};

InnerProduct::InnerProduct(int64_t m, int64_t k, int64_t n,
                           const float *weightData, const float *biasData,
                           std::vector<PostOp> postOps)
    : impl(std::make_unique<Impl>()) {
  Context &ctx = context();
  impl->m = m;
  impl->k = k;
  impl->n = n;
  dnnl::memory::desc srcMd({m, k}, dt::f32, tag::ab);
  dnnl::memory::desc anyWeights({n, k}, dt::f32, tag::any);
  dnnl::memory::desc biasMd({n}, dt::f32, tag::a);
  dnnl::memory::desc dstMd({m, n}, dt::f32, tag::ab);
  dnnl::post_ops ops;
  for (PostOp p : postOps) {
    if (p == PostOp::Sum) {
      ops.append_sum(1.0f);
      impl->hasSum = true;
    } else {
      ops.append_eltwise(1.0f, algorithmOf(p), 0.0f, 0.0f);
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  auto desc = biasData
                  ? dnnl::inner_product_forward::desc(
                        dnnl::prop_kind::forward_inference, srcMd, anyWeights,
                        biasMd, dstMd)
                  : dnnl::inner_product_forward::desc(
                        dnnl::prop_kind::forward_inference, srcMd, anyWeights,
                        dstMd);
  impl->pd = dnnl::inner_product_forward::primitive_desc(desc, attr, ctx.engine);
  impl->prim = dnnl::inner_product_forward(impl->pd);

  // Pack the weights once into the layout the chosen implementation wants.
  dnnl::memory plain({{n, k}, dt::f32, tag::ab}, ctx.engine,
                     const_cast<float *>(weightData));
  impl->weights = dnnl::memory(impl->pd.weights_desc(), ctx.engine);
  dnnl::reorder(plain, impl->weights).execute(ctx.stream, plain, impl->weights);
  if (biasData) {
    impl->bias = dnnl::memory(biasMd, ctx.engine);
    std::memcpy(impl->bias.get_data_handle(), biasData, n * sizeof(float));
  }
  ctx.stream.wait();
  // Activation memories are views; run() only swaps their pointers.
  impl->src = dnnl::memory(srcMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->dst = dnnl::memory(dstMd, ctx.engine, DNNL_MEMORY_NONE);
  impl->args = {{DNNL_ARG_SRC, impl->src},
                {DNNL_ARG_WEIGHTS, impl->weights},
                {DNNL_ARG_DST, impl->dst}};
  if (biasData)
    impl->args[DNNL_ARG_BIAS] = impl->bias;
}

InnerProduct::~InnerProduct() = default;

void InnerProduct::run(const float *x, float *y, const float *sum) {
  Context &ctx = context();
  if (impl->hasSum && sum != y)
    std::memcpy(y, sum, impl->m * impl->n * sizeof(float));
  impl->src.set_data_handle(const_cast<float *>(x));
  impl->dst.set_data_handle(y);
  impl->prim.execute(ctx.stream, impl->args);
  ctx.stream.wait();
}

std::string InnerProduct::implementation() const {
  return impl->pd.impl_info_str();
}
