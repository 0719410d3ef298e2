//===- TuneTool.cpp - opscope-tune's flags and measurement ----------------===//
//
// Part of opscope (issue 14, first slice). opscope-tune measures, on this
// machine, oneDNN's dense inner product and opscope's 1x4 block-sparse
// kernel at each ratio, for every weight shape x M x precision, in
// alternating rounds (tooling::measureInnerProducts, shared with
// bench-sparse), and prints the perf-ratio table in Intel Neural Engine's
// layout: rows are weight shapes, columns target sparsities, cells
// dense/sparse; then merges the results into the tuning database. See
// docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#include "TuneTool.h"

#include "opscope/runtime/cpu.h"
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
using opscope::tools::tune::Options;
using tooling::KernelPrecision;

namespace {
const opscope::tools::ErrorReporter fail{"opscope-tune"};

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

using tooling::fastestRound;

/// The ratio of the fastest rounds, then the per-round ratios' range.
std::string ratioCell(const tooling::KernelBenchResult &res, size_t i) {
  auto r = res.perRoundRatios(i);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fx [%.2f-%.2f]",
                fastestRound(res.denseMs) / fastestRound(res.sparseMs[i]),
                *std::min_element(r.begin(), r.end()),
                *std::max_element(r.begin(), r.end()));
  return buf;
}

/// One measured problem at one precision.
struct Result {
  Problem problem;
  KernelPrecision prec;
  tooling::KernelBenchResult res;
};

/// The database entry of one result (tooling::tuningEntry: each
/// candidate's fastest round, and the spread of the per-round ratios).
tuning::Entry entryOf(const Options &o, const Result &r) {
  return tooling::tuningEntry(r.res, r.problem.shape.n, r.problem.shape.k,
                              r.problem.m, r.prec, o.block, o.threads,
                              o.ratios);
}

/// Measurements taken again when the sparse latencies do not fall with the
/// sparsity (tuning::unsteadiness): a database measured while the host was
/// unsteady makes the compiler choose the slower kernel. The rounds of each
/// measurement join the earlier ones', so the entry's fastest rounds are
/// over all of them.
constexpr int kRemeasure = 2;

// The steps of run(). Those returning an int return -1 to go on, else the
// exit code (the message printed).

/// The usage errors of --block, --m and a missing model or --shape.
int checkUsage(const Options &o) {
  if (o.block != "1x4" && o.block != "4x4")
    return fail("--block: 1x4 or 4x4 (the runtime's sparse kernels), got '" +
                    o.block + "'",
                kUsage);
  if (o.modelPath.empty() && o.shapeArgs.empty())
    return fail("nothing to tune: give a compiled MODEL.so or --shape NxK",
                kUsage);
  if (!o.mArgs.empty() && o.shapeArgs.empty())
    return fail("--m applies to --shape; a model's M comes from its plan",
                kUsage);
  return -1;
}

/// --sparsity (default 0.7,0.8,0.9) sorted without repeats; --m default 128.
void applyDefaults(Options &o) {
  if (o.ratios.empty())
    o.ratios = {0.7, 0.8, 0.9};
  std::sort(o.ratios.begin(), o.ratios.end());
  o.ratios.erase(std::unique(o.ratios.begin(), o.ratios.end()),
                 o.ratios.end());
  if (o.mArgs.empty())
    o.mArgs = {128};
}

/// --precision's values without repeats, in order; fp32 when none.
std::vector<KernelPrecision>
parsePrecisions(const std::vector<std::string> &precisionArgs) {
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
  return precisions;
}

/// Every --shape at every --m.
std::set<Problem> shapeProblems(const Options &o) {
  std::set<Problem> problems;
  for (const std::string &s : o.shapeArgs) {
    Shape sh;
    parseShape(s, sh);
    for (int64_t m : o.mArgs)
      problems.insert({sh, m});
  }
  return problems;
}

/// --input-shape needs an .onnx model.
int checkInputShapes(const Options &o) {
  if (!o.inputShapes.empty() &&
      (o.modelPath.empty() ||
       !tooling::needsCompiling(tooling::classifyModelFile(o.modelPath))))
    return fail("--input-shape applies to an .onnx model; a compiled model "
                "has fixed shapes",
                kUsage);
  return -1;
}

/// Adds the inner products of the model's probe table to `problems`.
int addModelProblems(const Options &o, std::set<Problem> &problems) {
  try {
    // An .onnx model: compiled into opscope-run's cache (the same
    // library opscope-run and opscope-profile would use), then tuned.
    std::string library = o.modelPath;
    if (tooling::needsCompiling(tooling::classifyModelFile(o.modelPath))) {
      tooling::CompileRequest request;
      request.model = o.modelPath;
      request.inputShapes = o.inputShapes;
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
      return fail(o.modelPath +
                      ": no inner products in the probe table (compile "
                      "with probes, the default, to tune a model)",
                  kFailure);
  } catch (const std::exception &e) {
    return fail(e.what(), kFailure);
  }
  return -1;
}

/// The database to merge into (--db, by default this machine's file in the
/// default directory, which `o.dbPath` is set to); loaded unless --no-save.
/// One of another machine, of another schema version or a corrupt one is
/// refused.
int openDatabase(Options &o, tuning::MachineKey &here, tuning::Database &db) {
  if (o.dbPath.empty())
    o.dbPath = (std::filesystem::path(tuning::defaultDirectory()) /
                here.fileName())
                   .string();
  db.key = here;
  if (!o.noSave && std::filesystem::exists(o.dbPath)) {
    try {
      db = tuning::load(o.dbPath, &here);
    } catch (const tuning::Error &e) {
      return fail(e.what(), kFailure);
    }
  }
  return -1;
}

/// Sets the kernel threads and prints the CPU line: whether the CPU has AMX.
bool setUpMachine(int threads) {
  rt::setDenseThreads(threads);
  bool amx = cpuHasAmx();
  std::printf("CPU: %s; oneDNN %s; sparse kernels: f32 %s, bf16 %s, "
              "s8 %s; %d thread%s\n",
              rt::hostCpu().model.c_str(), rt::denseLibraryVersion().c_str(),
              rt::sparseIsa(rt::sparse::ValueType::F32).c_str(),
              rt::sparseIsa(rt::sparse::ValueType::BF16).c_str(),
              rt::sparseIsa(rt::sparse::ValueType::S8).c_str(), threads,
              threads == 1 ? "" : "s");
  return amx;
}

/// Measures every problem at every precision into `results`, and the
/// distinct dense implementations into `denseImpls`.
int measureProblems(const Options &o, const std::set<Problem> &problems,
                    const std::vector<KernelPrecision> &precisions,
                    std::vector<Result> &results,
                    std::vector<std::string> &denseImpls) {
  tooling::KernelBenchConfig config;
  config.rounds = o.rounds;
  config.minMs = o.minMs;
  config.blockRows = o.block == "4x4" ? 4 : 1;
  if (o.warmWeights)
    config.weightRingBytes = 0;
  size_t total = problems.size() * precisions.size(), done = 0;
  tools::Progress progress("opscope-tune", total);

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
        onRound(0, o.rounds);
        Result r{pb, prec,
                 tooling::measureInnerProducts(prec, pb.shape.n, pb.shape.k,
                                               pb.m, o.ratios, config,
                                               onRound)};
        std::string unsteady = tuning::unsteadiness(entryOf(o, r));
        for (int again = 0; again < kRemeasure && !unsteady.empty();
             ++again) {
          r.res.appendRounds(tooling::measureInnerProducts(
              prec, pb.shape.n, pb.shape.k, pb.m, o.ratios, config, onRound));
          unsteady = tuning::unsteadiness(entryOf(o, r));
        }
        if (!unsteady.empty()) {
          progress.finish();
          std::fprintf(stderr,
                       "opscope-tune: warning: %ldx%ld M=%ld %s: %s in %d "
                       "measurements: the host is unsteady (other load, "
                       "frequency changes); the entry keeps each kernel's "
                       "fastest round of them all, measure it again when "
                       "the machine is quiet\n",
                       (long)pb.shape.n, (long)pb.shape.k, (long)pb.m,
                       tooling::precisionName(prec), unsteady.c_str(),
                       kRemeasure + 1);
        }
        results.push_back(std::move(r));
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
  return -1;
}

/// The AMX line and the perf-ratio table's legend.
void printLegend(const Options &o, bool amx,
                 const std::vector<std::string> &denseImpls) {
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
  if (o.warmWeights)
    std::printf("weights: one copy per candidate, warm in cache between "
                "calls (--warm-weights)\n");
  else
    std::printf("weights: each candidate on a ring of copies, %zu MiB in "
                "all (at most 64), one per call, as a model's run reads "
                "them from memory (--warm-weights: one copy)\n",
                tooling::KernelBenchConfig{}.weightRingBytes >> 20);
  std::printf("perf ratio = dense ms / sparse ms (%s blocks, transposed "
              "activations), of the fastest of %d alternating rounds [min-max "
              "of the per-round ratios]\n\n",
              o.block.c_str(), o.rounds);
}

/// The perf-ratio table, then the sparse ms table.
void printRatioTables(const Options &o, const std::vector<Result> &results) {
  // Neural Engine's layout: weight shape rows, target sparsity columns.
  std::ostringstream head, rule;
  head << "| weight shape | M | precision | dense ms |";
  rule << "| --- | --- | --- | --- |";
  for (double r : o.ratios) {
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
                fastestRound(r.res.denseMs));
    for (size_t i = 0; i < o.ratios.size(); ++i)
      std::printf(" %s |", ratioCell(r.res, i).c_str());
    std::printf("\n");
  }
  std::printf("\nsparse ms (fastest round):\n\n%s\n%s\n",
              head.str().c_str(), rule.str().c_str());
  for (const Result &r : results) {
    std::printf("| %ldx%ld | %ld | %s | %.4g |", (long)r.problem.shape.n,
                (long)r.problem.shape.k, (long)r.problem.m,
                tooling::precisionName(r.prec),
                fastestRound(r.res.denseMs));
    for (size_t i = 0; i < o.ratios.size(); ++i)
      std::printf(" %.4g |", fastestRound(r.res.sparseMs[i]));
    std::printf("\n");
  }
}

/// The dense candidates (fp32): oneDNN's inner product against its matmul
/// primitive on the same product; --kernels tuned takes the faster.
void printDenseCandidates(const std::vector<Result> &results) {
  bool anyMatmul = false;
  for (const Result &r : results)
    anyMatmul |= !r.res.matmulMs.empty();
  if (anyMatmul) {
    std::printf("\ndense candidates (ms, fastest round; under --kernels "
                "tuned the matmul runs where it is more than %.0f%% faster, "
                "else the tier decides):\n\n| weight shape | M | inner "
                "product | matmul | faster |\n| --- | --- | --- | --- | --- "
                "|\n",
                100 * tuning::Entry::kMatmulMargin);
    for (const Result &r : results) {
      if (r.res.matmulMs.empty())
        continue;
      tuning::Entry e;
      e.denseMs = fastestRound(r.res.denseMs);
      e.matmulMs = fastestRound(r.res.matmulMs);
      const double ip = e.denseMs, mm = e.matmulMs;
      std::printf("| %ldx%ld | %ld | %.4g (%s) | %.4g (%s) | %s |\n",
                  (long)r.problem.shape.n, (long)r.problem.shape.k,
                  (long)r.problem.m, ip, r.res.denseImpl.c_str(), mm,
                  r.res.matmulImpl.c_str(),
                  e.matmulFaster() ? "matmul"
                  : mm < ip        ? "tie (within the margin)"
                                   : "inner product");
    }
  }
}

/// Merges the results into `db` and writes it to `o.dbPath`.
int saveResults(const Options &o, const std::vector<Result> &results,
                tuning::Database &db) {
  for (const Result &r : results) {
    tuning::Entry e = entryOf(o, r);
    db.merge(e);
  }
  try {
    tuning::save(o.dbPath, db);
  } catch (const tuning::Error &e) {
    return fail(e.what(), kFailure);
  }
  std::printf("\ntuning database: %s (%zu measured, %zu entries)\n",
              o.dbPath.c_str(), results.size(), db.entries.size());
  return kOk;
}
} // namespace

namespace opscope::tools::tune {

void addOptions(CLI::App &app, Options &o) {
  app.add_option("model", o.modelPath,
                 "a compiled model (.so), or an .onnx/.onnxtext compiled on "
                 "the fly (with --input-shape): tune the weight shapes and M "
                 "of its inner products");
  app.add_option("--input-shape", o.inputShapes,
                 "for an .onnx model: static input shape NAME=DIMS")
      ->take_all();
  app.add_option("--shape", o.shapeArgs,
                 "weight shapes NxK (outputs x reduction)")
      ->delimiter(',')
      ->check(shapeValidator());
  app.add_option("--m", o.mArgs,
                 "rows of the activation (batch x sequence) for --shape; "
                 "default 128")
      ->delimiter(',')
      ->check(tools::positiveInteger());
  app.add_option("--sparsity", o.ratios, "target block sparsities; default "
                                         "0.7,0.8,0.9")
      ->delimiter(',')
      ->check(opscope::tools::openUnitRatio());
  app.add_option("--block", o.block,
                 "sparse block shape: 1x4 (default) or 4x4 (weights pruned "
                 "with opscope-prune --block 4x4)");
  app.add_option("--precision", o.precisionArgs,
                 "fp32, bf16, int8; default fp32")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  app.add_option("--rounds", o.rounds, "alternating rounds per measurement")
      ->check(tools::positiveInteger());
  app.add_option("--min-ms", o.minMs,
                 "time per candidate per round, ms (the in-process median "
                 "is over the calls that fit)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", o.threads, "threads of oneDNN and the sparse "
                                         "kernels")
      ->check(tools::positiveInteger());
  app.add_option("--db", o.dbPath,
                 "the tuning database to merge the results into; default "
                 "$OPSCOPE_CACHE_DIR/tuning or ~/.cache/opscope/tuning, one "
                 "file per machine key");
  app.add_flag("--no-save", o.noSave, "print the table, write no database");
  app.add_flag("--warm-weights", o.warmWeights,
               "time each candidate on one copy of its weights, warm in "
               "cache between calls (the default is a ring of copies, "
               "128 MiB in all, as a model streams them)");
}

int run(const CLI::App &, Options &o) {
  if (int code = checkUsage(o); code >= 0)
    return code;
  applyDefaults(o);
  std::vector<KernelPrecision> precisions = parsePrecisions(o.precisionArgs);
  std::set<Problem> problems = shapeProblems(o);
  if (int code = checkInputShapes(o); code >= 0)
    return code;
  if (!o.modelPath.empty())
    if (int code = addModelProblems(o, problems); code >= 0)
      return code;

  // The database is checked before anything is measured.
  tuning::MachineKey here = tuning::thisMachine(rt::denseLibraryVersion());
  tuning::Database db;
  if (int code = openDatabase(o, here, db); code >= 0)
    return code;

  bool amx = setUpMachine(o.threads);
  std::vector<Result> results;
  std::vector<std::string> denseImpls;
  if (int code =
          measureProblems(o, problems, precisions, results, denseImpls);
      code >= 0)
    return code;
  printLegend(o, amx, denseImpls);
  printRatioTables(o, results);
  printDenseCandidates(results);

  if (o.noSave)
    return kOk;
  return saveResults(o, results, db);
}

} // namespace opscope::tools::tune
