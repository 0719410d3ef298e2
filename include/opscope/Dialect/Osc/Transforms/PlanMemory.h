//===- PlanMemory.h - where each tensor lives after osc-plan-memory -*- C++ -*-===//
//
// Part of opscope. osc-plan-memory records its decisions as attributes;
// these helpers read them back for the lowering and the weights writer.
//
//   * `osc.offset` (i64) on an op: byte offset of its result in the arena.
//   * `osc.arg_offsets` (array<i64>) on the function: offsets of arguments.
//   * `osc.weight_offset` (i64) on an osc.constant: byte offset of its data
//     in the `.weights` file (64-byte aligned).
//   * `osc.offset` on an osc.constant too: a large splat, whose one element
//     is at `osc.weight_offset` and which the runtime fills into the arena
//     at this offset when a session starts (an "arena splat").
//   * on the module: `osc.arena_bytes`, `osc.weights_bytes` (file size) and
//     `osc.weights_id` (hex string of a content hash, checked at load).
//
// Reshapes and probes produce no buffer of their own: they alias their
// input / their yielded value.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_PLANMEMORY_H
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_PLANMEMORY_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace opscope::osc {

inline constexpr const char *kOffsetAttr = "osc.offset";
/// The arena offsets of an executed op with several results, one each.
inline constexpr const char *kOffsetsAttr = "osc.offsets";
inline constexpr const char *kArgOffsetsAttr = "osc.arg_offsets";
/// Arena bytes live while the op runs (the trace's memory counter).
inline constexpr const char *kLiveBytesAttr = "osc.live_bytes";
inline constexpr const char *kWeightOffsetAttr = "osc.weight_offset";
inline constexpr const char *kArenaBytesAttr = "osc.arena_bytes";
inline constexpr const char *kWeightsBytesAttr = "osc.weights_bytes";
inline constexpr const char *kWeightsIdAttr = "osc.weights_id";
/// Size of the `.weights` header; the first blob starts here.
inline constexpr int64_t kWeightsHeaderBytes = 64;

struct PlannedBuffer {
  enum Kind { Arena, Weight } kind = Arena;
  int64_t offset = 0;
};

/// The planned buffer of `v` (following reshape and probe aliases), or
/// nullopt when the function has not been planned.
std::optional<PlannedBuffer> plannedBuffer(mlir::Value v);

/// Whether osc-plan-memory placed this constant in the arena as a splat.
bool isArenaSplat(mlir::Operation *constant);

/// The bytes of a constant as the `.weights` file stores them: row-major,
/// i1 as one byte per element, splats expanded, except an arena splat,
/// which is one element. Blobs are returned in place; other forms are
/// materialised into `storage`. nullopt when the data is not available
/// (elided weights).
std::optional<llvm::ArrayRef<char>> constantData(mlir::Operation *constant,
                                                 std::vector<char> &storage);

} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_TRANSFORMS_PLANMEMORY_H
