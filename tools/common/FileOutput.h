//===- FileOutput.h - files written whole or not at all ---------*- C++ -*-===//
//
// Part of opscope. The tools write reports, CSVs and profiles with the
// runtime's writeFileAtomically (opscope/runtime/file_output.h): an error
// (or an interrupted run) leaves the old file or none, never half of one.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H
#define OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H

#include "opscope/runtime/file_output.h"

namespace opscope::tools {
using opscope::writeFileAtomically;
} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_FILEOUTPUT_H
