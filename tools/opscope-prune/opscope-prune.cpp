//===- opscope-prune.cpp - block-magnitude pruning of an ONNX model -------===//
//
// Part of opscope. `opscope-prune MODEL.onnx --sparsity 0.8 [--block 1x4]
// [--ops REGEX] [--per-layer FILE.json] -o OUT.onnx` zeroes the
// lowest-magnitude blocks of the MatMul/Gemm weights and leaves everything
// else as it was; it prints the ratio reached per layer. See
// docs/sparsity.md, "Pruning with opscope-prune".
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/ModelFile.h"
#include "opscope/Target/ONNX/Prune.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>

using namespace opscope;
using opscope::tools::kFailure;
using opscope::tools::kOk;
using opscope::tools::kUsage;

const opscope::tools::ErrorReporter fail{"opscope-prune"};

/// A ratio strictly between 0 and 1.
static CLI::Validator blockShape() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        if (prune::parseBlockShape(s))
          return "";
        return "expected RxC with positive R (along the outputs N) and C "
               "(along the reduction K), e.g. 1x4, got '" +
               s + "'";
      },
      "RxC");
}

int main(int argc, char **argv) {
  CLI::App app{"opscope-prune: zero the lowest-magnitude blocks of the "
               "MatMul/Gemm weights of an ONNX model"};
  std::string input, output, block = "1x4", ops, perLayerFile;
  double sparsity = 0;
  bool dryRun = false;
  app.add_option("model", input, "ONNX model (.onnx, or .onnxtext)")
      ->required();
  auto *sparsityOpt = app.add_option(
      "--sparsity", sparsity,
      "ratio of zero blocks per layer, in (0, 1); with --per-layer, the "
      "ratio of the layers the file does not name");
  sparsityOpt->check(opscope::tools::openUnitRatio());
  app.add_option("--block", block,
                 "block shape RxC: R consecutive outputs (N) by C consecutive "
                 "reduction elements (K); default 1x4")
      ->check(blockShape());
  app.add_option("--ops", ops,
                 "only layers whose node or weight name matches this regex");
  app.add_option("--per-layer", perLayerFile,
                 "JSON of per-layer ratios, {\"layers\": {\"NODE\": RATIO, "
                 "...}} (docs/sparsity.md)");
  app.add_option("-o,--output", output,
                 "pruned model (binary ONNX; external data goes to "
                 "OUT.data next to it)");
  app.add_flag("--dry-run", dryRun, "print the table, write nothing");
  tools::addVersionFlag(app, "opscope-prune");
  if (int code = tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;

  prune::Options options;
  options.block = *prune::parseBlockShape(block);
  if (sparsityOpt->count())
    options.sparsity = sparsity;
  if (!options.sparsity && perLayerFile.empty())
    return fail("give --sparsity RATIO or --per-layer FILE.json", kUsage);
  if (output.empty() && !dryRun)
    return fail("-o OUT.onnx is required (or --dry-run)", kUsage);
  if (onnx_model::isTextModelPath(output))
    return fail("-o " + output +
                    ": opscope-prune writes binary ONNX; name it .onnx",
                kUsage);
  if (!ops.empty()) {
    try {
      options.ops = std::regex(ops);
      options.opsText = ops;
    } catch (const std::regex_error &e) {
      return fail("--ops: invalid regex '" + ops + "': " + e.what(), kUsage);
    }
  }

  if (!perLayerFile.empty()) {
    options.perLayerFile = perLayerFile;
    if (std::string e = prune::readPerLayerFile(perLayerFile, options.perLayer);
        !e.empty())
      return fail(e, kFailure);
  }
  onnx::ModelProto model;
  std::vector<onnx::TensorProto *> external;
  std::string error;
  if (!onnx_model::readModelFile(input, model, error) ||
      !onnx_model::loadExternalData(model, onnx_model::modelDirectory(input),
                                    external, error))
    return fail(error, kFailure);
  prune::Report report;
  if (std::string e = prune::pruneModel(model, options, report); !e.empty())
    return fail(input + ": " + e, kFailure);
  if (!dryRun && !onnx_model::writeModelFile(model, external, output, error))
    return fail(error, kFailure);

  prune::printReport(std::cout, report);
  if (!dryRun)
    std::cout << "wrote " << output
              << (external.empty()
                      ? ""
                      : " and " + onnx_model::externalDataPathFor(output))
              << "\n";
  return kOk;
}
