//===- BenchTool.cpp - opscope-bench's flags and grid ---------------------===//
//
// Part of opscope (docs/benchmark-modes.md, "opscope-bench"). MegEngine's
// load_and_run sweeps its run settings; this sweeps what a model is
// compiled for: batch sizes, sequence lengths and precisions, and the
// kernel threads it runs with (the scaling curve). Each cell is
// compiled (into the compile cache), then all cells run in rounds, and with
// --compare-ort ONNX Runtime runs the same shapes in the same rounds, so
// the ratios compare systems under the same host load. It prints a table
// and writes a CSV and, through opscope-report, an HTML chart.
//
//===----------------------------------------------------------------------===//

#include "BenchTool.h"

#include "Progress.h"
#include "Subprocess.h"
#include "ToolCommon.h"

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/dense.h"
#include "opscope/runtime/file_output.h"
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
using opscope::tools::bench::Options;
namespace fs = std::filesystem;

#ifndef OPSCOPE_ORT_RUNNER
#define OPSCOPE_ORT_RUNNER "scripts/ort_run.js"
#endif

namespace {
const opscope::tools::ErrorReporter fail{"opscope-bench"};

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

/// One cell of the grid.
struct Cell {
  std::string precision;
  int64_t batch = 1, seq = 0;
  int threads = 1;
  std::vector<std::string> shapes; // NAME=DIMS
  std::string library, kernel;
  std::string shapeKey; // the shapes, joined: cells that share inputs
  std::unique_ptr<Model> model;
  std::unique_ptr<Session> session; // created once, inputs written once
  std::vector<rt::HostTensor> inputs;
  std::vector<std::string> inputFiles; // NAME=FILE.npy, for ONNX Runtime
  std::vector<double> ours;            // round medians, ms
  std::vector<double> ort;             // ONNX Runtime, same rounds
  /// What ONNX Runtime's runs of this cell are filed under: the shapes and
  /// the threads (every precision compares with the same fp32 run).
  std::string ortKey() const { return shapeKey + "@" + std::to_string(threads); }
};

/// ONNX Runtime's round medians (ms) by Cell::ortKey.
using MsByShape = std::map<std::string, std::vector<double>>;

bool manyThreadCounts(const Options &o) { return o.threads.size() > 1; }

// The steps of run(). Those returning an int return -1 to go on, else the
// exit code (the message printed).

/// Parses the templates into `parsed` and checks the flags against each
/// other and the files they name; --seq defaults to {0} when no template
/// uses S.
int checkOptions(Options &o, std::vector<Template> &parsed) {
  bool usesS = false;
  for (const std::string &t : o.templates) {
    Template tpl;
    if (std::string err = parseTemplate(t, tpl); !err.empty())
      return fail(err, tools::kUsage);
    usesS |= std::count(tpl.dims.begin(), tpl.dims.end(), "S") > 0;
    parsed.push_back(tpl);
  }
  if (usesS && o.seqs.empty())
    return fail("--seq is needed: a template uses S", tools::kUsage);
  if (!usesS && !o.seqs.empty())
    return fail("--seq: no --input-shape-template uses S", tools::kUsage);
  if (o.seqs.empty())
    o.seqs = {0};
  bool int8 = std::count(o.precisions.begin(), o.precisions.end(), "int8") > 0;
  if (int8 && o.calibration.empty())
    return fail("--precision int8 needs --calibration-inputs DIR (or "
                "'random', explicitly)",
                tools::kUsage);
  if (!int8 && !o.calibration.empty())
    return fail("--calibration-inputs applies to --precision int8",
                tools::kUsage);
  if (o.cpu >= 0 &&
      std::any_of(o.threads.begin(), o.threads.end(),
                  [](int t) { return t > 1; }))
    return fail("--cpu pins every thread to one CPU: use it with --threads "
                "1 (for more threads, pin the whole run with taskset -c)",
                tools::kUsage);
  if (!needsCompiling(classifyModelFile(o.modelPath)))
    return fail(o.modelPath + ": opscope-bench compiles the grid from an ONNX "
                              "model (.onnx or .onnxtext)",
                tools::kUsage);
  if (!fs::exists(o.modelPath))
    return fail(o.modelPath + ": no such file");
  if (o.compareOrt && !fs::exists(o.ortRunner))
    return fail("--compare-ort: the ONNX Runtime runner " + o.ortRunner +
                " does not exist (give --ort-runner)");
  return -1;
}

/// The work directory (default the compile cache) with its bench-inputs
/// and the --cpu pinning (each cell sets its kernel threads).
int setUp(Options &o) {
  if (o.workDir.empty())
    o.workDir = defaultCacheDir();
  std::error_code ec;
  fs::create_directories(fs::path(o.workDir) / "bench-inputs", ec);
  if (ec)
    return fail(o.workDir + ": " + ec.message());
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      return fail("--cpu " + std::to_string(o.cpu) + ": " +
                      std::strerror(errno),
                  tools::kUsage);
  }
  return -1;
}

/// The grid: every precision x batch x sequence length x thread count
/// (threads innermost: a scaling curve is consecutive rows).
std::vector<Cell> gridCells(const Options &o,
                            const std::vector<Template> &parsed) {
  std::vector<Cell> cells;
  for (const std::string &p : o.precisions)
    for (int64_t b : o.batches)
      for (int64_t s : o.seqs)
        for (int threads : o.threads) {
          Cell c;
          c.precision = p;
          c.batch = b;
          c.seq = s;
          c.threads = threads;
          for (const Template &t : parsed)
            c.shapes.push_back(t.shape(b, s));
          cells.push_back(std::move(c));
        }
  return cells;
}

/// Compiles every cell into the work directory and loads it.
int compileCells(const Options &o, std::vector<Cell> &cells) {
  tools::Progress compiling("opscope-bench: compiling", cells.size());
  size_t done = 0;
  for (Cell &c : cells) {
    CompileRequest request;
    request.model = o.modelPath;
    request.inputShapes = c.shapes;
    request.noProbes = true;
    request.extraFlags = {"--precision", c.precision};
    if (c.precision == "int8") {
      request.extraFlags.push_back("--calibration-inputs");
      request.extraFlags.push_back(o.calibration);
    }
    std::string error;
    c.library = compileIntoCache(request, o.workDir, error);
    if (c.library.empty())
      return fail(error);
    c.model = Model::load(c.library);
    compiling.update(++done, c.precision + " batch " +
                                 std::to_string(c.batch) +
                                 (c.seq ? " seq " + std::to_string(c.seq)
                                        : ""));
  }
  compiling.finish();
  return -1;
}

/// Inputs: random, from one seed per shape, shared by every precision
/// and by ONNX Runtime (as .npy files); each cell's session is created
/// (under its kernel threads) and its inputs written once.
void prepareInputs(const Options &o, std::vector<Cell> &cells) {
  std::map<std::string, std::vector<rt::HostTensor>> byShape;
  std::map<std::string, std::vector<std::string>> filesByShape;
  for (Cell &c : cells) {
    for (const std::string &s : c.shapes)
      c.shapeKey += s + ";";
    const std::string &key = c.shapeKey;
    if (!byShape.count(key)) {
      std::mt19937_64 rng(0);
      std::string dir = (fs::path(o.workDir) / "bench-inputs" /
                         std::to_string(std::hash<std::string>()(
                             fs::absolute(o.modelPath).string() + key)))
                            .string();
      fs::create_directories(dir);
      for (const TensorInfo &info : c.model->inputs()) {
        rt::HostTensor t = randomTensor(info, rng, o.intMax);
        std::string file = (fs::path(dir) / (info.name + ".npy")).string();
        rt::writeNpy(file, t);
        filesByShape[key].push_back(info.name + "=" + file);
        byShape[key].push_back(std::move(t));
      }
    }
    c.inputs = byShape[key];
    c.inputFiles = filesByShape[key];
    // oneDNN plans a primitive for the threads in force when it is created:
    // the session of a cell is created with the threads it runs with.
    rt::setDenseThreads(c.threads);
    c.session = c.model->createSession();
    for (size_t i = 0; i < c.inputs.size(); ++i)
      if (!c.inputs[i].data.empty())
        std::memcpy(c.session->input(i), c.inputs[i].data.data(),
                    c.inputs[i].data.size());
    for (const std::string &k : c.session->kernelNames())
      if (k.find("amx") != std::string::npos)
        c.kernel = "amx";
  }
}

/// Runs ONNX Runtime (node on --ort-runner) on `c`'s shapes and inputs once
/// with `c`'s threads, adding its median to `ortByShape`.
int runOrt(const Options &o, const Cell &c, MsByShape &ortByShape) {
  const std::string key = c.ortKey();
  std::vector<std::string> args;
  if (o.cpu >= 0)
    args = {"taskset", "-c", std::to_string(o.cpu)};
  args.insert(args.end(), {"node", o.ortRunner, o.modelPath});
  for (const std::string &f : c.inputFiles) {
    args.push_back("--input");
    args.push_back(f);
  }
  args.insert(args.end(),
              {"--iterations", std::to_string(o.iterations), "--warmup",
               std::to_string(o.warmup), "--threads",
               std::to_string(c.threads)});
  std::string out;
  int rc = tools::runCapture(args, out);
  if (rc != 0)
    return fail("--compare-ort: ONNX Runtime failed on " + o.modelPath +
                " (" + (rc < 0 ? "could not start node" : "exit " + std::to_string(rc)) +
                "; its messages are above)");
  std::string last = out.substr(out.rfind('{'));
  nlohmann::json j = nlohmann::json::parse(last, nullptr, false);
  if (j.is_discarded() || !j.contains("median"))
    return fail("--compare-ort: unexpected output from " + o.ortRunner +
                ": " + out);
  ortByShape[key].push_back(j["median"].get<double>());
  return -1;
}

/// Rounds: every cell once per round, with its kernel threads; ONNX
/// Runtime after the first cell of each shape and thread count (it runs
/// fp32 only; the other precisions compare with it).
int runRounds(const Options &o, std::vector<Cell> &cells,
              MsByShape &ortByShape) {
  size_t steps = static_cast<size_t>(o.rounds) * cells.size();
  tools::Progress running("opscope-bench: running", steps);
  size_t step = 0;
  for (int r = 0; r < o.rounds; ++r) {
    std::map<std::string, bool> ortDone;
    for (Cell &c : cells) {
      rt::setDenseThreads(c.threads);
      BenchmarkConfig config;
      config.warmup = o.warmup;
      config.iterations = o.iterations;
      BenchmarkResult result = runBenchmark({c.session.get()}, config);
      c.ours.push_back(median(result.allMs()));
      const std::string key = c.ortKey();
      if (o.compareOrt && !ortDone[key]) {
        ortDone[key] = true;
        if (int code = runOrt(o, c, ortByShape); code >= 0)
          return code;
      }
      running.update(++step, c.precision + " batch " +
                                 std::to_string(c.batch) + " round " +
                                 std::to_string(r + 1));
    }
  }
  running.finish();
  return -1;
}

/// --threads as given: "1", "2" or "1,2".
std::string threadList(const Options &o) {
  std::string s;
  for (int t : o.threads)
    s += (s.empty() ? "" : ",") + std::to_string(t);
  return s;
}

/// The line naming the model, the CPU, AMX, the threads and the rounds.
void printHeading(const Options &o, const std::vector<Cell> &cells) {
  bool amxUsed = false;
  for (const Cell &c : cells)
    amxUsed |= c.kernel == "amx";
  std::cout << "opscope-bench: " << fs::path(o.modelPath).filename().string()
            << "; CPU " << rt::hostCpu().model << ", AMX "
            << (cpuHasAmx() ? (amxUsed ? "used" : "available, not used")
                            : "not available")
            << "; " << threadList(o) << " thread"
            << (o.threads.size() == 1 && o.threads[0] == 1 ? "" : "s")
            << (o.cpu >= 0 ? " pinned to CPU " + std::to_string(o.cpu) : "")
            << "; " << o.rounds << " rounds of " << o.iterations
            << " runs (medians of round medians)\n";
}

/// Prints the table of the grid: the same grid as CSV.
std::string printGrid(const Options &o, const std::vector<Cell> &cells,
                      MsByShape &ortByShape) {
  std::ostringstream csv;
  csv << "model,precision,batch,seq,shapes,opscope_ms,opscope_round_min_ms,"
         "opscope_round_max_ms,samples_per_s,ort_ms,ratio,ratio_min,"
         "ratio_max,rounds,iterations,threads,cpu,amx_used,cpu_model,"
         "speedup\n";
  const bool scaling = manyThreadCounts(o);
  std::cout << std::left << std::setw(10) << "precision" << std::right
            << std::setw(7) << "batch" << std::setw(7) << "seq";
  if (scaling)
    std::cout << std::setw(9) << "threads";
  std::cout << std::setw(13) << "opscope ms" << std::setw(12) << "samples/s";
  if (scaling)
    std::cout << std::setw(24) << "speedup [spread]";
  if (o.compareOrt)
    std::cout << std::setw(11) << "ORT ms" << std::setw(22)
              << "opscope/ORT [spread]";
  std::cout << "\n";
  const Cell *base = nullptr; // the first thread count's cell of this shape
  for (const Cell &c : cells) {
    const std::string key = c.ortKey();
    if (c.threads == o.threads.front())
      base = &c;
    // Speedup over the first --threads count, round by round.
    std::vector<double> speedups;
    for (size_t r = 0; r < c.ours.size(); ++r)
      speedups.push_back(base->ours[r] / c.ours[r]);
    double ours = median(c.ours);
    double perSecond = ours > 0 ? 1000.0 * c.batch / ours : 0;
    std::vector<double> ratios;
    if (o.compareOrt)
      for (size_t r = 0; r < c.ours.size(); ++r)
        ratios.push_back(c.ours[r] / ortByShape[key][r]);
    std::cout << std::left << std::setw(10) << c.precision << std::right
              << std::setw(7) << c.batch << std::setw(7)
              << (c.seq ? std::to_string(c.seq) : "-");
    if (scaling)
      std::cout << std::setw(9) << c.threads;
    std::cout << std::setw(13) << fixed(ours, 3) << std::setw(12)
              << fixed(perSecond, 1);
    if (scaling) {
      auto [lo, hi] = std::minmax_element(speedups.begin(), speedups.end());
      std::cout << std::setw(12) << fixed(median(speedups), 2) << "x ["
                << fixed(*lo, 2) << "-" << fixed(*hi, 2) << "]";
    }
    std::string shapes;
    for (const std::string &s : c.shapes)
      shapes += (shapes.empty() ? "" : " ") + s;
    csv << csvField(fs::path(o.modelPath).filename().string()) << ","
        << c.precision << "," << c.batch << ","
        << (c.seq ? std::to_string(c.seq) : "") << "," << csvField(shapes)
        << "," << fixed(ours, 4) << ","
        << fixed(*std::min_element(c.ours.begin(), c.ours.end()), 4) << ","
        << fixed(*std::max_element(c.ours.begin(), c.ours.end()), 4) << ","
        << fixed(perSecond, 2) << ",";
    if (o.compareOrt) {
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
    csv << "," << o.rounds << "," << o.iterations << "," << c.threads << ","
        << (o.cpu >= 0 ? std::to_string(o.cpu) : "") << ","
        << (c.kernel == "amx" ? "true" : "false") << ","
        << csvField(rt::hostCpu().model) << ","
        << (scaling ? fixed(median(speedups), 4) : "") << "\n";
    std::cout << "\n";
  }
  if (o.compareOrt)
    std::cout << "(ONNX Runtime runs fp32 on the same model and inputs in "
                 "every round; each ratio is opscope's round median over "
                 "ONNX Runtime's, [spread] their range over rounds)\n";
  if (scaling)
    std::cout << "(speedup: the first --threads count's round median over "
                 "this one's; ONNX Runtime runs with the same threads)\n";
  return csv.str();
}

/// Writes the CSV (to --csv, or next to the compiled models for --html
/// alone) and the HTML chart through opscope-report.
int writeOutputs(const Options &o, const std::string &csv) {
  std::string csvFile = o.csvPath;
  if (csvFile.empty() && !o.htmlPath.empty())
    csvFile = (fs::path(o.workDir) / "bench-last.csv").string();
  if (!csvFile.empty()) {
    if (std::string err = writeFileAtomically(csvFile, csv);
        !err.empty())
      return fail(err);
    if (!o.csvPath.empty())
      std::cout << "wrote " << o.csvPath << "\n";
  }
  if (!o.htmlPath.empty()) {
    std::string report = tools::siblingTool("opscope-report");
    std::string out;
    int rc = tools::runCapture({report, "--bench", csvFile, "-o", o.htmlPath}, out);
    if (rc != 0)
      return fail("--html: opscope-report could not write " + o.htmlPath);
    std::cout << out;
  }
  return -1;
}
} // namespace

namespace opscope::tools::bench {

std::string defaultOrtRunner() { return OPSCOPE_ORT_RUNNER; }

void addOptions(CLI::App &app, Options &o) {
  app.add_option("model", o.modelPath, "ONNX model (.onnx or .onnxtext)")
      ->required();
  app.add_option("--input-shape-template", o.templates,
                 "NAME=DIMS per input, dimensions separated by x: a number, "
                 "B (each --batch) or S (each --seq), e.g. "
                 "input_ids=BxS; several separated by commas or given "
                 "again")
      ->required()
      ->delimiter(',');
  app.add_option("--batch", o.batches, "batch sizes, e.g. 1,8 (default 1)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--seq", o.seqs, "sequence lengths, e.g. 32,128 (needed when "
                                  "a template uses S)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--precision", o.precisions,
                 "precisions to compile for (default fp32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "int8"}));
  app.add_option("--calibration-inputs", o.calibration,
                 "with int8: opscope-compile's --calibration-inputs (a "
                 "directory of input sets, or 'random' explicitly)");
  app.add_flag("--compare-ort", o.compareOrt,
               "run ONNX Runtime fp32 (npm onnxruntime-node) on the same "
               "shapes and inputs, alternating with opscope in every round");
  app.add_option("--ort-runner", o.ortRunner,
                 "the ONNX Runtime runner script (default: the source "
                 "tree's scripts/ort_run.js)");
  app.add_option("--rounds", o.rounds, "rounds over the grid (default 3)")
      ->check(tools::positiveInteger());
  app.add_option("--iterations", o.iterations,
                 "timed runs per cell and round (default 10)")
      ->check(tools::positiveInteger());
  app.add_option("--warmup", o.warmup, "untimed runs first (default 2)")
      ->check(tools::nonNegativeInteger());
  app.add_option("--threads", o.threads,
                 "kernel threads (default 1); several, e.g. 1,2, make a "
                 "scaling curve: each runs as its own cell, with its "
                 "speedup over the first")
      ->delimiter(',')
      ->check(tools::positiveInteger());
  app.add_option("--cpu", o.cpu,
                 "pin opscope and ONNX Runtime to this CPU (with --threads "
                 "1)")
      ->check(tools::nonNegativeInteger());
  app.add_option("--int-max", o.intMax,
                 "random integer inputs lie in [0, N) (default 2: valid "
                 "ids, masks and token types)")
      ->check(tools::positiveInteger());
  app.add_option("--csv", o.csvPath, "write the grid as CSV");
  app.add_option("--html", o.htmlPath,
                 "write an HTML chart of the grid (opscope-report --bench)");
  app.add_option("--work", o.workDir,
                 "where compiled models and inputs go (default: the compile "
                 "cache, $OPSCOPE_CACHE_DIR or ~/.cache/opscope/compiled)");
}

int run(const CLI::App &, Options &o) {
  std::vector<Template> parsed;
  if (int code = checkOptions(o, parsed); code >= 0)
    return code;
  if (int code = setUp(o); code >= 0)
    return code;
  std::vector<Cell> cells = gridCells(o, parsed);
  try {
    if (int code = compileCells(o, cells); code >= 0)
      return code;
    prepareInputs(o, cells);
    MsByShape ortByShape;
    if (int code = runRounds(o, cells, ortByShape); code >= 0)
      return code;
    printHeading(o, cells);
    std::string csv = printGrid(o, cells, ortByShape);
    if (int code = writeOutputs(o, csv); code >= 0)
      return code;
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  return 0;
}

} // namespace opscope::tools::bench
