//===- fuzz-plan.cpp - libFuzzer harness: model plan + weights loader -----===//
//
// Part of opscope. An input is a model plan (the JSON a compiled model
// embeds), a NUL byte, and a `.weights` file: Model::fromPlan parses and
// checks both as Model::load does, then a session binds every kernel to
// its buffers (the run itself needs the compiled schedule, native code the
// runtime trusts). opscope::Error is a pass. Plans asking for an arena over
// 64 MiB are skipped: the arena is sized by the trusted .so.
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
    if (model->arenaBytes() <= (int64_t(64) << 20))
      (void)model->createSession(/*probeCapacity=*/16);
  } catch (const Error &) {
  }
  return 0;
}
