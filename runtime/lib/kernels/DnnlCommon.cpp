//===- DnnlCommon.cpp - what the oneDNN-backed kernels share --------------===//
//
// Part of opscope's runtime. The process's oneDNN context (with the ISA
// cap), post-op attributes, shape helpers, packed constant weights and the
// per-thread conversion scratch that Dense.cpp (inner products),
// DenseMatMul.cpp, DenseConv.cpp and DnnlRecurrent.cpp use (DnnlCommon.h).
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

#include <algorithm>

#include "AlignedBuffer.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/packed_weights.h"

#include <cstdlib>
#include <iterator>
#include <new>
#include <omp.h>
#include <stdexcept>
#include <string>

using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

namespace {
/// OPSCOPE_MAX_ISA caps oneDNN too (DNNL_MAX_CPU_ISA, when set, oneDNN
/// reads itself); it must be set before the first primitive.
bool applyIsaCap() {
  if (std::getenv("DNNL_MAX_CPU_ISA") || maxIsa() == IsaLevel::All)
    return true;
  static const dnnl::cpu_isa isas[] = {dnnl::cpu_isa::sse41,
                                       dnnl::cpu_isa::avx2,
                                       dnnl::cpu_isa::avx2_vnni,
                                       dnnl::cpu_isa::avx512_core,
                                       dnnl::cpu_isa::avx512_core_vnni,
                                       dnnl::cpu_isa::avx512_core_bf16,
                                       dnnl::cpu_isa::avx512_core_amx};
  static_assert(std::size(isas) == static_cast<size_t>(IsaLevel::All),
                "oneDNN's cap for every level but All");
  try {
    dnnl::set_max_cpu_isa(isas[static_cast<int>(maxIsa())]);
  } catch (const std::exception &) {
    // Already fixed by an earlier primitive in this process: nothing to do.
  }
  return true;
}

/// Appends an activation post-op as oneDNN's eltwise algorithms (one, or
/// two for hard_sigmoid: oneDNN 2.6 has no such algorithm).
void appendEltwise(dnnl::post_ops &ops, PostOp p) {
  using dnnl::algorithm;
  auto add = [&](algorithm a, float alpha = 0.0f, float beta = 0.0f) {
    ops.append_eltwise(1.0f, a, alpha, beta);
  };
  switch (p.kind) {
  case PostOpKind::Relu:
    return add(algorithm::eltwise_relu);
  case PostOpKind::GeluErf:
    return add(algorithm::eltwise_gelu_erf);
  case PostOpKind::GeluTanh:
    return add(algorithm::eltwise_gelu_tanh);
  case PostOpKind::Sigmoid:
    return add(algorithm::eltwise_logistic);
  case PostOpKind::Tanh:
    return add(algorithm::eltwise_tanh);
  case PostOpKind::HardSwish:
    return add(algorithm::eltwise_hardswish);
  case PostOpKind::Relu6:
    return add(algorithm::eltwise_clip, 0.0f, 6.0f);
  case PostOpKind::Swish:
    // x * sigmoid(alpha x), alpha 1: SiLU.
    return add(algorithm::eltwise_swish, 1.0f);
  case PostOpKind::LeakyRelu:
    // eltwise_relu's alpha is the slope below zero.
    return add(algorithm::eltwise_relu, p.alpha);
  case PostOpKind::Elu:
    return add(algorithm::eltwise_elu, p.alpha);
  case PostOpKind::HardSigmoid:
    // clip(alpha x + beta, 0, 1).
    add(algorithm::eltwise_linear, p.alpha, p.beta);
    return add(algorithm::eltwise_clip, 0.0f, 1.0f);
  case PostOpKind::Clip:
    return add(algorithm::eltwise_clip, p.alpha, p.beta);
  case PostOpKind::Mish:
    return add(algorithm::eltwise_mish);
  case PostOpKind::Sum:
    break;
  }
  throw std::logic_error("sum is not an eltwise post-op");
}

} // namespace

int dnnlx::dnnlPostOpIndex(const std::vector<PostOp> &postOps, size_t i) {
  dnnl::post_ops ops;
  for (size_t j = 0; j < i && j < postOps.size(); ++j) {
    if (postOps[j] == PostOp::Sum)
      ops.append_sum(1.0f);
    else
      appendEltwise(ops, postOps[j]);
  }
  return ops.len();
}

Context &dnnlx::context() {
  static const bool capped = applyIsaCap();
  (void)capped;
  static Context ctx;
  return ctx;
}

void dnnlx::checkU8Output(const U8Output &u8Out,
                          const std::vector<PostOp> &postOps) {
  if (!u8Out)
    return;
  auto [scale, zero] = *u8Out;
  if (!(scale > 0) || zero < 0 || zero > 255 ||
      std::find(postOps.begin(), postOps.end(), PostOp::Sum) != postOps.end())
    throw std::invalid_argument("a u8 output needs a positive scale, a "
                                "zero point in [0, 255] and no sum "
                                "post-op");
}

dnnl::primitive_attr dnnlx::attrWithPostOps(const std::vector<PostOp> &postOps,
                                     bool &hasSum, U8Output u8Out,
                                     const dnnl::memory::desc *sumAsAdd) {
  dnnl::post_ops ops;
  hasSum = false;
  for (PostOp p : postOps) {
    if (p == PostOp::Sum) {
      if (sumAsAdd)
        ops.append_binary(dnnl::algorithm::binary_add, *sumAsAdd);
      else
        ops.append_sum(1.0f);
      hasSum = true;
    } else {
      appendEltwise(ops, p);
    }
  }
  checkU8Output(u8Out, postOps);
  if (u8Out) {
    auto [scale, zero] = *u8Out;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f / scale,
                       static_cast<float>(zero));
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return attr;
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

dnnl::memory::dims dnnlx::toDims(const Dims &d) {
  return dnnl::memory::dims(d.begin(), d.end());
}

tag dnnlx::channelsLastTag(size_t rank) {
  switch (rank) {
  case 3:
    return tag::acb;
  case 4:
    return tag::acdb;
  case 5:
    return tag::acdeb;
  default:
    throw std::invalid_argument("no channels-last layout for rank " +
                                std::to_string(rank));
  }
}

tag dnnlx::plainTag(size_t rank) {
  switch (rank) {
  case 1:
    return tag::a;
  case 2:
    return tag::ab;
  case 3:
    return tag::abc;
  case 4:
    return tag::abcd;
  case 5:
    return tag::abcde;
  default:
    return tag::abcdef;
  }
}

int64_t dnnlx::product(const Dims &d) {
  int64_t n = 1;
  for (int64_t v : d)
    n *= v;
  return n;
}

namespace {
/// What identifies a memory layout in the packed-weight cache's key: every
/// field of a blocked descriptor that says where an element lives, and the
/// int8 compensation flags; "" for layouts that are not blocked (never
/// cached).
std::string layoutKey(const dnnl::memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked)
    return "";
  std::string key;
  auto add = [&](int64_t v) { key += std::to_string(v) + ","; };
  add(d.ndims);
  add(d.data_type);
  for (int i = 0; i < d.ndims; ++i) {
    add(d.dims[i]);
    add(d.padded_dims[i]);
    add(d.padded_offsets[i]);
    add(d.format_desc.blocking.strides[i]);
  }
  add(d.offset0);
  add(d.format_desc.blocking.inner_nblks);
  for (int i = 0; i < d.format_desc.blocking.inner_nblks; ++i) {
    add(d.format_desc.blocking.inner_blks[i]);
    add(d.format_desc.blocking.inner_idxs[i]);
  }
  add(static_cast<int64_t>(d.extra.flags));
  add(d.extra.compensation_mask);
  add(d.extra.asymm_compensation_mask);
  key += std::to_string(d.extra.scale_adjust);
  return key;
}

dnnl::memory reordered(const dnnl::memory::desc &plainMd,
                       const dnnl::memory::desc &md, const void *data) {
  Context &ctx = context();
  dnnl::memory src(plainMd, ctx.engine, const_cast<void *>(data));
  dnnl::memory dst(md, ctx.engine);
  dnnl::reorder(src, dst).execute(ctx.stream, src, dst);
  ctx.stream.wait();
  return dst;
}
} // namespace

void *dnnlx::threadScratch(int slot, size_t bytes) {
  thread_local AlignedBuffer<unsigned char> slots[5];
  slots[slot].resize(bytes);
  return slots[slot].data;
}

dnnl::memory dnnlx::packed(const dnnl::memory::desc &plainMd,
                           const dnnl::memory::desc &md, const void *data) {
  PackedWeightCache *cache = currentPackedWeights();
  if (!cache || !cache->covers(data))
    return reordered(plainMd, md, data);
  std::string from = layoutKey(plainMd), to = layoutKey(md);
  if (from.empty() || to.empty())
    return reordered(plainMd, md, data);
  auto entry = cache->get(data, "dnnl:" + from + "->" + to, [&] {
    return std::static_pointer_cast<void>(
        std::make_shared<dnnl::memory>(reordered(plainMd, md, data)));
  });
  // A copy of the handle: the buffer is shared, and stays alive while any
  // kernel holds it.
  return *std::static_pointer_cast<dnnl::memory>(entry);
}

std::string opscope::rt::denseLibraryVersion() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
}

void opscope::rt::setDenseThreads(int threads) {
  if (threads > 0)
    omp_set_num_threads(threads);
}
