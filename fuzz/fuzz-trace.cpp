//===- fuzz-trace.cpp - libFuzzer harness: trace reader + analyzer --------===//
//
// Part of opscope. Bytes -> trace file -> opscope-analyze's load, rows and
// table rendering (the path `opscope-analyze TRACE` takes). An error
// message is a pass; a crash, a sanitizer report or a hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "opscope/runtime/analysis.h"

#include <sstream>

using namespace opscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::MemFile file(data, size);
  if (!file.ok())
    return 0;
  analysis::Profile profile;
  analysis::EventFilter filter;
  if (!analysis::loadProfile(file.path(), filter, profile).empty())
    return 0;
  analysis::Options options;
  std::ostringstream out;
  analysis::render(profile, analysis::buildRows(profile, options), options,
                   out);
  options.format = analysis::Format::Json;
  options.aggregateBy = "type";
  analysis::render(profile, analysis::buildRows(profile, options), options,
                   out);
  return 0;
}
