//===- ToolVersion.h - the --version text of every opscope tool -*- C++ -*-===//
//
// Part of opscope. Free of CLI11 and exceptions, so every tool,
// opscope-opt (LLVM's command line) included, prints the same version:
// opscope's, the git revision, MLIR's and oneDNN's, and the ISAs the
// runtime will use on this CPU.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_TOOLVERSION_H
#define OPSCOPE_TOOLS_COMMON_TOOLVERSION_H

#include "opscope/runtime/cpu.h"

#include <string>

namespace opscope::tools {

/// The instruction sets the runtime will use on this CPU, under the
/// OPSCOPE_MAX_ISA cap (cpu.h, the runtime's own description): its own
/// kernels' tier (avx512, avx2 or reference) and oneDNN's best ISA. A cap
/// that names no level is said to be ignored, as the runtime warns.
inline std::string runtimeIsa() {
  rt::IsaLevel tier = rt::tierInForce();
  std::string own = rt::ownKernelTierName(tier);
  rt::IsaCap cap = rt::isaCapFromEnvironment();
  std::string capNote =
      !cap.unknownVariable.empty()
          ? " (" + cap.unknownVariable + "=" + cap.unknownValue +
                " is not an ISA level; ignored)"
      : cap.level == rt::IsaLevel::All
          ? std::string()
          : std::string(" (ISA cap ") +
                rt::kIsaLevelNames[static_cast<int>(cap.level)] + ")";
  return "opscope kernels " + own + ", oneDNN " +
         rt::kIsaLevelNames[static_cast<int>(tier)] + capNote;
}

/// What `TOOL --version` prints (ToolVersion.cpp: the one file that sees
/// the generated opscope/Version.h, so a commit recompiles it alone).
std::string versionText(const std::string &tool);

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_TOOLVERSION_H
