//===- OpContext.h - what a kernel factory sees of an op        -*- C++ -*-===//
//
// Part of opscope's runtime (internal). A kernel factory reads its op's
// buffers and attributes through OpContext; every error it raises names the
// op, so a model the runtime cannot execute is rejected when the session is
// created, never in the middle of a run.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_MODEL_OPCONTEXT_H
#define OPSCOPE_RUNTIME_LIB_MODEL_OPCONTEXT_H

#include "Plan.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/model.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opscope::rt {

using json = nlohmann::json;

struct OpContext {
  const OpDesc &op;
  const Buffers &buf;

  [[noreturn]] void fail(const std::string &msg) const {
    throw Error("op #" + std::to_string(op.index) + " '" + op.name + "' (" +
                kindName(op.kind) + "): " + msg);
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
  /// Attribute `name` of the op, or null when the plan lacks it. The name
  /// must be one attrs.def lists for the op's kind (the ABI contract).
  const json *attr(const char *name) const {
    if (!runtimeReadsAttr(op.kind, name))
      fail(std::string("reads attribute '") + name +
           "', which runtime/include/opscope/runtime/attrs.def does not "
           "list for this kind (an internal error)");
    auto it = op.attrs.find(name);
    return it == op.attrs.end() ? nullptr : &*it;
  }
  bool hasAttr(const char *name) const { return attr(name) != nullptr; }
  int64_t intAttr(const char *name, int64_t def = 0) const {
    const json *it = attr(name);
    return it ? it->get<int64_t>() : def;
  }
  double floatAttr(const char *name, double def) const {
    const json *it = attr(name);
    if (!it || it->is_null())
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
    const json *it = attr(name);
    return it && it->get<bool>();
  }
  std::string str(const char *name) const {
    const json *it = attr(name);
    if (!it)
      fail(std::string("missing attribute '") + name + "'");
    return it->get<std::string>();
  }
  Shape ints(const char *name) const {
    Shape v;
    if (const json *it = attr(name))
      for (const json &x : *it)
        v.push_back(x.get<int64_t>());
    return v;
  }
  std::vector<std::string> strings(const char *name) const {
    std::vector<std::string> v;
    if (const json *it = attr(name))
      for (const json &x : *it)
        v.push_back(x.get<std::string>());
    return v;
  }
  std::vector<float> floats(const char *name) const {
    std::vector<float> v;
    if (const json *it = attr(name))
      for (const json &x : *it)
        v.push_back(static_cast<float>(number(x)));
    return v;
  }
  /// An int8 op's input quantization (input_scale, input_zero_point), as
  /// osc-precision calibrated it.
  std::pair<float, int32_t> inputQuantization() const {
    return quantization("input");
  }
  /// The u8 quantization of an int8 op's output inside an int8 chain
  /// (output_scale, output_zero_point: osc-int8-chains).
  std::pair<float, int32_t> outputQuantization() const {
    return quantization("output");
  }
  /// `which`_scale (positive) and `which`_zero_point (u8).
  std::pair<float, int32_t> quantization(const std::string &which) const {
    double scale = floatAttr((which + "_scale").c_str(), -1);
    int64_t zero = intAttr((which + "_zero_point").c_str(), -1);
    if (!(scale > 0) || !std::isfinite(scale) || zero < 0 || zero > 255)
      fail("an int8 op needs a positive " + which + "_scale and an " + which +
           "_zero_point in [0, 255]");
    return {static_cast<float>(scale), static_cast<int32_t>(zero)};
  }
  /// Whether an int8 weight op's input and output are u8 (an int8 chain's
  /// hand-overs, osc-int8-chains); each that is not must be f32.
  std::pair<bool, bool> u8Activations(const BufferRef &weight) const {
    const BufferRef &x = in(0), &y = out();
    bool u8In = x.dtype == DType::U8, u8Out = y.dtype == DType::U8;
    if ((u8In || u8Out) && weight.dtype != DType::I8)
      fail("u8 activations need an i8 weight");
    if (!u8In)
      requireF32(x, "input");
    if (!u8Out)
      requireF32(y, "output");
    return {u8In, u8Out};
  }
  /// Whether `r` is bf16 (a bf16 chain's hand-over, osc-bf16-chains);
  /// anything else must be f32.
  bool bf16OrF32(const BufferRef &r, const char *what) const {
    if (r.dtype == DType::BF16)
      return true;
    if (r.dtype != DType::F32)
      fail(std::string(what) + " has element type " + dtypeName(r.dtype) +
           "; the runtime takes f32 or bf16 here");
    return false;
  }
  /// An enumeration attribute, by its name in the kinds table.
  template <typename E> E enumAttr(const char *name) const {
    std::string s = str(name);
    auto e = parseKind<E>(s);
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
  /// `opscope:<kind>:<tier>` for opscope's own kernels: the kernel family
  /// compile-time reports show (kinds.def), with the kernel table's tier
  /// (`reference` for kernels that have no vector forms).
  std::string ownKernel(bool dispatched = true) const {
    return std::string(kernelFamily(op.kind)) + ":" +
           (dispatched ? kernelTierName() : "reference");
  }
  /// Data movement by whole contiguous rows (memcpy, or fixed-size moves
  /// of short rows): bound by memory, not by a tier's vector width, and not
  /// a scalar reference loop.
  std::string copyKernel() const {
    return std::string(kernelFamily(op.kind)) + ":copy";
  }
  std::vector<PostOp> postOps() const {
    std::vector<PostOp> v;
    const json *it = attr("post_ops");
    if (!it)
      return v;
    for (const json &p : *it) {
      std::string s = p.get<std::string>();
      auto post = parsePostOp(s);
      if (!post)
        fail("unknown post-op '" + s + "' (a known name, with its "
             "parameters in parentheses where it takes them)");
      v.push_back(*post);
    }
    return v;
  }
};


/// Runs a oneDNN constructor, turning its exceptions into op errors.
template <typename F> auto dnnlCreate(const OpContext &c, F &&f) {
  try {
    return f();
  } catch (const std::exception &e) {
    c.fail(std::string("oneDNN cannot build this primitive: ") + e.what());
  }
}

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_MODEL_OPCONTEXT_H
