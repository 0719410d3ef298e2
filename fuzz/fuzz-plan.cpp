//===- fuzz-plan.cpp - libFuzzer harness: model plan + weights loader -----===//
//
// Part of opscope. An input is a model plan (the JSON a compiled model
// embeds), a NUL byte, and a `.weights` file: Model::fromPlan parses and
// checks both as Model::load does (every buffer inside the arena or the
// weights, sizes that do not overflow, the weights' size, id and checksum).
// opscope::Error is a pass. Kernels are not bound: the plan is part of the
// compiled model, native code the runtime trusts (docs/security.md); the
// checks at load only keep a corrupted plan from writing outside the arena.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "opscope/runtime/model.h"

#include <cstring>

using namespace opscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const void *nul = std::memchr(data, 0, size);
  if (!nul)
    return 0;
  size_t planSize = static_cast<const uint8_t *>(nul) - data;
  std::string plan(reinterpret_cast<const char *>(data), planSize);
  fuzz::MemFile weights(data + planSize + 1, size - planSize - 1);
  if (!weights.ok())
    return 0;
  try {
    auto model = Model::fromPlan(plan, weights.path());
    (void)model;
  } catch (const Error &) {
  }
  return 0;
}
