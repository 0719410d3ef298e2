//===- fuzz-npy.cpp - libFuzzer harness: .npy reader ----------------------===//
//
// Part of opscope. Bytes -> `.npy` file -> readNpy, as `opscope-run --input
// NAME=FILE.npy` reads it. opscope::Error is a pass; a crash, a sanitizer
// report or an allocation beyond the file's size is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"

using namespace opscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::MemFile file(data, size);
  if (!file.ok())
    return 0;
  try {
    rt::HostTensor t = rt::readNpy(file.path());
    (void)t;
  } catch (const Error &) {
  }
  return 0;
}
