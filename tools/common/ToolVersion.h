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

#include <oneapi/dnnl/dnnl_version.h>

#include <fstream>
#include <string>

namespace opscope::tools {

/// The CPU model name from /proc/cpuinfo.
inline std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

/// The instruction sets the runtime will use on this CPU: its own kernels
/// (AVX-512 or portable, chosen at run time) and the best oneDNN ISA the
/// CPU offers (oneDNN dispatches the same way).
inline std::string runtimeIsa() {
  __builtin_cpu_init();
  std::string own = __builtin_cpu_supports("avx512f") ? "avx512" : "portable";
  std::string dnnl =
      __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16")
          ? "avx512_core_amx"
      : __builtin_cpu_supports("avx512bf16") ? "avx512_core_bf16"
      : __builtin_cpu_supports("avx512vnni") ? "avx512_core_vnni"
      : __builtin_cpu_supports("avx512f")    ? "avx512_core"
      : __builtin_cpu_supports("avx2")       ? "avx2"
                                             : "sse41";
  return "opscope kernels " + own + ", oneDNN " + dnnl;
}

/// What `TOOL --version` prints.
inline std::string versionText(const std::string &tool) {
  return tool + " (opscope " OPSCOPE_VERSION ", git " OPSCOPE_GIT_HASH ")\n" +
         "MLIR " OPSCOPE_MLIR_VERSION "\n" + "oneDNN " +
         std::to_string(DNNL_VERSION_MAJOR) + "." +
         std::to_string(DNNL_VERSION_MINOR) + "." +
         std::to_string(DNNL_VERSION_PATCH) + "\n" + "CPU " + cpuModel() +
         ": " + runtimeIsa();
}

} // namespace opscope::tools

#endif // OPSCOPE_TOOLS_COMMON_TOOLVERSION_H
