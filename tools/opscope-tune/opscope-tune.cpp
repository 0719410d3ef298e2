//===- opscope-tune.cpp - measured dense/sparse perf-ratio table ----------===//
//
// Part of opscope (issue 14, first slice). `opscope-tune [MODEL.so]
// [--shape NxK,...] [--m 128,...] [--sparsity 0.7,0.8,0.9] [--block 1x4]
// [--precision fp32,bf16,int8]` measures, on this machine, oneDNN's dense
// inner product and opscope's 1x4 block-sparse kernel at each ratio, for
// every weight shape x M x precision, in alternating rounds
// (tooling::measureInnerProducts, shared with bench-sparse), and prints
// the perf-ratio table in Intel Neural Engine's layout: rows are weight
// shapes, columns target sparsities, cells dense/sparse. See docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/sparse.h"
#include "opscope/runtime/tooling/kernel_bench.h"
#include "opscope/runtime/tooling/model_files.h"
#include "opscope/runtime/tuning.h"

#include "Progress.h"
#include "ToolCommon.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace opscope;
using opscope::tools::kFailure;
using opscope::tools::kOk;
using opscope::tools::kUsage;
using tooling::KernelPrecision;

static int fail(const std::string &message, int code) {
  std::cerr << "opscope-tune: error: " << message << "\n";
  return code;
}

namespace {
struct Shape {
  int64_t n, k;
  bool operator<(const Shape &o) const {
    return n != o.n ? n < o.n : k < o.k;
  }
};

/// One row of the table: a weight shape at one M.
struct Problem {
  Shape shape;
  int64_t m;
  bool operator<(const Problem &o) const {
    return shape < o.shape || (!(o.shape < shape) && m < o.m);
  }
};

bool parsePositive(const std::string &s, int64_t &out) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used == s.size() && v > 0) {
      out = v;
      return true;
    }
  } catch (const std::exception &) {
  }
  return false;
}

bool parseShape(const std::string &s, Shape &out) {
  auto x = s.find('x');
  return x != std::string::npos && parsePositive(s.substr(0, x), out.n) &&
         parsePositive(s.substr(x + 1), out.k);
}

CLI::Validator shapeValidator() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        Shape sh;
        if (parseShape(s, sh))
          return "";
        return "expected NxK (outputs x reduction), e.g. 768x3072, got '" + s +
               "'";
      },
      "NxK");
}

CLI::Validator openUnitRatio() {
  return CLI::Validator(
      [](std::string &s) -> std::string {
        try {
          size_t used = 0;
          double v = std::stod(s, &used);
          if (used == s.size() && v > 0.0 && v < 1.0)
            return "";
        } catch (const std::exception &) {
        }
        return "expected a ratio in (0, 1), e.g. 0.8, got '" + s + "'";
      },
      "RATIO");
}

std::string ratioCell(const std::vector<double> &r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fx [%.2f-%.2f]", tooling::median(r),
                *std::min_element(r.begin(), r.end()),
                *std::max_element(r.begin(), r.end()));
  return buf;
}
} // namespace

int main(int argc, char **argv) {
  CLI::App app{"opscope-tune: measure dense (oneDNN) against block-sparse "
               "inner products on this machine and print the perf-ratio "
               "table (dense ms / sparse ms)"};
  tools::addVersionFlag(app, "opscope-tune");
  std::string modelPath;
  std::vector<std::string> shapeArgs;
  std::vector<int64_t> mArgs;
  std::vector<double> ratios;
  std::vector<std::string> precisionArgs;
  std::string block = "1x4";
  std::string dbPath;
  bool noSave = false;
  int rounds = 5, threads = 1;
  double minMs = 250;
  std::vector<std::string> inputShapes;
  app.add_option("model", modelPath,
                 "a compiled model (.so), or an .onnx/.onnxtext compiled on "
                 "the fly (with --input-shape): tune the weight shapes and M "
                 "of its inner products");
  app.add_option("--input-shape", inputShapes,
                 "for an .onnx model: static input shape NAME=DIMS")
      ->take_all();
  app.add_option("--shape", shapeArgs, "weight shapes NxK (outputs x reduction)")
      ->delimiter(',')
      ->check(shapeValidator());
  app.add_option("--m", mArgs,
                 "rows of the activation (batch x sequence) for --shape; "
                 "default 128")
      ->delimiter(',')
      ->check(tools::positiveInteger());
  app.add_option("--sparsity", ratios, "target block sparsities; default "
                                       "0.7,0.8,0.9")
      ->delimiter(',')
      ->check(openUnitRatio());
  app.add_option("--block", block,
                 "sparse block shape: 1x4 (default) or 4x4 (weights pruned "
                 "with opscope-prune --block 4x4)");
  app.add_option("--precision", precisionArgs,
                 "fp32, bf16, int8; default fp32")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  app.add_option("--rounds", rounds, "alternating rounds per measurement")
      ->check(tools::positiveInteger());
  app.add_option("--min-ms", minMs,
                 "time per candidate per round, ms (the in-process median "
                 "is over the calls that fit)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "threads of oneDNN and the sparse "
                                       "kernels")
      ->check(tools::positiveInteger());
  app.add_option("--db", dbPath,
                 "the tuning database to merge the results into; default "
                 "$OPSCOPE_CACHE_DIR/tuning or ~/.cache/opscope/tuning, one "
                 "file per machine key");
  app.add_flag("--no-save", noSave, "print the table, write no database");
  if (int rc = tools::parseCommandLine(app, argc, argv); rc >= 0)
    return rc;

  if (block != "1x4" && block != "4x4")
    return fail("--block: 1x4 or 4x4 (the runtime's sparse kernels), got '" +
                    block + "'",
                kUsage);
  if (modelPath.empty() && shapeArgs.empty())
    return fail("nothing to tune: give a compiled MODEL.so or --shape NxK",
                kUsage);
  if (!mArgs.empty() && shapeArgs.empty())
    return fail("--m applies to --shape; a model's M comes from its plan",
                kUsage);
  if (ratios.empty())
    ratios = {0.7, 0.8, 0.9};
  std::sort(ratios.begin(), ratios.end());
  ratios.erase(std::unique(ratios.begin(), ratios.end()), ratios.end());
  if (mArgs.empty())
    mArgs = {128};
  std::vector<KernelPrecision> precisions;
  for (const std::string &p : precisionArgs) {
    KernelPrecision kp;
    tooling::parsePrecision(p, kp);
    if (std::find(precisions.begin(), precisions.end(), kp) ==
        precisions.end())
      precisions.push_back(kp);
  }
  if (precisions.empty())
    precisions = {KernelPrecision::F32};

  std::set<Problem> problems;
  for (const std::string &s : shapeArgs) {
    Shape sh;
    parseShape(s, sh);
    for (int64_t m : mArgs)
      problems.insert({sh, m});
  }
  if (!inputShapes.empty() &&
      (modelPath.empty() ||
       !tooling::needsCompiling(tooling::classifyModelFile(modelPath))))
    return fail("--input-shape applies to an .onnx model; a compiled model "
                "has fixed shapes",
                kUsage);
  if (!modelPath.empty()) {
    try {
      // An .onnx model: compiled into opscope-run's cache (the same
      // library opscope-run and opscope-profile would use), then tuned.
      std::string library = modelPath;
      if (tooling::needsCompiling(tooling::classifyModelFile(modelPath))) {
        tooling::CompileRequest request;
        request.model = modelPath;
        request.inputShapes = inputShapes;
        std::string error;
        library = tooling::compileIntoCache(
            request, tooling::defaultCacheDir(), error);
        if (library.empty())
          return fail(error, kFailure);
      }
      auto model = Model::load(library);
      size_t found = 0;
      for (const auto &p : model->probes()) {
        if (p.type != "inner_product" && p.type != "sparse_inner_product")
          continue;
        if (p.weightShape.size() != 2 || p.outputs.empty())
          continue;
        Shape sh{p.weightShape[0], p.weightShape[1]};
        // M x N output elements in either activation layout.
        int64_t m = p.outputs[0].elements() / sh.n;
        if (m <= 0)
          continue;
        problems.insert({sh, m});
        ++found;
      }
      if (found == 0)
        return fail(modelPath +
                        ": no inner products in the probe table (compile "
                        "with probes, the default, to tune a model)",
                    kFailure);
    } catch (const std::exception &e) {
      return fail(e.what(), kFailure);
    }
  }

  // The database is checked before anything is measured: one of another
  // machine, of another schema version or a corrupt one is refused.
  tuning::MachineKey here = tuning::thisMachine(rt::denseLibraryVersion());
  if (dbPath.empty())
    dbPath = (std::filesystem::path(tuning::defaultDirectory()) /
              here.fileName())
                 .string();
  tuning::Database db;
  db.key = here;
  if (!noSave && std::filesystem::exists(dbPath)) {
    try {
      db = tuning::load(dbPath, &here);
    } catch (const tuning::Error &e) {
      return fail(e.what(), kFailure);
    }
  }

  rt::setDenseThreads(threads);
  bool amx = cpuHasAmx();
  std::printf("CPU: %s; oneDNN %s; sparse kernels: f32 %s, bf16 %s, "
              "s8 %s; %d thread%s\n",
              cpuModelName().c_str(), rt::denseLibraryVersion().c_str(),
              rt::sparseIsa(rt::sparse::ValueType::F32).c_str(),
              rt::sparseIsa(rt::sparse::ValueType::BF16).c_str(),
              rt::sparseIsa(rt::sparse::ValueType::S8).c_str(), threads,
              threads == 1 ? "" : "s");

  tooling::KernelBenchConfig config;
  config.rounds = rounds;
  config.minMs = minMs;
  config.blockRows = block == "4x4" ? 4 : 1;
  size_t total = problems.size() * precisions.size(), done = 0;
  tools::Progress progress("opscope-tune", total);

  struct Result {
    Problem problem;
    KernelPrecision prec;
    tooling::KernelBenchResult res;
  };
  std::vector<Result> results;
  std::vector<std::string> denseImpls;
  try {
    for (KernelPrecision prec : precisions)
      for (const Problem &pb : problems) {
        ++done;
        auto onRound = [&](int r, int n) {
          if (!progress.enabled())
            return;
          char detail[128];
          std::snprintf(detail, sizeof detail, "%s %ldx%ld M=%ld round %d/%d",
                        tooling::precisionName(prec), (long)pb.shape.n,
                        (long)pb.shape.k, (long)pb.m, r, n);
          progress.update(done - 1, detail);
        };
        onRound(0, rounds);
        results.push_back({pb, prec,
                           tooling::measureInnerProducts(
                               prec, pb.shape.n, pb.shape.k, pb.m, ratios,
                               config, onRound)});
        const std::string &impl = results.back().res.denseImpl;
        if (std::find(denseImpls.begin(), denseImpls.end(), impl) ==
            denseImpls.end())
          denseImpls.push_back(impl);
      }
  } catch (const std::exception &e) {
    progress.finish();
    return fail(e.what(), kFailure);
  }
  progress.finish();

  bool amxUsed = false;
  for (const std::string &impl : denseImpls)
    amxUsed |= impl.find("amx") != std::string::npos;
  std::string impls;
  for (const std::string &impl : denseImpls)
    impls += (impls.empty() ? "" : ", ") + impl;
  std::printf("AMX: %s; oneDNN dense: %s\n",
              !amx      ? "not present"
              : amxUsed ? "present, used by oneDNN's dense kernels"
                        : "present, not used",
              impls.c_str());
  std::printf("perf ratio = dense ms / sparse ms (%s blocks, transposed "
              "activations), median over %d alternating rounds [min-max of "
              "the per-round ratios]\n\n",
              block.c_str(), rounds);

  // Neural Engine's layout: weight shape rows, target sparsity columns.
  std::ostringstream head, rule;
  head << "| weight shape | M | precision | dense ms |";
  rule << "| --- | --- | --- | --- |";
  for (double r : ratios) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %g%% |", std::round(r * 1000) / 10);
    head << buf;
    rule << " --- |";
  }
  std::printf("%s\n%s\n", head.str().c_str(), rule.str().c_str());
  for (const Result &r : results) {
    std::printf("| %ldx%ld | %ld | %s | %.4g |", (long)r.problem.shape.n,
                (long)r.problem.shape.k, (long)r.problem.m,
                tooling::precisionName(r.prec),
                tooling::median(r.res.denseMs));
    for (size_t i = 0; i < ratios.size(); ++i)
      std::printf(" %s |", ratioCell(r.res.perRoundRatios(i)).c_str());
    std::printf("\n");
  }
  std::printf("\nsparse ms (median over rounds):\n\n%s\n%s\n",
              head.str().c_str(), rule.str().c_str());
  for (const Result &r : results) {
    std::printf("| %ldx%ld | %ld | %s | %.4g |", (long)r.problem.shape.n,
                (long)r.problem.shape.k, (long)r.problem.m,
                tooling::precisionName(r.prec),
                tooling::median(r.res.denseMs));
    for (size_t i = 0; i < ratios.size(); ++i)
      std::printf(" %.4g |", tooling::median(r.res.sparseMs[i]));
    std::printf("\n");
  }
  // The dense candidates (fp32): oneDNN's inner product against its matmul
  // primitive on the same product; --kernels tuned takes the faster.
  bool anyMatmul = false;
  for (const Result &r : results)
    anyMatmul |= !r.res.matmulMs.empty();
  if (anyMatmul) {
    std::printf("\ndense candidates (median ms over rounds; the faster runs "
                "under --kernels tuned):\n\n| weight shape | M | inner "
                "product | matmul | faster |\n| --- | --- | --- | --- | --- "
                "|\n");
    for (const Result &r : results) {
      if (r.res.matmulMs.empty())
        continue;
      double ip = tooling::median(r.res.denseMs),
             mm = tooling::median(r.res.matmulMs);
      std::printf("| %ldx%ld | %ld | %.4g (%s) | %.4g (%s) | %s |\n",
                  (long)r.problem.shape.n, (long)r.problem.shape.k,
                  (long)r.problem.m, ip, r.res.denseImpl.c_str(), mm,
                  r.res.matmulImpl.c_str(), mm < ip ? "matmul" : "inner product");
    }
  }

  if (noSave)
    return kOk;
  for (const Result &r : results) {
    tuning::Entry e;
    e.n = r.problem.shape.n;
    e.k = r.problem.shape.k;
    e.m = r.problem.m;
    e.precision = tooling::precisionName(r.prec);
    e.block = block;
    e.threads = threads;
    e.denseMs = tooling::median(r.res.denseMs);
    e.denseImpl = r.res.denseImpl;
    e.sparseImpl = r.res.sparseImpl;
    if (!r.res.matmulMs.empty()) {
      e.matmulMs = tooling::median(r.res.matmulMs);
      e.matmulImpl = r.res.matmulImpl;
    }
    for (size_t i = 0; i < ratios.size(); ++i) {
      auto pr = r.res.perRoundRatios(i);
      e.sparse.push_back({ratios[i], tooling::median(r.res.sparseMs[i]),
                          *std::min_element(pr.begin(), pr.end()),
                          *std::max_element(pr.begin(), pr.end())});
    }
    db.merge(e);
  }
  try {
    tuning::save(dbPath, db);
  } catch (const tuning::Error &e) {
    return fail(e.what(), kFailure);
  }
  std::printf("\ntuning database: %s (%zu measured, %zu entries)\n",
              dbPath.c_str(), results.size(), db.entries.size());
  return kOk;
}
