//===- ProfileTool.cpp - opscope-profile's flags and steps ----------------===//
//
// Part of opscope (docs/sparsify-profiles.md). Neural Magic's Sparsify
// profiles a model before it is pruned: how fast each layer runs and what
// pruning could recover (performance profile, or a FLOPs estimate), and how
// much pruning each layer alone hurts the output (loss profile). This does
// the same from opscope's own kernels: the model is compiled once (dense,
// probed), the performance profile is a profiled run projected through the
// tuning database (opscope-analyze --what-if's projection), and the loss
// profile prunes one layer at a time in a session's private copy of its
// weight (Session::overrideWeight), never recompiling. It then recommends
// per-layer sparsities under a deviation budget and writes them in
// opscope-prune --per-layer's format.
//
//===----------------------------------------------------------------------===//

#include "ProfileTool.h"

#include "Profile.h"
#include "Progress.h"
#include "Subprocess.h"
#include "ToolCommon.h"

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/cpu.h"
#include "opscope/runtime/dense.h"
#include "opscope/runtime/file_output.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/text.h"
#include "opscope/runtime/tooling/benchmark.h"
#include "opscope/runtime/tooling/model_files.h"
#include "opscope/runtime/whatif.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

using namespace opscope;
using namespace opscope::profile;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {
const opscope::tools::ErrorReporter fail{"opscope-profile"};

/// A sparsity as the table, CSV and JSON name it: two decimals ("0.70"),
/// or all its digits when two would lose some ("0.0001").
std::string ratioKey(double s) {
  if (std::fabs(s * 100 - std::round(s * 100)) < 1e-9)
    return fixed(s, 2);
  std::ostringstream os;
  os << s;
  return os.str();
}

/// Writes `text` to `path` whole or not at all (file_output.h).
bool writeAtomically(const std::string &path, const std::string &text) {
  return writeFileAtomically(path, text).empty();
}

/// The performance profile: a profiled run of `model`, its per-layer self
/// time, and per sparsity the projection of the tuning database.
std::string perfProfile(Model &model, Profile &p, int iterations,
                        std::string &dbPath) {
  auto session = model.createSession();
  tooling::BenchmarkConfig config;
  config.warmup = 2;
  config.iterations = iterations;
  config.profile = true;
  std::mt19937_64 rng(0);
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    rt::HostTensor t = tooling::randomTensor(model.inputs()[i], rng, 2);
    if (!t.data.empty())
      std::memcpy(session->input(i), t.data.data(), t.data.size());
  }
  tooling::runBenchmark({session.get()}, config);
  char tmpl[] = "/tmp/opscope-profile-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0)
    return "cannot create a temporary trace file";
  close(fd);
  std::string trace = tmpl;
  ProfileData data;
  data.model = &model;
  data.sessions = {session.get()};
  data.threads = 1;
  data.skipIterations = config.warmup;
  data.run = {{"iterations", std::to_string(iterations)}};
  writeTrace(trace, data);
  analysis::Profile prof;
  analysis::EventFilter filter;
  std::string err = analysis::loadProfile(trace, filter, prof);
  if (err.empty()) {
    for (double s : p.sparsities) {
      analysis::WhatIfRequest request;
      request.sparsity = s;
      analysis::WhatIf w;
      err = analysis::projectWithDatabase(prof, trace, dbPath, request, w);
      if (!err.empty())
        break;
      p.modelMs = w.totals.measuredUs / 1e3;
      for (const analysis::WhatIfOp &op : w.ops)
        for (Layer &l : p.layers)
          if (op.probe && op.probe->id == l.probe) {
            l.denseMs = op.measuredUs / 1e3;
            if (op.targetRatio)
              l.projectedMs[s] = op.projectedUs / 1e3;
            l.basis = op.basis;
          }
    }
  }
  std::remove(trace.c_str());
  // The trace path in messages is a temporary: say "the profiled run".
  for (size_t pos; (pos = err.find(trace)) != std::string::npos;)
    err.replace(pos, trace.size(), "the profiled run");
  return err;
}

/// The FLOPs estimate: each layer at the machine's peak for the thread
/// count, pruned layers at (1 - sparsity) of their FLOPs.
std::string flopsEstimate(Profile &p, const std::string &machineFile,
                          int threads) {
  analysis::Machine m;
  std::string err = analysis::loadMachine(machineFile, m);
  if (!err.empty()) // (loadMachine's message already says how to make one)
    return err;
  double gflops = m.forThreads(threads).peakGflops;
  if (!(gflops > 0))
    return machineFile + ": no peak GFLOP/s";
  for (Layer &l : p.layers) {
    l.estimate = true;
    l.denseMs = l.flops / (gflops * 1e6);
    for (double s : p.sparsities)
      l.projectedMs[s] = *l.denseMs * (1 - s);
    l.basis = "estimate: FLOPs at the peak " + fixed(gflops, 1) +
              " GFLOP/s (" + machineFile + ")";
  }
  p.modelMs = p.modelFlops / (gflops * 1e6);
  return "";
}
/// --verify: prunes the model with the recommendation, compiles it with
/// sparse kernels (into a temporary directory), and measures its latency
/// against the dense model's in alternating rounds and its deviation on the
/// loss profile's input sets.
std::string verifyRecommendation(
    const std::string &modelPath, const std::vector<std::string> &shapes,
    const json &perLayer, Model &denseModel,
    const std::vector<std::vector<rt::HostTensor>> &sets, const Outputs &dense,
    int iterations, const Recommendation &r, json &out) {
  if (r.sparsity.empty()) {
    out = {{"skipped", "the recommendation prunes no layer"}};
    std::cout << "verify: nothing to verify (no layer pruned)\n";
    return "";
  }
  char tmpl[] = "/tmp/opscope-profile-verify-XXXXXX";
  if (!mkdtemp(tmpl))
    return "cannot create a temporary directory";
  fs::path dir = tmpl;
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  std::string layers = (dir / "per-layer.json").string();
  std::string pruned = (dir / "pruned.onnx").string();
  if (!writeAtomically(layers, perLayer.dump(1) + "\n"))
    return layers + ": cannot write";
  std::string ignored;
  if (tools::runCapture({tools::siblingTool("opscope-prune"), modelPath,
                         "--per-layer", layers, "-o", pruned},
                        ignored) != 0)
    return "opscope-prune failed (its messages are above)";
  tooling::CompileRequest request;
  request.model = pruned;
  request.inputShapes = shapes;
  request.noProbes = true;
  request.extraFlags = {"--sparse", "auto", "--precision", "fp32"};
  std::string error;
  std::string so = tooling::compileIntoCache(request, dir.string(), error);
  if (so.empty())
    return error;
  std::unique_ptr<Model> prunedModel = Model::load(so);
  auto sp = prunedModel->createSession();
  auto sd = denseModel.createSession();
  Sensitivity dev =
      compareOutputs(runSets(*sp, *prunedModel, sets), dense,
                     outputRows(denseModel));
  // Latency: both models on the same input, alternating, 3 rounds.
  for (Session *s : {sp.get(), sd.get()})
    for (size_t i = 0; i < sets[0].size(); ++i)
      if (!sets[0][i].data.empty())
        std::memcpy(s->input(i), sets[0][i].data.data(), sets[0][i].data.size());
  std::vector<double> prunedMs, denseMs;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  for (int round = 0; round < 3; ++round)
    for (auto [s, into] : {std::pair{sp.get(), &prunedMs},
                           std::pair{sd.get(), &denseMs}}) {
      tooling::BenchmarkConfig c;
      c.warmup = 2;
      c.iterations = iterations;
      into->push_back(median(tooling::runBenchmark({s}, c).allMs()));
    }
  double pm = median(prunedMs), dm = median(denseMs);
  double projectedSpeedup = r.projectedMs > 0 ? r.denseMs / r.projectedMs : 0;
  std::cout << "verify: pruned model (sparse kernels) " << fixed(pm, 3)
            << " ms against dense " << fixed(dm, 3) << " ms measured: "
            << fixed(pm > 0 ? dm / pm : 0, 2) << "x (projected "
            << fixed(projectedSpeedup, 2) << "x); deviation "
            << fixed(dev.relL2, 5) << " measured (expected "
            << fixed(r.deviation, 5) << "), cosine_min "
            << fixed(dev.cosineMin, 6) << ", top-1 " << fixed(dev.top1, 4)
            << "\n";
  out = {{"pruned_ms", pm},          {"dense_ms", dm},
         {"speedup", pm > 0 ? dm / pm : 0.0},
         {"projected_speedup", projectedSpeedup},
         {"deviation", dev.relL2},   {"expected_deviation", r.deviation},
         {"cosine_min", dev.cosineMin}, {"top1", dev.top1}};
  return "";
}
using opscope::tools::profile::Options;

/// The usage rules, checked before anything runs or is written; fills in
/// the default CSV and per-layer paths. Returns -1 or the exit code.
int checkUsage(Options &o) {
  for (double s : o.sparsities)
    if (!(s > 0.0 && s < 1.0))
      return fail("--sparsity: expected ratios in (0, 1), e.g. 0.7,0.8,0.9, "
                  "got " + fixed(s, 4),
                  tools::kUsage);
  std::sort(o.sparsities.begin(), o.sparsities.end());
  o.sparsities.erase(std::unique(o.sparsities.begin(), o.sparsities.end()),
                     o.sparsities.end());
  if (!(o.budget > 0))
    return fail("--budget: expected a deviation above 0, e.g. 0.01, got " +
                    fixed(o.budget, 6),
                tools::kUsage);
  if (o.perf && o.flopsOnly)
    return fail("--perf and --flops-only exclude each other (measured or "
                "estimated latency)",
                tools::kUsage);
  if (!o.inputsDir.empty() && o.randomSets > 0)
    return fail("--inputs and --random exclude each other", tools::kUsage);
  if (!o.loss && (!o.inputsDir.empty() || o.randomSets > 0))
    return fail(std::string(o.inputsDir.empty() ? "--random" : "--inputs") +
                    " applies to --loss",
                tools::kUsage);
  if (o.verify && !(o.loss && o.perf))
    return fail("--verify needs --loss and --perf (a measured "
                "recommendation to check)",
                tools::kUsage);
  if (!o.perf && !o.dbPath.empty())
    return fail("--db applies to --perf", tools::kUsage);
  if (!o.flopsOnly && !o.machineFile.empty())
    return fail("--machine applies to --flops-only", tools::kUsage);
  if (!tooling::needsCompiling(tooling::classifyModelFile(o.modelPath)))
    return fail(o.modelPath + ": opscope-profile compiles the model itself: "
                              "give the ONNX model (.onnx or .onnxtext)",
                tools::kUsage);
  const std::string &out = o.outPath;
  std::string stem = out.size() > 5 &&
                             out.compare(out.size() - 5, 5, ".json") == 0
                         ? out.substr(0, out.size() - 5)
                         : out;
  if (o.csvPath.empty())
    o.csvPath = stem + ".csv";
  if (o.perLayerPath.empty())
    o.perLayerPath = stem + ".per-layer.json";
  return -1;
}

/// --layers: keeps only the named layers. Returns "" or the error.
std::string selectLayers(const Model &model, Profile &p,
                         const std::string &layersArg) {
  std::set<std::string> wanted;
  std::stringstream ss(layersArg);
  for (std::string n; std::getline(ss, n, ',');)
    if (!n.empty())
      wanted.insert(n);
  std::vector<Layer> kept;
  for (Layer &l : p.layers)
    if (wanted.erase(l.name))
      kept.push_back(std::move(l));
  if (!wanted.empty()) {
    std::string known;
    for (const Layer &l : findLayers(model))
      known += (known.empty() ? "" : ", ") + l.name;
    return "--layers: no prunable layer named '" + *wanted.begin() +
           "' (the layers: " + shortenMiddle(known, 2000) + ")";
  }
  p.layers = std::move(kept);
  return "";
}

/// --perf. When this machine's tuning database lacks the model's shapes
/// (or has no file yet), measures them here with opscope-tune on the same
/// build, at every profiled sparsity, and projects again: no loop of
/// suggested commands for the user to run. Returns "" or the error.
std::string measurePerf(Model &model, Profile &p, const std::string &so,
                        Options &o) {
  std::string err = perfProfile(model, p, o.iterations, o.dbPath);
  if (err.empty() || (err.find("no tuning database") == std::string::npos &&
                      err.find("measure them with") == std::string::npos))
    return err;
  std::ostringstream ratios;
  for (size_t i = 0; i < o.sparsities.size(); ++i)
    ratios << (i ? "," : "") << o.sparsities[i];
  std::vector<std::string> tune = {tools::siblingTool("opscope-tune"),
                                   so,
                                   "--sparsity",
                                   ratios.str(),
                                   "--threads",
                                   std::to_string(o.threads)};
  if (!o.dbPath.empty()) {
    tune.push_back("--db");
    tune.push_back(o.dbPath);
  }
  std::string cmd;
  for (const std::string &a : tune)
    cmd += (cmd.empty() ? "" : " ") + a;
  std::cerr << "opscope-profile: this machine's tuning database lacks "
               "the model's weight shapes; measuring them now: "
            << cmd << "\n";
  std::string table;
  int rc = tools::runCapture(tune, table);
  if (rc != 0)
    return "measuring the model's shapes failed (" + cmd +
           (rc < 0 ? ": could not start)" : ")");
  return perfProfile(model, p, o.iterations, o.dbPath);
}

/// --loss: the sample input sets, the dense outputs on them, and each
/// layer alone pruned at each sparsity. Returns "" or the error.
std::string measureLoss(const Model &model, Profile &p, const Options &o,
                        std::vector<std::vector<rt::HostTensor>> &sets,
                        Outputs &dense) {
  if (!o.inputsDir.empty()) {
    std::string err = tooling::readInputSets(o.inputsDir, model, sets);
    if (!err.empty())
      return "--inputs: " + err;
    p.inputSource = o.inputsDir;
  } else {
    int n = o.randomSets > 0 ? o.randomSets : 8;
    std::mt19937_64 rng(o.seed);
    // Token ids index an embedding: drawn from [0, 2) every sample is
    // nearly the same two-word sentence, and the loss of a layer can then
    // fall as its sparsity rises (BERT-mini's query and key layers did, the
    // same with 64 sets as with 8). Ids are drawn from the table's rows.
    std::vector<int64_t> intMax;
    std::string ranges;
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      int64_t bound = model.indexBound(i);
      intMax.push_back(bound > 0 ? bound : o.intMax);
      if (bound > 0)
        ranges += "; " + model.inputs()[i].name + " in [0, " +
                  std::to_string(bound) + "), the rows it indexes";
    }
    for (int s = 0; s < n; ++s) {
      std::vector<rt::HostTensor> set;
      for (size_t i = 0; i < model.inputs().size(); ++i)
        set.push_back(
            tooling::randomTensor(model.inputs()[i], rng, intMax[i]));
      sets.push_back(std::move(set));
    }
    p.inputSource = "random, seed " + std::to_string(o.seed) + ranges;
  }
  p.inputSets = static_cast<int>(sets.size());
  auto start = std::chrono::steady_clock::now();
  auto session = model.createSession();
  dense = runSets(*session, model, sets);
  tools::Progress progress("opscope-profile: loss",
                           p.layers.size() * p.sparsities.size());
  std::string err = lossProfile(*session, model, sets, dense, p,
                                [&](size_t done, size_t) {
                                  progress.update(done, "layer x sparsity");
                                });
  progress.finish();
  p.lossSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return err;
}

/// Prints the per-layer table and returns the same rows as CSV.
std::string printTable(const Profile &p, const Options &o) {
  std::cout << "opscope-profile: " << p.model << ", " << p.layers.size()
            << " prunable layers, " << p.modelParams << " parameters, "
            << fixed(p.modelFlops / 1e9, 3) << " GFLOP per run";
  if (p.modelMs)
    std::cout << ", " << fixed(*p.modelMs, 3) << " ms of op time"
              << (o.flopsOnly ? " (estimate)" : "");
  std::cout << "\n";
  if (o.loss)
    std::cout << "loss: " << p.inputSets << " input sets (" << p.inputSource
              << "), " << fixed(p.lossSeconds, 1) << " s for "
              << p.layers.size() * p.sparsities.size()
              << " layer x sparsity runs\n";
  std::ostringstream csv;
  csv << "layer,type,weight_shape,params,params_percent,flops,"
         "flops_percent,dense_ms,estimate";
  for (double s : p.sparsities)
    csv << ",projected_ms_" << ratioKey(s);
  for (double s : p.sparsities)
    csv << ",rel_l2_" << ratioKey(s) << ",cosine_min_" << ratioKey(s)
        << ",top1_" << ratioKey(s);
  csv << "\n";
  bool latency = o.perf || o.flopsOnly;
  size_t nameWidth = 5;
  for (const Layer &l : p.layers)
    nameWidth = std::max(nameWidth, std::min<size_t>(l.name.size(), 48));
  std::cout << std::left << std::setw(nameWidth + 2) << "layer" << std::right
            << std::setw(12) << "weight" << std::setw(11) << "params %"
            << std::setw(10) << "flops %";
  if (latency) {
    std::cout << std::setw(10) << "dense ms";
    for (double s : p.sparsities)
      std::cout << std::setw(9) << ("ms@" + ratioKey(s));
  }
  if (o.loss)
    for (double s : p.sparsities)
      std::cout << std::setw(11) << ("relL2@" + ratioKey(s));
  std::cout << "\n";
  for (const Layer &l : p.layers) {
    std::string shape = std::to_string(l.n) + "x" + std::to_string(l.k);
    double pp = p.modelParams ? 100.0 * l.params / p.modelParams : 0;
    double fp = p.modelFlops > 0 ? 100.0 * l.flops / p.modelFlops : 0;
    std::cout << std::left << std::setw(nameWidth + 2)
              << shortenMiddle(l.name, 48) << std::right << std::setw(12)
              << shape << std::setw(11) << fixed(pp, 2) << std::setw(10)
              << fixed(fp, 2);
    csv << "\"" << l.name << "\"," << l.type << "," << shape << ","
        << l.params << "," << fixed(pp, 4) << "," << fixed(l.flops, 0) << ","
        << fixed(fp, 4) << "," << (l.denseMs ? fixed(*l.denseMs, 5) : "")
        << "," << (l.estimate ? "true" : "false");
    if (latency) {
      std::cout << std::setw(10) << (l.denseMs ? fixed(*l.denseMs, 4) : "-");
      for (double s : p.sparsities)
        std::cout << std::setw(9)
                  << (l.projectedMs.count(s) ? fixed(l.projectedMs.at(s), 4)
                                             : "-");
    }
    for (double s : p.sparsities)
      csv << ","
          << (l.projectedMs.count(s) ? fixed(l.projectedMs.at(s), 5) : "");
    if (o.loss)
      for (double s : p.sparsities)
        std::cout << std::setw(11)
                  << (l.loss.count(s) ? fixed(l.loss.at(s).relL2, 5) : "-");
    for (double s : p.sparsities) {
      if (l.loss.count(s)) {
        const Sensitivity &x = l.loss.at(s);
        csv << "," << fixed(x.relL2, 6) << "," << fixed(x.cosineMin, 7) << ","
            << fixed(x.top1, 4);
      } else {
        csv << ",,,";
      }
    }
    std::cout << "\n";
    csv << "\n";
  }
  if (o.flopsOnly)
    std::cout << "(latencies are estimates: FLOPs at the machine's peak, "
                 "pruned layers at (1 - sparsity) of their FLOPs)\n";
  return csv.str();
}

/// The recommendation under --budget, printed, in opscope-prune
/// --per-layer's form (`perLayer`) and, with --verify, checked by a pruned
/// build. Returns "" or the error; `rec` is the profile's JSON of it.
std::string recommendation(Model &model, const Profile &p,
                           const Options &o,
                           const std::vector<std::vector<rt::HostTensor>> &sets,
                           const Outputs &dense, json &rec, json &perLayer) {
  Recommendation r = recommend(p, o.budget);
  std::cout << "recommendation (budget " << o.budget
            << " of summed mean relative L2): " << r.sparsity.size()
            << " layers pruned; projected " << fixed(r.projectedMs, 3)
            << " ms against " << fixed(r.denseMs, 3) << " ms dense ("
            << fixed(r.projectedMs > 0 ? r.denseMs / r.projectedMs : 0, 2)
            << "x), expected deviation " << fixed(r.deviation, 5) << "\n";
  json layers = json::object();
  for (auto &[name, s] : r.sparsity) {
    double dev = 0;
    for (const Layer &l : p.layers)
      if (l.name == name)
        dev = l.loss.at(s).relL2;
    layers[name] = {{"sparsity", s}, {"loss_delta", dev}};
    std::cout << "  " << shortenMiddle(name, 64) << ": " << s << "\n";
  }
  perLayer["layers"] = layers;
  json verified = nullptr;
  if (o.verify) {
    std::string err =
        verifyRecommendation(o.modelPath, o.shapes, perLayer, model, sets,
                             dense, o.iterations, r, verified);
    if (!err.empty())
      return "--verify: " + err;
  }
  rec = {{"verified", verified},
         {"budget", o.budget},
         {"layers", layers},
         {"dense_ms", r.denseMs},
         {"projected_ms", r.projectedMs},
         {"expected_deviation", r.deviation},
         {"per_layer_file", o.perLayerPath}};
  return "";
}

/// The profile as JSON (schema "opscope-profile", version 1).
json profileJson(const Profile &p, const Options &o, const json &rec) {
  json layers = json::array();
  for (const Layer &l : p.layers) {
    json proj = json::object(), sens = json::object();
    for (auto &[s, ms] : l.projectedMs)
      proj[ratioKey(s)] = ms;
    for (auto &[s, x] : l.loss)
      sens[ratioKey(s)] = {{"rel_l2", x.relL2},
                           {"cosine_min", x.cosineMin},
                           {"top1", x.top1}};
    layers.push_back(
        {{"name", l.name},
         {"type", l.type},
         {"weight_shape", {l.n, l.k}},
         {"params", l.params},
         {"params_fraction",
          p.modelParams ? double(l.params) / p.modelParams : 0.0},
         {"flops", l.flops},
         {"flops_fraction", p.modelFlops > 0 ? l.flops / p.modelFlops : 0.0},
         {"dense_ms", l.denseMs ? json(*l.denseMs) : json(nullptr)},
         {"projected_ms", proj},
         {"estimate", l.estimate},
         {"basis", l.basis},
         {"sensitivity", sens}});
  }
  return {{"schema", "opscope-profile"},
          {"version", 1},
          {"model", p.model},
          {"model_file", o.modelPath},
          {"machine",
           {{"cpu", rt::hostCpu().model},
            {"amx", cpuHasAmx()},
            {"threads", o.threads}}},
          {"sparsities", p.sparsities},
          {"block", "1x4"},
          {"params", p.modelParams},
          {"flops", p.modelFlops},
          {"op_time_ms", p.modelMs ? json(*p.modelMs) : json(nullptr)},
          {"loss_inputs", o.loss ? json({{"sets", p.inputSets},
                                         {"source", p.inputSource},
                                         {"seconds", p.lossSeconds}})
                                 : json(nullptr)},
          {"layers", layers},
          {"recommendation", rec}};
}

/// Writes the profile, the CSV and (with a recommendation) the per-layer
/// file, each whole; a failure removes the ones already written.
int writeResults(const Options &o, const json &out, const std::string &csv,
                 const json &rec, const json &perLayer) {
  if (!writeAtomically(o.outPath, out.dump(1) + "\n"))
    return fail(o.outPath + ": cannot write");
  if (!writeAtomically(o.csvPath, csv)) {
    std::remove(o.outPath.c_str());
    return fail(o.csvPath + ": cannot write");
  }
  std::cout << "wrote " << o.outPath << ", " << o.csvPath;
  if (!rec.is_null()) {
    if (!writeAtomically(o.perLayerPath, perLayer.dump(1) + "\n")) {
      std::remove(o.outPath.c_str());
      std::remove(o.csvPath.c_str());
      return fail(o.perLayerPath + ": cannot write");
    }
    std::cout << ", " << o.perLayerPath;
  }
  std::cout << "\n";
  return 0;
}

/// The profile after the usage checks: one dense, probed fp32 build
/// (pruned weights run on the dense kernels: what the loss profile
/// measures is numerical), then each asked-for profile.
int profileModel(Options &o) {
  rt::setDenseThreads(o.threads);
  tooling::CompileRequest request;
  request.model = o.modelPath;
  request.inputShapes = o.shapes;
  request.extraFlags = {"--sparse", "never", "--precision", "fp32"};
  std::string error;
  tools::Progress compiling("opscope-profile: compiling", 1);
  std::string so = tooling::compileIntoCache(request,
                                             tooling::defaultCacheDir(), error);
  compiling.finish();
  if (so.empty())
    return fail(error);
  std::unique_ptr<Model> model = Model::load(so);

  Profile p;
  p.model = model->name();
  p.sparsities = o.sparsities;
  p.modelParams = model->parameterCount();
  for (const ProbeInfo &probe : model->probes())
    p.modelFlops += probe.flops;
  p.layers = findLayers(*model);
  if (!o.layersArg.empty()) {
    std::string err = selectLayers(*model, p, o.layersArg);
    if (!err.empty())
      return fail(err, tools::kUsage);
  }
  if (p.layers.empty())
    return fail(o.modelPath + ": no prunable layer (a MatMul or Gemm with a "
                              "constant 2-D weight)");
  if (o.perf) {
    std::string err = measurePerf(*model, p, so, o);
    if (!err.empty())
      return fail(err);
  } else if (o.flopsOnly) {
    if (o.machineFile.empty())
      o.machineFile = analysis::defaultMachineFile();
    std::string err = flopsEstimate(p, o.machineFile, o.threads);
    if (!err.empty())
      return fail(err);
  }
  std::vector<std::vector<rt::HostTensor>> sets;
  Outputs dense;
  if (o.loss) {
    std::string err = measureLoss(*model, p, o, sets, dense);
    if (!err.empty())
      return fail(err);
  }
  std::string csv = printTable(p, o);
  json rec = nullptr;
  json perLayer = {{"layers", json::object()}};
  if (o.loss && (o.perf || o.flopsOnly)) {
    std::string err =
        recommendation(*model, p, o, sets, dense, rec, perLayer);
    if (!err.empty())
      return fail(err);
  }
  return writeResults(o, profileJson(p, o, rec), csv, rec, perLayer);
}
} // namespace

namespace opscope::tools::profile {

void addOptions(CLI::App &app, Options &o) {
  app.add_option("model", o.modelPath, "ONNX model (.onnx or .onnxtext)")
      ->required();
  app.add_option("--input-shape", o.shapes, "NAME=DIMS for dynamic inputs");
  app.add_flag("--perf", o.perf,
               "performance profile: measured dense latency per layer and "
               "the latency projected at each sparsity from the tuning "
               "database (opscope-tune)");
  app.add_flag("--flops-only", o.flopsOnly,
               "estimate latency from FLOPs and the machine's measured peak "
               "(opscope-analyze --calibrate) instead of running");
  app.add_flag("--loss", o.loss,
               "loss profile: each layer alone pruned to each sparsity, the "
               "outputs compared with the dense model's");
  app.add_option("--sparsity", o.sparsities,
                 "sparsities to profile (default 0.7,0.8,0.9)")
      ->delimiter(',');
  app.add_option("--inputs", o.inputsDir,
                 "sample inputs for --loss: a directory of input sets (one "
                 "subdirectory per set, NAME.npy per input)");
  app.add_option("--random", o.randomSets,
                 "sample inputs for --loss: this many random sets (default "
                 "8 when --inputs is not given)")
      ->check(tools::positiveInteger());
  app.add_option("--budget", o.budget,
                 "total output deviation (sum of the chosen layers' mean "
                 "relative L2) the recommendation may spend (default 0.01)");
  app.add_flag("--verify", o.verify,
               "prune the model with the recommendation (opscope-prune "
               "--per-layer), compile it with sparse kernels, run it, and "
               "report its measured latency and deviation next to the "
               "projected ones (needs --loss and --perf)");
  app.add_option("--layers", o.layersArg,
                 "only these layers (comma-separated names, as the table "
                 "prints them)");
  app.add_option("--db", o.dbPath,
                 "with --perf: tuning database (default: this machine's)");
  app.add_option("--machine", o.machineFile,
                 "with --flops-only: machine figures (default: "
                 "opscope-analyze --calibrate's file)");
  app.add_option("--iterations", o.iterations,
                 "with --perf: profiled runs (default 20)")
      ->check(tools::positiveInteger());
  app.add_option("--threads", o.threads, "kernel threads (default 1)")
      ->check(tools::positiveInteger());
  app.add_option("--seed", o.seed, "seed of the random input sets");
  app.add_option("--int-max", o.intMax,
                 "random integer inputs lie in [0, N) (default 2), but for "
                 "one used as indices into a constant table (token ids), "
                 "which lies in the table's rows")
      ->check(tools::positiveInteger());
  app.add_option("-o,--output", o.outPath, "the profile (JSON)")->required();
  app.add_option("--csv", o.csvPath, "the per-layer table as CSV (default: "
                                   "the output with .csv)");
  app.add_option("--per-layer-out", o.perLayerPath,
                 "the recommendation in opscope-prune --per-layer's format "
                 "(default: the output with .per-layer.json)");
}

int run(Options &o) {
  if (int code = checkUsage(o); code >= 0)
    return code;
  try {
    return profileModel(o);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
}

} // namespace opscope::tools::profile
