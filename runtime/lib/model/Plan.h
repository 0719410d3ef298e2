//===- Plan.h - the model plan embedded in a compiled model -----*- C++ -*-===//
//
// Part of opscope's runtime (internal). The parsed form of the JSON plan a
// compiled model carries (docs/runtime.md, "The model plan").
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_MODEL_PLAN_H
#define OPSCOPE_RUNTIME_LIB_MODEL_PLAN_H

#include "opscope/runtime/generic.h"
#include "opscope/runtime/model.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace opscope::rt {

/// Where a tensor lives: the session's arena, the mmapped weights, or
/// nowhere (an absent optional operand).
struct BufferRef {
  enum Kind { None, Arena, Weight } kind = None;
  int64_t offset = 0;
  DType dtype = DType::F32;
  Shape shape;
  int64_t elements() const { return numElements(shape); }
  size_t bytes() const { return elements() * dtypeSize(dtype); }
};

struct OpDesc {
  int64_t index = 0;
  OpKind kind = OpKind::Unary;
  std::string name;
  std::vector<BufferRef> operands, results;
  nlohmann::json attrs;
};

/// Resolves buffers of one session. `overrides` (may be null) maps weight
/// offsets to a session's private copies (Session::overrideWeight).
struct Buffers {
  uint8_t *arena = nullptr;
  const uint8_t *weights = nullptr;
  const std::map<int64_t, std::vector<uint8_t>> *overrides = nullptr;
  void *ptr(const BufferRef &r) const {
    if (r.kind == BufferRef::Arena)
      return arena + r.offset;
    if (r.kind == BufferRef::Weight) {
      if (overrides)
        if (auto it = overrides->find(r.offset); it != overrides->end())
          return const_cast<uint8_t *>(it->second.data());
      return const_cast<uint8_t *>(weights + r.offset);
    }
    return nullptr;
  }
};

/// A kernel bound to its buffers: runs the op. Returns an error message, or
/// an empty string on success (kernels never throw through compiled code).
using BoundKernel = std::function<std::string()>;

/// Creates the kernel of one op (oneDNN primitives and packed weights
/// included), bound to the session's buffers. Throws opscope::Error naming
/// the op when it cannot. `kernelName` receives the implementation name.
BoundKernel makeKernel(const OpDesc &op, const Buffers &buffers,
                       std::string &kernelName);

BufferRef parseBufferRef(const nlohmann::json &j);

/// A control-flow op of the plan ("controls"; docs/runtime.md, "Control
/// flow"): buffers its steps read and write.
struct ControlDesc {
  enum Kind { If, Loop } kind = If;
  std::string name;
  /// If: cond. Loop: max_trip_count and cond (either may be None).
  BufferRef cond, maxTrip;
  std::vector<BufferRef> results;
  /// If: the then and else regions' yields. Loop: body yields (condition,
  /// carried values, scan outputs) in `yields[0]`. A loop's results are
  /// its carried values, then its scan outputs (one row per iteration).
  std::vector<BufferRef> yields[2];
  /// Loop: the initial carried values, and the body's arguments
  /// (iteration, condition, carried values).
  std::vector<BufferRef> inits, args;
  /// Loop: rows of each scan output (0: none); the loop stops there.
  int64_t scanLength = 0;
  /// Every buffer, for the plan's bounds check.
  std::vector<const BufferRef *> all() const;
};
ControlDesc parseControl(const nlohmann::json &j);

/// Runs one step (abi.h OPSCOPE_CONTROL_*) of a control op; returns what
/// the step returns (the branch, or whether to iterate), 0 otherwise.
using BoundControl = std::function<int32_t(int32_t step)>;

/// Binds control op `index` to the session's buffers; `profiler` records
/// branches and iterations when enabled.
BoundControl makeControl(const ControlDesc &desc, int32_t index,
                         const Buffers &buffers, Profiler &profiler);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_MODEL_PLAN_H
