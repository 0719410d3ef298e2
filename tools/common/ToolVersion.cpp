//===- ToolVersion.cpp - the --version text of every opscope tool ---------===//
//
// Part of opscope. The only file that includes the generated
// opscope/Version.h (the git revision changes with every commit): the
// tools' own files did, and a fresh clone recompiled all 17 of them.
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"

#include "opscope/Version.h"

#include <oneapi/dnnl/dnnl_version.h>

std::string opscope::tools::versionText(const std::string &tool) {
  return tool + " (opscope " OPSCOPE_VERSION ", git " OPSCOPE_GIT_HASH ")\n" +
         "MLIR " OPSCOPE_MLIR_VERSION "\n" + "oneDNN " +
         std::to_string(DNNL_VERSION_MAJOR) + "." +
         std::to_string(DNNL_VERSION_MINOR) + "." +
         std::to_string(DNNL_VERSION_PATCH) + "\n" + "CPU " +
         rt::hostCpu().model + ": " + runtimeIsa();
}
