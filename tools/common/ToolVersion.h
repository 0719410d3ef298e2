//===- ToolVersion.h - the --version text of every opscope tool -*- C++ -*-===//
//
// Part of opscope. Header-only and free of CLI11 and exceptions, so every
// tool, opscope-opt (LLVM's command line) included, prints the same
// version: opscope's, the git revision, MLIR's and oneDNN's, and the ISAs
// the runtime will use on this CPU.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMMON_TOOLVERSION_H
#define OPSCOPE_TOOLS_COMMON_TOOLVERSION_H

#include "opscope/Version.h"
#include "opscope/runtime/cpu.h"

#include <oneapi/dnnl/dnnl_version.h>

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

/// What `TOOL --version` prints.
inline std::string versionText(const std::string &tool) {
  return tool + " (opscope " OPSCOPE_VERSION ", git " OPSCOPE_GIT_HASH ")\n" +
         "MLIR " OPSCOPE_MLIR_VERSION "\n" + "oneDNN " +
         std::to_string(DNNL_VERSION_MAJOR) + "." +
         std::to_string(DNNL_VERSION_MINOR) + "." +
         std::to_string(DNNL_VERSION_PATCH) + "\n" + "CPU " +
         rt::hostCpu().model + ": " + runtimeIsa();
}

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_TOOLVERSION_H
