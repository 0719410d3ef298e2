//===- RunTool.cpp - opscope-run's flags and modes ------------------------===//
//
// Part of opscope. Loads model.so + model.weights (or compiles an .onnx
// into a cache by running opscope-compile), feeds inputs (.npy / .pb /
// random), checks outputs against expected ones, measures latency and,
// with --profile, writes the trace, the per-op CSV and a terminal summary.
// Also the accuracy (--compare-to) and calibration (--calibrate) modes.
// The measuring is the runtime tooling library's (opscope/runtime/tooling).
//
//===----------------------------------------------------------------------===//

#include "RunTool.h"

#include "Calibrate.h"
#include "Progress.h"
#include "TensorFiles.h"
#include "ToolCommon.h"

#include "opscope/runtime/file_output.h"
#include "opscope/runtime/dense.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/text.h"
#include "opscope/runtime/tooling/benchmark.h"
#include "opscope/runtime/tooling/compare.h"
#include "opscope/runtime/tooling/memory.h"
#include "opscope/runtime/tooling/model_files.h"
#include "opscope/runtime/tooling/threads.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::tooling;
namespace fs = std::filesystem;

namespace {
const opscope::tools::ErrorReporter fail{"opscope-run"};

/// The exit code of a run that ended early (the error is printed).
struct RunEnded {
  int code;
};

/// Ends the run: the flag checks and errors below stop where they are, and
/// run() returns the code.
[[noreturn]] void die(const std::string &msg, int code = 1) {
  throw RunEnded{fail(msg, code)};
}

std::pair<std::string, std::string> splitSpec(const std::string &spec,
                                              const char *flag) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    die(std::string(flag) + " expects NAME=FILE, got '" + spec + "'", 2);
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

std::string describe(DType t, const Shape &s) {
  TensorInfo i;
  i.dtype = t;
  i.shape = s;
  return i.describe();
}

/// Input sets for --compare-to and --calibrate --inputs DIR (tooling's
/// readInputSets); a bad directory ends the run naming the flag.
std::vector<std::vector<HostTensor>> readInputSets(const std::string &dir,
                                                   const Model &model) {
  std::vector<std::vector<HostTensor>> out;
  std::string error = tooling::readInputSets(dir, model, out);
  if (!error.empty())
    die("--inputs: " + error, error.find("is not a directory") !=
                                      std::string::npos
                                  ? 2
                                  : 1);
  return out;
}

/// --compare-to: runs `a` and `b` on the same input sets and prints, per
/// output, the error maxima, the cosine and top-1 agreement. Returns the
/// exit code: 1 when an output's lowest cosine is below `minCosine`.
int compareModels(const std::string &aPath, const Model &a,
                  const std::string &bPath, const Model &b,
                  const std::vector<std::vector<HostTensor>> &sets,
                  const std::string &source, double minCosine) {
  auto sameTensors = [&](const std::vector<TensorInfo> &x,
                         const std::vector<TensorInfo> &y, const char *what) {
    if (x.size() != y.size())
      die(std::string("--compare-to: the models have different ") + what +
          " (" + std::to_string(x.size()) + " and " +
          std::to_string(y.size()) + ")");
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].name != y[i].name || x[i].shape != y[i].shape ||
          x[i].dtype != y[i].dtype)
        die(std::string("--compare-to: ") + what + " " +
            std::to_string(i) + " differs: '" + x[i].name + "' " +
            x[i].describe() + " in " + aPath + ", '" + y[i].name + "' " +
            y[i].describe() + " in " + bPath);
  };
  sameTensors(a.inputs(), b.inputs(), "inputs");
  sameTensors(a.outputs(), b.outputs(), "outputs");
  auto sa = a.createSession(0), sb = b.createSession(0);
  std::vector<AccuracyStats> stats(a.outputs().size());
  opscope::tools::Progress progress("opscope-run: comparing", sets.size());
  size_t done = 0;
  for (const auto &set : sets) {
    for (size_t i = 0; i < set.size(); ++i) {
      std::memcpy(sa->input(i), set[i].data.data(), set[i].data.size());
      std::memcpy(sb->input(i), set[i].data.data(), set[i].data.size());
    }
    sa->run();
    sb->run();
    for (size_t o = 0; o < stats.size(); ++o) {
      const TensorInfo &info = a.outputs()[o];
      Shape shape = sa->outputShape(o);
      if (sb->outputShape(o) != shape)
        die("--compare-to: output '" + info.name + "' is " +
            describe(info.dtype, shape) + " in " + aPath + " but " +
            describe(info.dtype, sb->outputShape(o)) + " in " + bPath);
      int64_t n = numElements(shape);
      stats[o].add(asDoubles(info.dtype, sa->output(o), n),
                   asDoubles(info.dtype, sb->output(o), n),
                   shape.empty() ? 1 : shape.back());
    }
    progress.update(++done, "input sets");
  }
  progress.finish();
  std::cout << "accuracy: " << aPath << " against " << bPath << ", "
            << sets.size() << " input sets (" << source << ")\n";
  std::cout << std::left << std::setw(24) << "output" << std::right
            << std::setw(13) << "max_abs" << std::setw(13) << "max_rel"
            << std::setw(14) << "cosine_min" << std::setw(14)
            << "cosine_mean" << std::setw(12) << "top1_agree" << "\n";
  int code = 0;
  for (size_t o = 0; o < stats.size(); ++o) {
    const AccuracyStats &s = stats[o];
    std::ostringstream top1;
    if (s.top1() >= 0)
      top1 << std::fixed << std::setprecision(4) << s.top1();
    else
      top1 << "-";
    std::cout << std::left << std::setw(24) << a.outputs()[o].name
              << std::right << std::setw(13) << std::setprecision(4)
              << s.maxAbs << std::setw(13) << s.maxRel << std::setw(14)
              << std::setprecision(7) << s.minCosine << std::setw(14)
              << s.meanCosine() << std::setw(12) << top1.str()
              << std::setprecision(6) << "\n";
    if (s.minCosine < minCosine) {
      std::cout << "output " << a.outputs()[o].name << ": lowest cosine "
                << std::setprecision(9) << s.minCosine
                << " is below --min-cosine " << minCosine
                << std::setprecision(6)
                << "\n";
      code = 1;
    }
  }
  return code;
}

using opscope::writeFileAtomically;
using opscope::tools::run::Options;

/// The usage rules between --mode, --instances, --compare-to, --calibrate
/// and their input sets; fills in the mode when --mode is not given.
void checkModes(const CLI::App &app, Options &o) {
  if (!o.tracePath.empty() || !o.csvPath.empty())
    o.profile = true;
  bool modeGiven = app.count("--mode") > 0;
  // --instances > 1 without --mode keeps its old meaning: throughput.
  if (!modeGiven)
    o.mode = o.instances > 1 || o.coresPerInstance > 0 ? "throughput"
                                                       : "latency";
  if (o.mode == "latency" && o.instances > 1)
    die("--instances " + std::to_string(o.instances) +
            " needs --mode throughput (latency mode runs one instance)",
        2);
  if (o.mode != "throughput" && o.coresPerInstance > 0)
    die("--cores-per-instance needs --mode throughput", 2);
  if (o.mode == "accuracy" && o.compareTo.empty())
    die("--mode accuracy needs --compare-to OTHER (the model to compare "
        "with)",
        2);
  if (!o.compareTo.empty() && modeGiven && o.mode != "accuracy")
    die("--compare-to is accuracy mode; it does not combine with --mode " +
            o.mode,
        2);
  if (o.mode == "throughput" && o.threads > 0 && o.coresPerInstance > 0)
    die("--threads and --cores-per-instance exclude each other (a pinned "
        "instance runs one kernel thread per core)",
        2);
  if ((!o.inputsDir.empty() || o.randomSets > 0) && o.compareTo.empty() &&
      o.calibratePath.empty())
    die(std::string(o.inputsDir.empty() ? "--random" : "--inputs") +
            " needs --compare-to or --calibrate",
        2);
  if (!o.inputsDir.empty() && o.randomSets > 0)
    die("--inputs and --random exclude each other", 2);
  if (!o.calibratePath.empty() && o.inputsDir.empty() && o.randomSets == 0)
    die("--calibrate needs --inputs DIR (representative inputs) or, "
        "explicitly, --random N",
        2);
}

/// The library for a model argument: .onnx/.onnxtext compiled into the
/// cache (with --input-shape and --no-fuse), .so as is.
std::string libraryFor(const std::string &path, const Options &o) {
  if (!needsCompiling(classifyModelFile(path)))
    return path;
  CompileRequest request;
  request.model = path;
  request.inputShapes = o.shapes;
  request.noFuse = o.noFuse;
  std::string error;
  std::string so = compileIntoCache(request, defaultCacheDir(), error);
  if (so.empty())
    die(error);
  return so;
}

/// The input sets of --compare-to and --calibrate: --inputs DIR, or
/// --random N (8 by default) drawn from --seed. `source` says which.
std::vector<std::vector<HostTensor>> makeSets(const Model &model,
                                              const Options &o,
                                              std::string &source) {
  if (!o.inputsDir.empty()) {
    source = o.inputsDir;
    return readInputSets(o.inputsDir, model);
  }
  std::vector<std::vector<HostTensor>> sets;
  int n = o.randomSets > 0 ? o.randomSets : 8;
  std::mt19937_64 rng(o.seed);
  for (int s = 0; s < n; ++s) {
    std::vector<HostTensor> set;
    for (const TensorInfo &info : model.inputs())
      set.push_back(randomTensor(info, rng, o.intMax));
    sets.push_back(std::move(set));
  }
  source = "random, seed " + std::to_string(o.seed) + ", int-max " +
           std::to_string(o.intMax);
  return sets;
}

/// --calibrate: the input statistics of every inner product, written to
/// the calibration file whole or not at all.
int runCalibration(const Model &model, const Options &o) {
  setDenseThreads(o.threads > 0 ? o.threads : 1);
  std::string source;
  auto sets = makeSets(model, o, source);
  if (o.inputsDir.empty() && !o.quiet)
    std::cerr << "opscope-run: warning: calibrating on random inputs ("
              << source << "): int8 ranges from random data rarely "
              << "match real inputs; use --inputs DIR\n";
  calibration::Calibration c = calibrate(model, sets, source);
  if (!writeFileAtomically(o.calibratePath, calibration::toText(c)).empty())
    die(o.calibratePath + ": cannot write the calibration");
  if (!o.quiet)
    std::cout << "opscope-run: calibrated the inputs of " << c.tensors.size()
              << " inner products and convolutions over " << c.sets
              << " input set" << (c.sets == 1 ? "" : "s") << " (" << source
              << "): " << o.calibratePath << "\n";
  return 0;
}

/// Chooses the kernel threads per instance and, in pinned throughput
/// mode, each instance's cores. Returns the note the summary prints.
std::string chooseThreads(const CLI::App &app, Options &o,
                          std::vector<std::vector<int>> &pinning) {
  std::string note;
  // Pinned when asked for: --mode throughput or --cores-per-instance
  // (--instances alone runs unpinned, as before --mode existed).
  bool pin = app.count("--mode") > 0 || o.coresPerInstance > 0;
  if (o.mode == "throughput" && pin && o.threads == 0) {
    int per = o.coresPerInstance > 0 ? o.coresPerInstance : 1;
    std::vector<int> cpus = allowedCpus();
    if (app.count("--instances") == 0)
      o.instances = std::max<int>(1, static_cast<int>(cpus.size()) / per);
    bool shared = false;
    pinning = assignCores(cpus, o.instances, per, shared);
    o.threads = per;
    note = " (pinned: " + std::to_string(per) + " core" +
           (per == 1 ? "" : "s") + " per instance";
    if (shared)
      note += "; " + std::to_string(o.instances * per) + " cores needed, " +
              std::to_string(cpus.size()) + " allowed: instances share cores";
    note += ")";
  }
  // The default: the cores that are idle now, shared among instances.
  if (o.threads == 0) {
    CoreUsage usage = sampleCoreUsage();
    o.threads = std::max(1, defaultThreadCount(usage) / o.instances);
    note = " (default: " + std::to_string(usage.idle) + " of " +
           std::to_string(usage.allowed) + " cores idle)";
  }
  return note;
}

/// A probe buffer must hold one iteration (an event per probe and the
/// iteration's span), or the profile is empty rows; one that cannot hold
/// the whole run drops its later events: say what would.
void checkProbeBuffer(const Model &model, const Options &o) {
  if (!o.profile || o.probeCapacity == 0)
    return;
  size_t perIteration = model.probes().size() + 1;
  size_t runs = static_cast<size_t>(o.warmup) +
                static_cast<size_t>(std::max(o.iterations, 1));
  // ... and the run's two labelled spans ("warm up", "measure").
  size_t needed = perIteration * runs + 2;
  if (o.probeCapacity < perIteration)
    die("--probe-buffer " + std::to_string(o.probeCapacity) +
            " holds less than one iteration of this model (" +
            std::to_string(perIteration) +
            " events: one per probe and the iteration's span); give at "
            "least " +
            std::to_string(needed) + " for this run",
        2);
  if (o.probeCapacity < needed && !o.quiet)
    std::fprintf(stderr,
                 "opscope-run: note: --probe-buffer %zu holds %zu of this "
                 "run's %zu iterations; later events are dropped (give "
                 "--probe-buffer %zu to keep them all)\n",
                 o.probeCapacity, o.probeCapacity / perIteration, runs,
                 needed);
}

/// --input NAME=FILE into every session; the inputs not given are random
/// from --seed.
/// A tensor file for a model input or output of type `want`. ONNX's test
/// data (libonnx-testdata 1.12) stores bfloat16 tensors as uint16 ones, the
/// bit patterns, since numpy has no bfloat16: such a file is read as bf16.
HostTensor readTensorFor(const std::string &file, DType want) {
  HostTensor t = readTensorFile(file);
  if (want == DType::BF16 && t.dtype == DType::U16)
    t.dtype = DType::BF16;
  return t;
}

void feedInputs(const Model &model, const Options &o,
                std::vector<std::unique_ptr<Session>> &sessions) {
  std::vector<bool> given(model.inputs().size(), false);
  for (const std::string &spec : o.inputs) {
    auto [name, file] = splitSpec(spec, "--input");
    int i = model.inputIndex(name);
    if (i < 0) {
      std::string names;
      for (const TensorInfo &t : model.inputs())
        names += (names.empty() ? "" : ", ") + t.name;
      die("--input: the model has no input '" + name + "' (inputs: " +
              names + ")",
          2);
    }
    const TensorInfo &info = model.inputs()[i];
    HostTensor t = readTensorFor(file, info.dtype);
    if (t.shape != info.shape || t.dtype != info.dtype)
      die("--input " + name + ": the model expects " + info.describe() +
              ", " + file + " holds " + describe(t.dtype, t.shape),
          2);
    for (auto &s : sessions)
      if (!t.data.empty()) // an empty tensor's data() may be null
        std::memcpy(s->input(i), t.data.data(), t.data.size());
    given[i] = true;
  }
  std::mt19937_64 rng(o.seed);
  for (size_t i = 0; i < given.size(); ++i)
    if (!given[i]) {
      HostTensor t = randomTensor(model.inputs()[i], rng, o.intMax);
      for (auto &s : sessions)
        if (!t.data.empty())
          std::memcpy(s->input(i), t.data.data(), t.data.size());
    }
}

/// --expect NAME=FILE, read and checked against the model's outputs
/// before timing, so bad files fail fast.
std::vector<std::pair<int, HostTensor>> readExpected(const Model &model,
                                                     const Options &o) {
  std::vector<std::pair<int, HostTensor>> expected;
  for (const std::string &spec : o.expects) {
    auto [name, file] = splitSpec(spec, "--expect");
    int out = model.outputIndex(name);
    if (out < 0)
      die("--expect: the model has no output '" + name + "'", 2);
    HostTensor t = readTensorFor(file, model.outputs()[out].dtype);
    // An output with a run-time extent: any size up to its bound along
    // that axis; the run's actual shape is checked after it.
    Shape bound = model.outputs()[out].shape;
    int64_t axis = model.outputs()[out].extentAxis;
    if (axis >= 0 && t.shape.size() == bound.size() &&
        t.shape[axis] <= bound[axis])
      bound[axis] = t.shape[axis];
    if (t.shape != bound)
      die("--expect " + name + ": the model's output is " +
              model.outputs()[out].describe() + ", " + file + " holds " +
              describe(t.dtype, t.shape),
          2);
    expected.push_back({out, std::move(t)});
  }
  return expected;
}

/// --output-dir: every output as NAME.npy ('/' in names becomes '_').
void writeOutputs(const Model &model, Session &session,
                  const std::string &dir) {
  fs::create_directories(dir);
  for (size_t out = 0; out < model.outputs().size(); ++out) {
    const TensorInfo &info = model.outputs()[out];
    HostTensor t;
    t.dtype = info.dtype;
    t.shape = session.outputShape(out);
    const char *p = static_cast<const char *>(session.output(out));
    t.data.assign(p, p + numElements(t.shape) * dtypeSize(t.dtype));
    std::string name = info.name;
    std::replace(name.begin(), name.end(), '/', '_');
    writeNpy((fs::path(dir) / (name + ".npy")).string(), t);
  }
}

/// Compares the outputs with --expect's; true when every one matches.
bool checkExpected(const Model &model, Session &session,
                   const std::vector<std::pair<int, HostTensor>> &expected,
                   const Options &o) {
  bool mismatch = false;
  for (auto &[out, want] : expected) {
    const TensorInfo &info = model.outputs()[out];
    Shape shape = session.outputShape(out);
    if (shape != want.shape) {
      mismatch = true;
      std::cout << "output " << info.name << ": shape "
                << describe(info.dtype, shape) << " (bound " << info.describe()
                << "), expected " << describe(want.dtype, want.shape)
                << " -> MISMATCH\n";
      continue;
    }
    auto got = asDoubles(info.dtype, session.output(out), numElements(shape));
    auto ref = asDoubles(want.dtype, want.data.data(), want.elements());
    TensorComparison c = compareTensors(got, ref, o.rtol, o.atol);
    mismatch |= !c.matches();
    std::cout << "output " << info.name << ": max abs error " << c.maxAbs
              << ", max rel error " << c.maxRel << ", cosine "
              << std::setprecision(9) << c.cosine << std::setprecision(6)
              << " -> " << (c.matches() ? "match" : "MISMATCH") << " (rtol "
              << o.rtol << ", atol " << o.atol << ", " << c.mismatches
              << " of " << got.size() << " elements outside)\n";
  }
  return !mismatch;
}

/// The run's summary: the model, the tier, latency percentiles,
/// throughput, start-up and memory.
void printSummary(const Model &model, Session &session, size_t instances,
                  const BenchmarkResult &result, const BenchmarkConfig &bench,
                  const Options &o, const std::string &threadNote) {
  LatencyStats l = latencyStats(result.allMs());
  int64_t batch = model.inputs().empty() || model.inputs()[0].shape.empty()
                      ? 1
                      : model.inputs()[0].shape[0];
  // The name comes from the model: cut, as every name in the summary.
  std::cout << opscope::shortenMiddle(model.name(), 96) << ": "
            << model.numOps() << " ops, arena "
            << fixed(model.arenaBytes() / 1048576.0, 3) << " MiB, weights "
            << fixed(model.weightBytes() / 1048576.0, 3) << " MiB, threads "
            << o.threads << (instances > 1 ? " per instance" : "")
            << threadNote << (o.profile ? ", profiling" : "") << "\n";
  std::cout << opscope::kernelTierLine() << "\n";
  std::cout << "latency ms: count " << l.count << "  min " << fixed(l.min, 3)
            << "  max " << fixed(l.max, 3) << "  mean " << fixed(l.mean, 3)
            << "  median " << fixed(l.p50, 3) << "  p90 " << fixed(l.p90, 3)
            << "  p95 " << fixed(l.p95, 3) << "  p99 " << fixed(l.p99, 3)
            << "  p99.9 " << fixed(l.p999, 3) << "\n";
  // Throughput over all instances: runs completed per second of wall
  // time (warm-up included when there are several instances).
  double perSecond = runsPerSecond(result, bench, l);
  std::cout << "throughput: " << std::fixed << std::setprecision(1)
            << perSecond << " runs/s, " << perSecond * batch
            << " samples/s (batch " << batch << ", " << instances
            << (instances == 1 ? " instance" : " instances") << ")\n"
            << std::defaultfloat;
  printStartupAndMemory(std::cout, model, &session);
  ProcessMemory mem = readProcessMemory(model.weightsPath());
  if (mem.rss >= 0) {
    std::cout << "resident: " << formatMiB(mem.rss) << " (anonymous "
              << formatMiB(mem.anon) << ", file-backed "
              << formatMiB(mem.file) << "), peak " << formatMiB(mem.peakRss);
    if (mem.mappedRss >= 0)
      std::cout << "; weights mapping " << formatMiB(mem.mappedRss)
                << " resident, " << formatMiB(mem.mappedPss)
                << " proportional share";
    std::cout << "\n";
  }
}

/// The latency and throughput modes: sessions, inputs, warm-up and timed
/// runs, outputs, the summary and, with --profile, the trace and CSV.
int runTimed(const CLI::App &app, const Model &model, Options &o,
             const std::string &soPath) {
  if (o.profile && model.probes().empty())
    die(soPath + " has no probes: it was compiled with --no-probes", 2);
  std::vector<std::vector<int>> pinning;
  std::string threadNote = chooseThreads(app, o, pinning);
  setDenseThreads(o.threads);
  checkProbeBuffer(model, o);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < o.instances; ++i)
    sessions.push_back(model.createSession(o.probeCapacity));
  Session &session = *sessions[0];
  feedInputs(model, o, sessions);
  auto expected = readExpected(model, o);

  // Warm-up, then timed runs: each instance on its own thread.
  double probeCost = o.profile ? Profiler::probeCostNs() : 0.0;
  BenchmarkConfig bench;
  bench.warmup = o.warmup;
  bench.iterations = std::max(o.iterations, expected.empty() ? 0 : 1);
  bench.profile = o.profile;
  bench.cores = pinning;
  opscope::tools::Progress progress(
      "opscope-run: running " + opscope::shortenMiddle(model.name(), 40),
      static_cast<size_t>(sessions.size()) *
          (bench.warmup + std::max(bench.iterations, 1)));
  bench.onRun = [&](int64_t done, int64_t) {
    progress.update(static_cast<size_t>(done), "runs");
  };
  std::vector<Session *> running;
  for (auto &s : sessions)
    running.push_back(s.get());
  BenchmarkResult result = runBenchmark(running, bench);
  progress.finish();

  if (!o.outputDir.empty())
    writeOutputs(model, session, o.outputDir);
  bool matches = checkExpected(model, session, expected, o);
  if (!o.quiet && !result.allMs().empty())
    printSummary(model, session, sessions.size(), result, bench, o,
                 threadNote);
  if (o.profile) {
    ProfileData d;
    d.model = &model;
    for (auto &s : sessions)
      d.sessions.push_back(s.get());
    d.threads = o.threads;
    d.probeCostNs = probeCost;
    d.skipIterations = result.warmupIterations;
    d.run = {{"iterations", std::to_string(o.iterations)},
             {"warmup", std::to_string(o.warmup)},
             {"threads", std::to_string(d.threads)},
             {"seed", std::to_string(o.seed)},
             {"instances", std::to_string(o.instances)},
             {"model_file", soPath}};
    if (!o.quiet)
      printProfileSummary(std::cout, d, o.top);
    if (!o.tracePath.empty())
      writeTrace(o.tracePath, d);
    if (!o.csvPath.empty())
      writeProfileCsv(o.csvPath, d);
  }
  return matches ? 0 : 1;
}
} // namespace

namespace opscope::tools::run {

void addOptions(CLI::App &app, Options &o) {
  app.add_option("model", o.modelPath,
                 "compiled model (.so), or an .onnx/.onnxtext to compile on "
                 "the fly (with --input-shape)")
      ->required();
  app.add_option("--input", o.inputs, "input tensor NAME=FILE (.npy or ONNX .pb)")
      ->take_all();
  app.add_option("--input-shape", o.shapes,
                 "for an .onnx model: static input shape NAME=DIMS")
      ->take_all();
  app.add_option("--seed", o.seed, "seed for random inputs (inputs not given)");
  app.add_option("--int-max", o.intMax,
                 "random integer inputs are drawn from [0, N) (default 2: "
                 "valid ids, masks and token types)");
  app.add_option("--output-dir", o.outputDir, "write outputs as NAME.npy here");
  app.add_option("--expect", o.expects,
                 "expected output NAME=FILE (.npy or .pb); exit 1 on mismatch")
      ->take_all();
  app.add_option("--rtol", o.rtol, "relative tolerance for --expect (1e-4)");
  app.add_option("--atol", o.atol, "absolute tolerance for --expect (1e-5)");
  app.add_option("--iterations", o.iterations, "timed runs (default 10)")
      ->check(opscope::tools::nonNegativeInteger());
  app.add_option("--warmup", o.warmup, "untimed runs first (default 2)")
      ->check(opscope::tools::nonNegativeInteger());
  app.add_option("--threads", o.threads,
                 "kernel threads per instance (default 0: the cores idle when "
                 "the run starts, shared among instances; a busy core would "
                 "stall every op's parallel region)")
      ->check(opscope::tools::nonNegativeInteger());
  app.add_option("--instances", o.instances,
                 "concurrent model instances (sessions), each driven by its "
                 "own thread, sharing the weights; each uses --threads kernel "
                 "threads (throughput mode)")
      ->check(opscope::tools::positiveInteger());
  app.add_option("--mode", o.mode,
                     "latency (default: one instance, latency percentiles), "
                     "throughput (--instances pinned to --cores-per-instance "
                     "cores each, runs per second) or accuracy (with "
                     "--compare-to)")
          ->check(CLI::IsMember({"latency", "throughput", "accuracy"}));
  app.add_option("--cores-per-instance", o.coresPerInstance,
                 "throughput mode: cores (and kernel threads) per instance, "
                 "each instance pinned to its own (default 1; --instances "
                 "defaults to the cores this process may use / this)")
      ->check(opscope::tools::positiveInteger());
  app.add_option("--probe-buffer", o.probeCapacity,
                 "probe events each instance can hold (default 1M); events "
                 "beyond it are counted as dropped");
  app.add_flag("--print-plan", o.printPlan,
               "print the model's embedded plan (JSON) and exit");
  app.add_flag("--print-probes", o.printProbes,
               "print the model's probe table and exit (nothing runs)");
  app.add_flag("--profile", o.profile,
               "record probes (every model has them unless compiled with "
               "--no-probes); prints a per-op summary");
  app.add_option("--trace", o.tracePath,
                 "with --profile: Chrome trace JSON (Perfetto, opscope-analyze)");
  app.add_option("--csv", o.csvPath, "with --profile: per-op profile CSV");
  app.add_option("-t,--top", o.top, "ops in the profile summary (default 10)");
  app.add_flag("--no-fuse", o.noFuse, "for an .onnx model: compile without fusion");
  app.add_flag("-q,--quiet", o.quiet, "print only errors and comparisons");
  auto *cmp = app.add_option(
      "--compare-to", o.compareTo,
      "accuracy mode: run this other model (.so, or .onnx compiled like the "
      "first) on the same inputs and report per-output errors, cosine and "
      "top-1 agreement");
  auto *cal = app.add_option(
      "--calibrate", o.calibratePath,
      "int8 calibration: run the (fp32) model on --inputs or --random sets "
      "and write the input statistics of every inner product to this JSON "
      "file (opscope-compile --precision int8 --calibration)");
  app.add_option("--inputs", o.inputsDir,
                 "with --compare-to or --calibrate: a directory of input "
                 "sets (one subdirectory per set, NAME.npy per input)");
  app.add_option("--random", o.randomSets,
                 "with --compare-to or --calibrate: this many random input "
                 "sets from --seed (--compare-to's default: 8 when --inputs "
                 "is not given)")
      ->check(CLI::PositiveNumber);
  cal->excludes(cmp);
  app.add_option("--min-cosine", o.minCosine,
                 "with --compare-to: exit 1 when an output's lowest cosine is "
                 "below this")
      ->needs(cmp);
}

int run(const CLI::App &app, Options &o) {
  try {
    checkModes(app, o);
    std::string soPath = libraryFor(o.modelPath, o);
    if (!needsCompiling(classifyModelFile(o.modelPath)) && !o.shapes.empty())
      die("--input-shape applies to .onnx models; a compiled model has "
          "fixed shapes",
          2);
    std::unique_ptr<Model> model = Model::load(soPath);
    // Never silently slow: a model compiled for another tier says so.
    if (std::string mismatch = model->tierMismatch();
        !mismatch.empty() && !o.quiet)
      std::cerr << "opscope-run: warning: " << mismatch << "\n";
    if (!o.compareTo.empty()) {
      std::unique_ptr<Model> other = Model::load(libraryFor(o.compareTo, o));
      setDenseThreads(o.threads > 0 ? o.threads : 1);
      std::string source;
      auto sets = makeSets(*model, o, source);
      return compareModels(o.modelPath, *model, o.compareTo, *other, sets,
                           source, o.minCosine);
    }
    if (!o.calibratePath.empty())
      return runCalibration(*model, o);
    if (o.printPlan) {
      std::cout << nlohmann::json::parse(model->planText()).dump(1) << "\n";
      return 0;
    }
    if (o.printProbes) {
      printProbeTable(std::cout, *model);
      return 0;
    }
    return runTimed(app, *model, o, soPath);
  } catch (const RunEnded &ended) {
    return ended.code;
  } catch (const std::exception &e) {
    return fail(e.what());
  }
}

} // namespace opscope::tools::run
