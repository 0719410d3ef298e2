//===- opscope-profile.cpp - Sparsify-style profiles of a model -----------===//
//
// Part of opscope (docs/sparsify-profiles.md): per prunable layer, the
// performance profile (measured, or a FLOPs estimate), the loss profile and
// a recommended per-layer sparsity. The work is in ProfileTool.cpp and
// Profile.cpp (the opscope_profile_tool library); this file parses flags.
//
//===----------------------------------------------------------------------===//

#include "ProfileTool.h"
#include "ToolCommon.h"

int main(int argc, char **argv) {
  CLI::App app{"opscope-profile: Sparsify-style performance, FLOPs and loss "
               "profiles per prunable layer, and a recommended per-layer "
               "sparsity"};
  opscope::tools::profile::Options options;
  opscope::tools::profile::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-profile");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::profile::run(options);
}
