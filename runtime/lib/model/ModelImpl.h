//===- ModelImpl.h - a loaded model's state, for Model.cpp and Session.cpp -===//
//
// Part of opscope's runtime (private). What loading a compiled model
// produces (Model.cpp: the library, the parsed plan, the mapped weights)
// and its sessions read (Session.cpp: the arena layout, the ops to bind,
// the schedule to run).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_MODEL_MODELIMPL_H
#define OPSCOPE_RUNTIME_LIB_MODEL_MODELIMPL_H

#include "Plan.h"
#include "opscope/runtime/abi.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/packed_weights.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opscope {


struct Model::Impl {
  std::string path, weightsPath, name, planText, targetTier, tuningDb;
  void *handle = nullptr;
  opscope_model_run_fn run = nullptr;
  const uint8_t *weights = nullptr;
  size_t weightsMapped = 0;
  int64_t arenaBytes = 0, weightBytes = 0;
  uint64_t weightsId = 0;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<int64_t> inputOffsets;
  std::vector<rt::BufferRef> outputRefs;
  /// Per output: the i64 buffer holding its run-time extent along
  /// outputs[i].extentAxis (kind None when it has none).
  std::vector<rt::BufferRef> outputExtents;
  std::vector<rt::OpDesc> ops;
  std::vector<int64_t> opLiveBytes;
  std::vector<ProbeInfo> probes;
  /// Per probe: the i64 buffer of its op's run-time extent (kind None when
  /// the op has none), for checkBuffers.
  std::vector<rt::BufferRef> probeExtents;
  std::vector<rt::ControlDesc> controlOps;
  std::vector<Model::ControlInfo> controls;
  std::vector<StartupSpan> startup;
  /// Packed constant weights shared by this model's sessions.
  std::unique_ptr<rt::PackedWeightCache> packed;
  /// Splat constants filled into the arena when a session starts, each
  /// from one element at `valueOffset` in the weights.
  struct Splat {
    rt::BufferRef buffer;
    int64_t valueOffset = 0;
  };
  std::vector<Splat> splats;

  ~Impl();

  void parsePlan(const char *text);
  void mapWeights(const std::string &file, uint64_t id, uint64_t bytes);
  void checkBuffers() const;
};

} // namespace opscope

#endif // OPSCOPE_RUNTIME_LIB_MODEL_MODELIMPL_H
