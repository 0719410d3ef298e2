//===- opscope-bench.cpp - compile and run a grid of shapes and precisions -===//
//
// Part of opscope (docs/benchmark-modes.md, "opscope-bench"). MegEngine's
// load_and_run sweeps its run settings; this sweeps what a model is
// compiled for: batch sizes, sequence lengths and precisions. Each cell is
// compiled (into the compile cache), then all cells run in rounds, and with
// --compare-ort ONNX Runtime runs the same shapes in the same rounds, so
// the ratios compare systems under the same host load. It prints a table
// and writes a CSV and, through opscope-report, an HTML chart.
//
//===----------------------------------------------------------------------===//

#include "FileOutput.h"
#include "Progress.h"
#include "Subprocess.h"
#include "ToolCommon.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/text.h"
#include "opscope/runtime/tooling/benchmark.h"
#include "opscope/runtime/tooling/model_files.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

using namespace opscope;
using namespace opscope::tooling;
namespace fs = std::filesystem;

#ifndef OPSCOPE_ORT_RUNNER
#define OPSCOPE_ORT_RUNNER "scripts/ort_run.js"
#endif

namespace {
int fail(const std::string &message, int code = tools::kFailure) {
  std::cerr << "opscope-bench: error: " << message << "\n";
  return code;
}

/// One `NAME=DIMS` template: each dimension a number, `B` or `S`.
struct Template {
  std::string name;
  std::vector<std::string> dims;
  std::string shape(int64_t batch, int64_t seq) const {
    std::string s;
    for (const std::string &d : dims)
      s += (s.empty() ? "" : "x") +
           (d == "B" ? std::to_string(batch)
                     : d == "S" ? std::to_string(seq) : d);
    return name + "=" + s;
  }
};

/// Parses `input_ids=BxS`; "" or a message naming the template.
std::string parseTemplate(const std::string &text, Template &t) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return "--input-shape-template: expected NAME=DIMS with dimensions "
           "separated by x, each a number, B (batch) or S (sequence), got '" +
           text + "'";
  t.name = text.substr(0, eq);
  std::stringstream dims(text.substr(eq + 1));
  for (std::string d; std::getline(dims, d, 'x');) {
    d.erase(std::remove(d.begin(), d.end(), ' '), d.end());
    bool number = !d.empty() && d.size() <= 12 &&
                  std::all_of(d.begin(), d.end(), ::isdigit) && d != "0";
    if (d != "B" && d != "S" && !number)
      return "--input-shape-template " + text + ": dimension '" + d +
             "' is not a positive number, B or S";
    t.dims.push_back(d);
  }
  return "";
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

/// One cell of the grid.
struct Cell {
  std::string precision;
  int64_t batch = 1, seq = 0;
  std::vector<std::string> shapes; // NAME=DIMS
  std::string library, kernel;
  std::string shapeKey; // the shapes, joined: cells that share inputs
  std::unique_ptr<Model> model;
  std::unique_ptr<Session> session; // created once, inputs written once
  std::vector<rt::HostTensor> inputs;
  std::vector<std::string> inputFiles; // NAME=FILE.npy, for ONNX Runtime
  std::vector<double> ours;            // round medians, ms
  std::vector<double> ort;             // ONNX Runtime, same rounds
};
} // namespace

int main(int argc, char **argv) {
  CLI::App app{"opscope-bench: compile and run a model over a grid of batch "
               "sizes, sequence lengths and precisions, optionally side by "
               "side with ONNX Runtime"};
  std::string modelPath, csvPath, htmlPath, workDir, calibration,
      ortRunner = OPSCOPE_ORT_RUNNER;
  std::vector<std::string> templates, precisions = {"fp32"};
  std::vector<int64_t> batches = {1}, seqs;
  int rounds = 3, iterations = 10, warmup = 2, threads = 1, cpu = -1,
      intMax = 2;
  bool compareOrt = false;
  app.add_option("model", modelPath, "ONNX model (.onnx or .onnxtext)")
      ->required();
  app.add_option("--input-shape-template", templates,
                 "NAME=DIMS per input, dimensions separated by x: a number, "
                 "B (each --batch) or S (each --seq), e.g. "
                 "input_ids=BxS; several separated by commas or given "
                 "again")
      ->required()
      ->delimiter(',');
  app.add_option("--batch", batches, "batch sizes, e.g. 1,8 (default 1)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--seq", seqs, "sequence lengths, e.g. 32,128 (needed when "
                                "a template uses S)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--precision", precisions,
                 "precisions to compile for (default fp32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  app.add_option("--calibration-inputs", calibration,
                 "with int8: opscope-compile's --calibration-inputs (a "
                 "directory of input sets, or 'random' explicitly)");
  app.add_flag("--compare-ort", compareOrt,
               "run ONNX Runtime fp32 (npm onnxruntime-node) on the same "
               "shapes and inputs, alternating with opscope in every round");
  app.add_option("--ort-runner", ortRunner,
                 "the ONNX Runtime runner script (default: the source "
                 "tree's scripts/ort_run.js)");
  app.add_option("--rounds", rounds, "rounds over the grid (default 3)")
      ->check(tools::positiveInteger());
  app.add_option("--iterations", iterations,
                 "timed runs per cell and round (default 10)")
      ->check(tools::positiveInteger());
  app.add_option("--warmup", warmup, "untimed runs first (default 2)")
      ->check(tools::nonNegativeInteger());
  app.add_option("--threads", threads, "kernel threads (default 1)")
      ->check(tools::positiveInteger());
  app.add_option("--cpu", cpu,
                 "pin opscope and ONNX Runtime to this CPU (with --threads "
                 "1)")
      ->check(tools::nonNegativeInteger());
  app.add_option("--int-max", intMax,
                 "random integer inputs lie in [0, N) (default 2: valid "
                 "ids, masks and token types)")
      ->check(tools::positiveInteger());
  app.add_option("--csv", csvPath, "write the grid as CSV");
  app.add_option("--html", htmlPath,
                 "write an HTML chart of the grid (opscope-report --bench)");
  app.add_option("--work", workDir,
                 "where compiled models and inputs go (default: the compile "
                 "cache, $OPSCOPE_CACHE_DIR or ~/.cache/opscope/compiled)");
  tools::addVersionFlag(app, "opscope-bench");
  if (int code = tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;

  std::vector<Template> parsed;
  bool usesS = false;
  for (const std::string &t : templates) {
    Template tpl;
    if (std::string err = parseTemplate(t, tpl); !err.empty())
      return fail(err, tools::kUsage);
    usesS |= std::count(tpl.dims.begin(), tpl.dims.end(), "S") > 0;
    parsed.push_back(tpl);
  }
  if (usesS && seqs.empty())
    return fail("--seq is needed: a template uses S", tools::kUsage);
  if (!usesS && !seqs.empty())
    return fail("--seq: no --input-shape-template uses S", tools::kUsage);
  if (seqs.empty())
    seqs = {0};
  bool int8 = std::count(precisions.begin(), precisions.end(), "int8") > 0;
  if (int8 && calibration.empty())
    return fail("--precision int8 needs --calibration-inputs DIR (or "
                "'random', explicitly)",
                tools::kUsage);
  if (!int8 && !calibration.empty())
    return fail("--calibration-inputs applies to --precision int8",
                tools::kUsage);
  if (!needsCompiling(classifyModelFile(modelPath)))
    return fail(modelPath + ": opscope-bench compiles the grid from an ONNX "
                            "model (.onnx or .onnxtext)",
                tools::kUsage);
  if (!fs::exists(modelPath))
    return fail(modelPath + ": no such file");
  if (compareOrt && !fs::exists(ortRunner))
    return fail("--compare-ort: the ONNX Runtime runner " + ortRunner +
                " does not exist (give --ort-runner)");
  if (workDir.empty())
    workDir = defaultCacheDir();
  std::error_code ec;
  fs::create_directories(fs::path(workDir) / "bench-inputs", ec);
  if (ec)
    return fail(workDir + ": " + ec.message());
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      return fail("--cpu " + std::to_string(cpu) + ": " + std::strerror(errno),
                  tools::kUsage);
  }
  rt::setDenseThreads(threads);

  // The grid, compiled.
  std::vector<Cell> cells;
  for (const std::string &p : precisions)
    for (int64_t b : batches)
      for (int64_t s : seqs) {
        Cell c;
        c.precision = p;
        c.batch = b;
        c.seq = s;
        for (const Template &t : parsed)
          c.shapes.push_back(t.shape(b, s));
        cells.push_back(std::move(c));
      }
  try {
    tools::Progress compiling("opscope-bench: compiling", cells.size());
    size_t done = 0;
    for (Cell &c : cells) {
      CompileRequest request;
      request.model = modelPath;
      request.inputShapes = c.shapes;
      request.noProbes = true;
      request.extraFlags = {"--precision", c.precision};
      if (c.precision == "int8") {
        request.extraFlags.push_back("--calibration-inputs");
        request.extraFlags.push_back(calibration);
      }
      std::string error;
      c.library = compileIntoCache(request, workDir, error);
      if (c.library.empty())
        return fail(error);
      c.model = Model::load(c.library);
      compiling.update(++done, c.precision + " batch " +
                                   std::to_string(c.batch) +
                                   (c.seq ? " seq " + std::to_string(c.seq)
                                          : ""));
    }
    compiling.finish();

    // Inputs: random, from one seed per shape, shared by every precision
    // and by ONNX Runtime (as .npy files).
    std::map<std::string, std::vector<rt::HostTensor>> byShape;
    std::map<std::string, std::vector<std::string>> filesByShape;
    for (Cell &c : cells) {
      for (const std::string &s : c.shapes)
        c.shapeKey += s + ";";
      const std::string &key = c.shapeKey;
      if (!byShape.count(key)) {
        std::mt19937_64 rng(0);
        std::string dir = (fs::path(workDir) / "bench-inputs" /
                           std::to_string(std::hash<std::string>()(
                               fs::absolute(modelPath).string() + key)))
                              .string();
        fs::create_directories(dir);
        for (const TensorInfo &info : c.model->inputs()) {
          rt::HostTensor t = randomTensor(info, rng, intMax);
          std::string file = (fs::path(dir) / (info.name + ".npy")).string();
          rt::writeNpy(file, t);
          filesByShape[key].push_back(info.name + "=" + file);
          byShape[key].push_back(std::move(t));
        }
      }
      c.inputs = byShape[key];
      c.inputFiles = filesByShape[key];
      c.session = c.model->createSession();
      for (size_t i = 0; i < c.inputs.size(); ++i)
        if (!c.inputs[i].data.empty())
          std::memcpy(c.session->input(i), c.inputs[i].data.data(),
                      c.inputs[i].data.size());
      for (const std::string &k : c.session->kernelNames())
        if (k.find("amx") != std::string::npos)
          c.kernel = "amx";
    }

    // Rounds: every cell once per round; ONNX Runtime after each cell of
    // fp32's shapes (it runs fp32 only; the other precisions compare with
    // it).
    std::map<std::string, std::vector<double>> ortByShape;
    size_t steps = static_cast<size_t>(rounds) * cells.size();
    tools::Progress running("opscope-bench: running", steps);
    size_t step = 0;
    for (int r = 0; r < rounds; ++r) {
      std::map<std::string, bool> ortDone;
      for (Cell &c : cells) {
        BenchmarkConfig config;
        config.warmup = warmup;
        config.iterations = iterations;
        BenchmarkResult result = runBenchmark({c.session.get()}, config);
        c.ours.push_back(median(result.allMs()));
        const std::string &key = c.shapeKey;
        if (compareOrt && !ortDone[key]) {
          ortDone[key] = true;
          std::vector<std::string> args;
          if (cpu >= 0)
            args = {"taskset", "-c", std::to_string(cpu)};
          args.insert(args.end(), {"node", ortRunner, modelPath});
          for (const std::string &f : c.inputFiles) {
            args.push_back("--input");
            args.push_back(f);
          }
          args.insert(args.end(),
                      {"--iterations", std::to_string(iterations), "--warmup",
                       std::to_string(warmup), "--threads",
                       std::to_string(threads)});
          std::string out;
          int rc = tools::runCapture(args, out);
          if (rc != 0)
            return fail("--compare-ort: ONNX Runtime failed on " + modelPath +
                        " (" + (rc < 0 ? "could not start node" : "exit " + std::to_string(rc)) +
                        "; its messages are above)");
          std::string last = out.substr(out.rfind('{'));
          nlohmann::json j = nlohmann::json::parse(last, nullptr, false);
          if (j.is_discarded() || !j.contains("median"))
            return fail("--compare-ort: unexpected output from " + ortRunner +
                        ": " + out);
          ortByShape[key].push_back(j["median"].get<double>());
        }
        running.update(++step, c.precision + " batch " +
                                   std::to_string(c.batch) + " round " +
                                   std::to_string(r + 1));
      }
    }
    running.finish();

    // The table and the CSV.
    bool amxUsed = false;
    for (const Cell &c : cells)
      amxUsed |= c.kernel == "amx";
    std::cout << "opscope-bench: " << fs::path(modelPath).filename().string()
              << "; CPU " << cpuModelName() << ", AMX "
              << (cpuHasAmx() ? (amxUsed ? "used" : "available, not used")
                              : "not available")
              << "; " << threads << " thread" << (threads == 1 ? "" : "s")
              << (cpu >= 0 ? " pinned to CPU " + std::to_string(cpu) : "")
              << "; " << rounds << " rounds of " << iterations
              << " runs (medians of round medians)\n";
    std::ostringstream csv;
    csv << "model,precision,batch,seq,shapes,opscope_ms,opscope_round_min_ms,"
           "opscope_round_max_ms,samples_per_s,ort_ms,ratio,ratio_min,"
           "ratio_max,rounds,iterations,threads,cpu,amx_used,cpu_model\n";
    std::cout << std::left << std::setw(10) << "precision" << std::right
              << std::setw(7) << "batch" << std::setw(7) << "seq"
              << std::setw(13) << "opscope ms" << std::setw(12) << "samples/s";
    if (compareOrt)
      std::cout << std::setw(11) << "ORT ms" << std::setw(22)
                << "opscope/ORT [spread]";
    std::cout << "\n";
    for (const Cell &c : cells) {
      const std::string &key = c.shapeKey;
      double ours = median(c.ours);
      double perSecond = ours > 0 ? 1000.0 * c.batch / ours : 0;
      std::vector<double> ratios;
      if (compareOrt)
        for (size_t r = 0; r < c.ours.size(); ++r)
          ratios.push_back(c.ours[r] / ortByShape[key][r]);
      std::cout << std::left << std::setw(10) << c.precision << std::right
                << std::setw(7) << c.batch << std::setw(7)
                << (c.seq ? std::to_string(c.seq) : "-") << std::setw(13)
                << fixed(ours, 3) << std::setw(12) << fixed(perSecond, 1);
      std::string shapes;
      for (const std::string &s : c.shapes)
        shapes += (shapes.empty() ? "" : " ") + s;
      csv << csvField(fs::path(modelPath).filename().string()) << ","
          << c.precision << "," << c.batch << ","
          << (c.seq ? std::to_string(c.seq) : "") << "," << csvField(shapes)
          << "," << fixed(ours, 4) << ","
          << fixed(*std::min_element(c.ours.begin(), c.ours.end()), 4) << ","
          << fixed(*std::max_element(c.ours.begin(), c.ours.end()), 4) << ","
          << fixed(perSecond, 2) << ",";
      if (compareOrt) {
        double ort = median(ortByShape[key]);
        double ratio = median(ratios);
        auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
        std::cout << std::setw(11) << fixed(ort, 3) << std::setw(9)
                  << fixed(ratio, 2) << "x [" << fixed(*lo, 2) << "-"
                  << fixed(*hi, 2) << "]";
        csv << fixed(ort, 4) << "," << fixed(ratio, 4) << "," << fixed(*lo, 4)
            << "," << fixed(*hi, 4);
      } else {
        csv << ",,,";
      }
      csv << "," << rounds << "," << iterations << "," << threads << ","
          << (cpu >= 0 ? std::to_string(cpu) : "") << ","
          << (c.kernel == "amx" ? "true" : "false") << ","
          << csvField(cpuModelName()) << "\n";
      std::cout << "\n";
    }
    if (compareOrt)
      std::cout << "(ONNX Runtime runs fp32 on the same model and inputs in "
                   "every round; each ratio is opscope's round median over "
                   "ONNX Runtime's, [spread] their range over rounds)\n";

    std::string csvFile = csvPath;
    if (csvFile.empty() && !htmlPath.empty())
      csvFile = (fs::path(workDir) / "bench-last.csv").string();
    if (!csvFile.empty()) {
      if (std::string err = tools::writeFileAtomically(csvFile, csv.str());
          !err.empty())
        return fail(err);
      if (!csvPath.empty())
        std::cout << "wrote " << csvPath << "\n";
    }
    if (!htmlPath.empty()) {
      std::string report = tools::siblingTool("opscope-report");
      std::string out;
      int rc = tools::runCapture({report, "--bench", csvFile, "-o", htmlPath}, out);
      if (rc != 0)
        return fail("--html: opscope-report could not write " + htmlPath);
      std::cout << out;
    }
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  return 0;
}
