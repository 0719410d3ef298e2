//===- OpKernels.cpp - one bound kernel per planned op --------------------===//
//
// Part of opscope's runtime. Turns each op of the plan into a closure over
// its buffers: oneDNN primitives (weights packed) and opscope kernels are
// created here, once per session; the closure only calls them. Anything the
// runtime cannot execute is rejected here, naming the op, before any run.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <memory>
#include <optional>

using namespace opscope;
using namespace opscope::rt;
using json = nlohmann::json;

namespace {
struct OpContext {
  const OpDesc &op;
  const Buffers &buf;

  [[noreturn]] void fail(const std::string &msg) const {
    throw Error("op #" + std::to_string(op.index) + " '" + op.name + "' (" +
                op.kind + "): " + msg);
  }
  const BufferRef &in(size_t i) const {
    if (i >= op.operands.size())
      fail("missing operand " + std::to_string(i));
    return op.operands[i];
  }
  const BufferRef &out(size_t i = 0) const {
    if (i >= op.results.size())
      fail("missing result " + std::to_string(i));
    return op.results[i];
  }
  bool has(size_t i) const {
    return i < op.operands.size() && op.operands[i].kind != BufferRef::None;
  }
  template <typename T = void> T *ptr(const BufferRef &r) const {
    return static_cast<T *>(buf.ptr(r));
  }
  const float *constF32(const BufferRef &r) const {
    return r.kind == BufferRef::Weight ? ptr<const float>(r) : nullptr;
  }
  int64_t intAttr(const char *name, int64_t def = 0) const {
    auto it = op.attrs.find(name);
    return it == op.attrs.end() ? def : it->get<int64_t>();
  }
  double floatAttr(const char *name, double def) const {
    auto it = op.attrs.find(name);
    if (it == op.attrs.end() || it->is_null())
      return def;
    return number(*it);
  }
  /// A number, or "inf"/"-inf"/"nan" (JSON has no literals for them).
  static double number(const json &v) {
    if (!v.is_string())
      return v.get<double>();
    const std::string &s = v.get_ref<const std::string &>();
    if (s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf")
      return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  bool flag(const char *name) const {
    auto it = op.attrs.find(name);
    return it != op.attrs.end() && it->get<bool>();
  }
  std::string str(const char *name) const {
    auto it = op.attrs.find(name);
    if (it == op.attrs.end())
      fail(std::string("missing attribute '") + name + "'");
    return it->get<std::string>();
  }
  Shape ints(const char *name) const {
    Shape v;
    auto it = op.attrs.find(name);
    if (it != op.attrs.end())
      for (const json &x : *it)
        v.push_back(x.get<int64_t>());
    return v;
  }
  template <typename E>
  E parsed(const char *name, std::optional<E> (*parse)(const std::string &)) const {
    std::string s = str(name);
    auto e = parse(s);
    if (!e)
      fail(std::string("unknown ") + name + " '" + s + "'");
    return *e;
  }
  void requireF32(const BufferRef &r, const char *what) const {
    if (r.dtype != DType::F32)
      fail(std::string(what) + " has element type " + dtypeName(r.dtype) +
           "; the runtime computes this op in f32 only");
  }
  void requireComputable(const BufferRef &r) const {
    if (!dtypeComputable(r.dtype))
      fail(std::string("element type ") + dtypeName(r.dtype) +
           " is not supported by the runtime yet");
  }
  std::vector<PostOp> postOps() const {
    std::vector<PostOp> v;
    auto it = op.attrs.find("post_ops");
    if (it == op.attrs.end())
      return v;
    for (const json &p : *it) {
      std::string s = p.get<std::string>();
      auto post = parsePostOp(s);
      if (!post)
        fail("unknown post-op '" + s + "'");
      v.push_back(*post);
    }
    return v;
  }
};

/// `opscope:<kind>:<isa>` for opscope's own kernels (the compile-time
/// report shows `opscope:<kind>`; the runtime adds the ISA it chose).
std::string ownKernelName(const std::string &kind, bool dispatched = true) {
  return "opscope:" + kind + ":" +
         (dispatched && kernelIsa() == Isa::Avx512 ? "avx512" : "portable");
}

/// Runs a oneDNN constructor, turning its exceptions into op errors.
template <typename F> auto dnnlCreate(const OpContext &c, F &&f) {
  try {
    return f();
  } catch (const std::exception &e) {
    c.fail(std::string("oneDNN cannot build this primitive: ") + e.what());
  }
}

BoundKernel innerProduct(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  c.requireF32(x, "input");
  if (w.kind != BufferRef::Weight)
    c.fail("inner_product needs a constant weight");
  int64_t n = w.shape[0], k = w.shape[1], m = x.elements() / k;
  const float *bias = c.has(2) ? c.constF32(c.in(2)) : nullptr;
  if (c.has(2) && !bias)
    c.fail("inner_product needs a constant bias");
  auto ip = std::shared_ptr<InnerProduct>(dnnlCreate(c, [&] {
    return new InnerProduct(m, k, n, c.constF32(w), bias, c.postOps());
  }));
  kernel = "onednn:" + ip->implementation();
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(y);
  const float *sum = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  return [=] {
    ip->run(xp, yp, sum);
    return std::string();
  };
}

BoundKernel matmul(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  c.requireF32(a, "lhs");
  c.requireF32(b, "rhs");
  auto mm = std::shared_ptr<MatMul>(dnnlCreate(c, [&] {
    return new MatMul(a.shape, b.shape, y.shape, c.flag("transpose_a"),
                      c.flag("transpose_b"),
                      static_cast<float>(c.floatAttr("scale", 1.0)),
                      c.constF32(b));
  }));
  kernel = "onednn:" + mm->implementation();
  const float *ap = c.ptr<const float>(a), *bp = c.ptr<const float>(b);
  float *yp = c.ptr<float>(y);
  return [=] {
    mm->run(ap, bp, yp);
    return std::string();
  };
}

BoundKernel conv(const OpContext &c, std::string &kernel, bool transposed) {
  const BufferRef &x = c.in(0), &w = c.in(1), &y = c.out();
  c.requireF32(x, "input");
  ConvParams p;
  p.input = x.shape;
  p.weight = w.shape;
  p.output = y.shape;
  p.strides = c.ints("strides");
  p.pads = c.ints("pads");
  p.dilations = c.ints("dilations");
  p.groups = c.intAttr("groups", 1);
  p.transposed = transposed;
  p.postOps = c.postOps();
  bool hasBias = c.has(2);
  const float *bias = hasBias ? c.constF32(c.in(2)) : nullptr;
  auto cv = std::shared_ptr<Conv>(dnnlCreate(
      c, [&] { return new Conv(p, c.constF32(w), bias, hasBias); }));
  kernel = "onednn:" + cv->implementation();
  const float *xp = c.ptr<const float>(x), *wp = c.ptr<const float>(w);
  const float *bp = hasBias ? c.ptr<const float>(c.in(2)) : nullptr;
  const float *sum =
      !transposed && c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  float *yp = c.ptr<float>(y);
  return [=] {
    cv->run(xp, wp, bp, yp, sum);
    return std::string();
  };
}

BoundKernel pool(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  PoolParams p;
  p.input = x.shape;
  p.output = y.shape;
  p.kernel = c.ints("kernel");
  p.strides = c.ints("strides");
  p.pads = c.ints("pads");
  p.dilations = c.ints("dilations");
  p.isMax = c.str("kind") == "max";
  p.countIncludePad = c.flag("count_include_pad");
  auto pl = std::shared_ptr<Pool>(dnnlCreate(c, [&] { return new Pool(p); }));
  kernel = "onednn:" + pl->implementation();
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(y);
  return [=] {
    pl->run(xp, yp);
    return std::string();
  };
}

BoundKernel layerNorm(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  int64_t axis = c.intAttr("axis");
  int64_t cols = 1;
  for (size_t i = axis; i < x.shape.size(); ++i)
    cols *= x.shape[i];
  int64_t rows = x.elements() / std::max<int64_t>(cols, 1);
  float eps = static_cast<float>(c.floatAttr("epsilon", 1e-5));
  const float *xp = c.ptr<const float>(x);
  const float *g = c.ptr<const float>(c.in(1));
  const float *b = c.has(2) ? c.ptr<const float>(c.in(2)) : nullptr;
  float *yp = c.ptr<float>(y);
  kernel = ownKernelName("layer_norm");
  return [=] {
    rt::layerNorm(xp, g, b, yp, rows, cols, eps);
    return std::string();
  };
}

BoundKernel softmax(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireF32(x, "input");
  int64_t axis = c.intAttr("axis");
  bool log = c.flag("log");
  int64_t rank = static_cast<int64_t>(x.shape.size());
  const float *xp = c.ptr<const float>(x);
  float *yp = c.ptr<float>(y);
  kernel = ownKernelName("softmax");
  Shape shape = x.shape;
  if (!c.has(1)) {
    if (axis == rank - 1) {
      int64_t cols = shape.back(), rows = x.elements() / std::max<int64_t>(cols, 1);
      return [=] {
        rt::softmax(xp, nullptr, 1, yp, rows, cols, log);
        return std::string();
      };
    }
    kernel = ownKernelName("softmax", false);
    return [=] {
      softmaxAxis(xp, shape, axis, log, yp);
      return std::string();
    };
  }
  const BufferRef &mask = c.in(1);
  c.requireF32(mask, "mask");
  const float *mp = c.ptr<const float>(mask);
  // A mask that varies only over leading dims and the last one maps onto
  // the kernel's row groups (B x 1 x 1 x S over B x H x S x S).
  Shape m(rank - mask.shape.size(), 1);
  m.insert(m.end(), mask.shape.begin(), mask.shape.end());
  int64_t k = 0;
  while (k < rank - 1 && m[k] == shape[k])
    ++k;
  bool grouped = axis == rank - 1 && m.back() == shape.back();
  for (int64_t i = k; i < rank - 1 && grouped; ++i)
    grouped = m[i] == 1;
  if (grouped) {
    int64_t group = 1;
    for (int64_t i = k; i < rank - 1; ++i)
      group *= shape[i];
    int64_t cols = shape.back(), rows = x.elements() / std::max<int64_t>(cols, 1);
    return [=] {
      rt::softmax(xp, mp, group, yp, rows, cols, log);
      return std::string();
    };
  }
  // General mask: add it (broadcast) into the output, then normalise there.
  StridedWalk addMask = broadcastWalk(shape, {shape, mask.shape});
  kernel = ownKernelName("softmax", axis == rank - 1);
  return [=] {
    binary(BinaryKind::Add, DType::F32, xp, mp, yp, addMask);
    if (axis == rank - 1) {
      int64_t cols = shape.back();
      rt::softmax(yp, nullptr, 1, yp, numElements(shape) / std::max<int64_t>(cols, 1), cols, log);
    } else {
      softmaxAxis(yp, shape, axis, log, yp);
    }
    return std::string();
  };
}

BoundKernel unaryOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireComputable(x);
  UnaryKind k = c.parsed<UnaryKind>("kind", parseUnaryKind);
  float alpha = 0, beta = 0;
  switch (k) {
  case UnaryKind::LeakyRelu:
    alpha = static_cast<float>(c.floatAttr("alpha", 0.01));
    break;
  case UnaryKind::Elu:
    alpha = static_cast<float>(c.floatAttr("alpha", 1.0));
    break;
  case UnaryKind::HardSigmoid:
    alpha = static_cast<float>(c.floatAttr("alpha", 0.2));
    beta = static_cast<float>(c.floatAttr("beta", 0.5));
    break;
  case UnaryKind::Clip:
    alpha = static_cast<float>(
        c.floatAttr("alpha", -std::numeric_limits<float>::infinity()));
    beta = static_cast<float>(
        c.floatAttr("beta", std::numeric_limits<float>::infinity()));
    break;
  default:
    break;
  }
  DType t = x.dtype;
  int64_t n = x.elements();
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  kernel = ownKernelName("unary");
  return [=] {
    unary(k, t, xp, yp, n, alpha, beta);
    return std::string();
  };
}

BoundKernel binaryOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  c.requireComputable(a);
  BinaryKind k = c.parsed<BinaryKind>("kind", parseBinaryKind);
  DType t = a.dtype;
  StridedWalk w = broadcastWalk(y.shape, {a.shape, b.shape});
  const void *ap = c.ptr(a), *bp = c.ptr(b);
  void *yp = c.ptr(y);
  kernel = ownKernelName("binary");
  return [=] {
    binary(k, t, ap, bp, yp, w);
    return std::string();
  };
}

BoundKernel compareOp(const OpContext &c, std::string &kernel) {
  const BufferRef &a = c.in(0), &b = c.in(1), &y = c.out();
  c.requireComputable(a);
  CompareKind k = c.parsed<CompareKind>("kind", parseCompareKind);
  DType t = a.dtype;
  StridedWalk w = broadcastWalk(y.shape, {a.shape, b.shape});
  const void *ap = c.ptr(a), *bp = c.ptr(b);
  auto *yp = c.ptr<uint8_t>(y);
  kernel = ownKernelName("compare", false);
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
  kernel = ownKernelName("where", false);
  return [=] {
    where(cp, ap, bp, yp, w, es);
    return std::string();
  };
}

BoundKernel reduceOp(const OpContext &c, std::string &kernel) {
  const BufferRef &x = c.in(0), &y = c.out();
  c.requireComputable(x);
  ReduceKind k = c.parsed<ReduceKind>("kind", parseReduceKind);
  Shape axes = c.ints("axes");
  std::sort(axes.begin(), axes.end());
  DType t = x.dtype;
  Shape xs = x.shape;
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  kernel = ownKernelName("reduce");
  return [=] {
    reduce(k, t, xp, xs, axes, yp);
    return std::string();
  };
}

BoundKernel dataMovement(const OpContext &c, std::string &kernel) {
  const std::string &kind = c.op.kind;
  const BufferRef &x = c.in(0), &y = c.out();
  const void *xp = c.ptr(x);
  void *yp = c.ptr(y);
  Shape xs = x.shape, ys = y.shape;
  size_t es = dtypeSize(x.dtype);
  kernel = ownKernelName(kind, false);
  if (kind == "reshape") {
    // Planned as an alias; only copies when the planner could not alias.
    size_t bytes = y.bytes();
    return [=] {
      if (xp != yp)
        std::memmove(yp, xp, bytes);
      return std::string();
    };
  }
  // Strided copies: the walk is planned once, here.
  std::optional<StridedWalk> walk;
  if (kind == "transpose")
    walk = transposeWalk(xs, c.ints("perm"));
  else if (kind == "broadcast_to")
    walk = broadcastWalk(ys, {xs});
  else if (kind == "slice")
    walk = sliceWalk(xs, c.ints("starts"), ys, c.ints("steps"));
  if (walk)
    return [=, w = *walk] {
      stridedCopy(xp, yp, w, es);
      return std::string();
    };
  if (kind == "gather") {
    const BufferRef &idx = c.in(1);
    int64_t axis = c.intAttr("axis");
    const void *ip = c.ptr(idx);
    DType it = idx.dtype;
    int64_t ni = idx.elements();
    std::string where = "op '" + c.op.name + "' (gather): index out of range";
    return [=] {
      if (!gather(xp, xs, ip, it, ni, axis, yp, es))
        return where;
      return std::string();
    };
  }
  if (kind == "concat") {
    std::vector<const void *> ins;
    std::vector<Shape> shapes;
    for (const BufferRef &r : c.op.operands) {
      ins.push_back(c.ptr(r));
      shapes.push_back(r.shape);
    }
    int64_t axis = c.intAttr("axis");
    return [=] {
      concat(ins, shapes, axis, yp, es);
      return std::string();
    };
  }
  if (kind == "pad") {
    c.requireComputable(x);
    PadMode mode = c.parsed<PadMode>("mode", parsePadMode);
    Shape pads = c.ints("pads");
    double value = c.floatAttr("value", 0.0);
    DType t = x.dtype;
    return [=] {
      pad(mode, t, xp, xs, pads, value, yp, ys);
      return std::string();
    };
  }
  if (kind == "cast") {
    c.requireComputable(x);
    c.requireComputable(y);
    DType from = x.dtype, to = y.dtype;
    int64_t n = x.elements();
    return [=] {
      cast(from, xp, to, yp, n);
      return std::string();
    };
  }
  c.fail("no kernel for op kind '" + kind + "'");
}
} // namespace

BoundKernel opscope::rt::makeKernel(const OpDesc &op, const Buffers &buffers,
                                    std::string &kernelName) {
  OpContext c{op, buffers};
  for (const BufferRef &r : op.results)
    if (r.kind != BufferRef::Arena)
      c.fail("result is not planned in the arena");
  const std::string &k = op.kind;
  if (k == "inner_product")
    return innerProduct(c, kernelName);
  if (k == "matmul")
    return matmul(c, kernelName);
  if (k == "conv")
    return conv(c, kernelName, false);
  if (k == "conv_transpose")
    return conv(c, kernelName, true);
  if (k == "pool")
    return pool(c, kernelName);
  if (k == "layer_norm")
    return layerNorm(c, kernelName);
  if (k == "softmax")
    return softmax(c, kernelName);
  if (k == "unary")
    return unaryOp(c, kernelName);
  if (k == "binary")
    return binaryOp(c, kernelName);
  if (k == "compare")
    return compareOp(c, kernelName);
  if (k == "where")
    return whereOp(c, kernelName);
  if (k == "reduce")
    return reduceOp(c, kernelName);
  if (k == "gelu") {
    c.requireF32(c.in(0), "input");
    bool tanhForm = c.str("approximation") == "tanh";
    const float *xp = c.ptr<const float>(c.in(0));
    float *yp = c.ptr<float>(c.out());
    int64_t n = c.in(0).elements();
    kernelName = ownKernelName("gelu");
    return [=] {
      gelu(xp, yp, n, tanhForm);
      return std::string();
    };
  }
  if (k == "batch_norm") {
    const BufferRef &x = c.in(0);
    c.requireF32(x, "input");
    Shape s = x.shape;
    const float *xp = c.ptr<const float>(x), *g = c.ptr<const float>(c.in(1)),
                *b = c.ptr<const float>(c.in(2)), *m = c.ptr<const float>(c.in(3)),
                *v = c.ptr<const float>(c.in(4));
    float eps = static_cast<float>(c.floatAttr("epsilon", 1e-5));
    float *yp = c.ptr<float>(c.out());
    kernelName = ownKernelName("batch_norm", false);
    return [=] {
      batchNorm(xp, s, g, b, m, v, eps, yp);
      return std::string();
    };
  }
  if (k == "global_pool") {
    const BufferRef &x = c.in(0);
    c.requireF32(x, "input");
    bool isMax = c.str("kind") == "max";
    Shape s = x.shape;
    const float *xp = c.ptr<const float>(x);
    float *yp = c.ptr<float>(c.out());
    kernelName = ownKernelName("global_pool", false);
    return [=] {
      globalPool(isMax, xp, s, yp);
      return std::string();
    };
  }
  if (k == "resize") {
    const BufferRef &x = c.in(0);
    c.requireF32(x, "input");
    ResizeParams p;
    p.mode = c.parsed<ResizeMode>("mode", parseResizeMode);
    p.transform = c.parsed<CoordinateTransform>(
        "coordinate_transformation_mode", parseCoordinateTransform);
    p.nearest = c.parsed<NearestMode>("nearest_mode", parseNearestMode);
    p.cubicA = static_cast<float>(c.floatAttr("cubic_coeff_a", -0.75));
    p.excludeOutside = c.flag("exclude_outside");
    if (auto it = op.attrs.find("scales"); it != op.attrs.end())
      for (const json &s : *it)
        p.scales.push_back(static_cast<float>(OpContext::number(s)));
    Shape xs = x.shape, ys = c.out().shape;
    const float *xp = c.ptr<const float>(x);
    float *yp = c.ptr<float>(c.out());
    kernelName = ownKernelName("resize", false);
    return [=] {
      resize(p, xp, xs, yp, ys);
      return std::string();
    };
  }
  return dataMovement(c, kernelName);
}
