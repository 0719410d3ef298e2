//===- PackedWeights.cpp - the current packed-weight cache ----------------===//
//
// Part of opscope's runtime (packed_weights.h).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/packed_weights.h"

using namespace opscope::rt;

namespace {
thread_local PackedWeightCache *current = nullptr;
} // namespace

PackedWeightCache *opscope::rt::currentPackedWeights() { return current; }

PackedWeightScope::PackedWeightScope(PackedWeightCache *cache)
    : previous(current) {
  current = cache;
}

PackedWeightScope::~PackedWeightScope() { current = previous; }
