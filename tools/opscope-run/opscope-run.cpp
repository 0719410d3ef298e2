//===- opscope-run.cpp - run a compiled model -----------------------------===//
//
// Part of opscope. Links the runtime only (no MLIR): loads model.so +
// model.weights (or compiles an .onnx into a cache by running
// opscope-compile), feeds inputs (.npy / .pb / random), checks outputs
// against expected ones, measures latency and, with --profile, writes the
// trace, the per-op CSV and a terminal summary.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"
#include "opscope/runtime/sinks.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

using namespace opscope;
using namespace opscope::rt;
namespace fs = std::filesystem;

namespace {
[[noreturn]] void die(const std::string &msg, int code = 1) {
  std::cerr << "opscope-run: error: " << msg << "\n";
  std::exit(code);
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

/// Compiles an ONNX model into the cache (keyed by path, size, mtime and
/// flags) with the opscope-compile next to this executable.
std::string compileIntoCache(const std::string &model,
                             const std::vector<std::string> &shapes,
                             bool profile, bool noFuse) {
  struct stat st;
  if (stat(model.c_str(), &st) != 0)
    die(model + ": " + std::strerror(errno));
  std::string key = fs::absolute(model).string() + "|" +
                    std::to_string(st.st_size) + "|" +
                    std::to_string(st.st_mtime) + "|" +
                    (profile ? "p" : "") + (noFuse ? "n" : "");
  for (const std::string &s : shapes)
    key += "|" + s;
  std::ostringstream hex;
  hex << std::hex << std::hash<std::string>()(key);
  const char *home = std::getenv("HOME");
  fs::path dir = std::getenv("OPSCOPE_CACHE_DIR")
                     ? fs::path(std::getenv("OPSCOPE_CACHE_DIR"))
                     : fs::path(home ? home : "/tmp") / ".cache/opscope/compiled";
  fs::create_directories(dir);
  fs::path out = dir / (fs::path(model).stem().string() + "-" + hex.str() + ".so");
  if (fs::exists(out) && fs::exists(fs::path(out).replace_extension(".weights")))
    return out.string();
  fs::path self = fs::read_symlink("/proc/self/exe").parent_path();
  std::string compiler = (self / "opscope-compile").string();
  if (!fs::exists(compiler))
    compiler = "opscope-compile";
  std::vector<std::string> args = {compiler, model, "-o", out.string()};
  for (const std::string &s : shapes) {
    args.push_back("--input-shape");
    args.push_back(s);
  }
  if (profile)
    args.push_back("--profile");
  if (noFuse)
    args.push_back("--no-fuse");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    die("compiling " + model + " failed (see the messages above)");
  return out.string();
}

HostTensor randomTensor(const TensorInfo &info, std::mt19937_64 &rng,
                        int64_t intMax) {
  HostTensor t;
  t.dtype = info.dtype;
  t.shape = info.shape;
  t.data.resize(info.bytes());
  int64_t n = info.elements();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, std::max<int64_t>(intMax - 1, 0));
  std::vector<double> values(n);
  for (double &v : values)
    v = info.dtype == DType::F32 || info.dtype == DType::F64
            ? real(rng)
            : static_cast<double>(info.dtype == DType::I1 ? integer(rng) % 2
                                                          : integer(rng));
  cast(DType::F64, values.data(), info.dtype, t.data.data(), n);
  return t;
}

std::vector<double> asDoubles(DType t, const void *data, int64_t n) {
  std::vector<double> v(n);
  cast(t, data, DType::F64, v.data(), n);
  return v;
}

struct Comparison {
  double maxAbs = 0, maxRel = 0, cosine = 1;
  int64_t mismatches = 0;
};

Comparison compareTensors(const std::vector<double> &got,
                          const std::vector<double> &want, double rtol,
                          double atol) {
  Comparison c;
  double dot = 0, ng = 0, nw = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    bool bothNan = std::isnan(g) && std::isnan(w);
    bool sameInf = std::isinf(g) && g == w;
    double d = bothNan || sameInf ? 0.0 : std::fabs(g - w);
    if (std::isnan(d))
      d = INFINITY;
    c.maxAbs = std::max(c.maxAbs, d);
    if (w != 0 && std::isfinite(d))
      c.maxRel = std::max(c.maxRel, d / std::fabs(w));
    if (d > atol + rtol * std::fabs(w))
      ++c.mismatches;
    if (std::isfinite(g) && std::isfinite(w)) {
      dot += g * w;
      ng += g * g;
      nw += w * w;
    }
  }
  c.cosine = ng > 0 && nw > 0 ? dot / std::sqrt(ng * nw) : (ng == nw ? 1 : 0);
  return c;
}

std::string ms(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << v;
  return os.str();
}
} // namespace

int main(int argc, char **argv) {
  CLI::App app{"opscope-run: run a compiled model (model.so + model.weights)"};
  std::string modelPath, outputDir, tracePath, csvPath;
  std::vector<std::string> inputs, expects, shapes;
  uint64_t seed = 0;
  int64_t intMax = 2;
  double rtol = 1e-4, atol = 1e-5;
  int iterations = 10, warmup = 2, threads = 0, top = 10, instances = 1;
  size_t probeCapacity = 0;
  bool printPlan = false;
  bool printProbes = false, profile = false, noFuse = false, quiet = false;
  app.add_option("model", modelPath,
                 "compiled model (.so), or an .onnx/.onnxtext to compile on "
                 "the fly (with --input-shape)")
      ->required();
  app.add_option("--input", inputs, "input tensor NAME=FILE (.npy or ONNX .pb)")
      ->take_all();
  app.add_option("--input-shape", shapes,
                 "for an .onnx model: static input shape NAME=DIMS")
      ->take_all();
  app.add_option("--seed", seed, "seed for random inputs (inputs not given)");
  app.add_option("--int-max", intMax,
                 "random integer inputs are drawn from [0, N) (default 2: "
                 "valid ids, masks and token types)");
  app.add_option("--output-dir", outputDir, "write outputs as NAME.npy here");
  app.add_option("--expect", expects,
                 "expected output NAME=FILE (.npy or .pb); exit 1 on mismatch")
      ->take_all();
  app.add_option("--rtol", rtol, "relative tolerance for --expect (1e-4)");
  app.add_option("--atol", atol, "absolute tolerance for --expect (1e-5)");
  app.add_option("--iterations", iterations, "timed runs (default 10)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup", warmup, "untimed runs first (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", threads,
                 "threads for the kernels (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--instances", instances,
                 "concurrent model instances (sessions), one thread each, "
                 "sharing the weights (throughput mode)")
      ->check(CLI::PositiveNumber);
  app.add_option("--probe-buffer", probeCapacity,
                 "probe events each instance can hold (default 1M); events "
                 "beyond it are counted as dropped");
  app.add_flag("--print-plan", printPlan,
               "print the model's embedded plan (JSON) and exit");
  app.add_flag("--print-probes", printProbes,
               "print the model's probe table and exit (nothing runs)");
  app.add_flag("--profile", profile,
               "record probes (the model must be compiled with --profile); "
               "prints a per-op summary");
  app.add_option("--trace", tracePath,
                 "with --profile: Chrome trace JSON (Perfetto, opscope-analyze)");
  app.add_option("--csv", csvPath, "with --profile: per-op profile CSV");
  app.add_option("-t,--top", top, "ops in the profile summary (default 10)");
  app.add_flag("--no-fuse", noFuse, "for an .onnx model: compile without fusion");
  app.add_flag("-q,--quiet", quiet, "print only errors and comparisons");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // Usage errors exit 2 (like the other input errors); --help exits 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!tracePath.empty() || !csvPath.empty())
    profile = true;

  try {
    std::string soPath = modelPath;
    bool isOnnx = modelPath.size() > 5 &&
                  (modelPath.rfind(".onnx") == modelPath.size() - 5 ||
                   modelPath.rfind(".onnxtext") == modelPath.size() - 9);
    if (isOnnx)
      soPath = compileIntoCache(modelPath, shapes, profile, noFuse);
    else if (!shapes.empty())
      die("--input-shape applies to .onnx models; a compiled model has "
          "fixed shapes",
          2);
    std::unique_ptr<Model> model = Model::load(soPath);

    if (printPlan) {
      std::cout << nlohmann::json::parse(model->planText()).dump(1) << "\n";
      return 0;
    }
    if (printProbes) {
      const auto &probes = model->probes();
      if (probes.empty()) {
        std::cout << model->name()
                  << ": no probes (compile with opscope-compile --profile)\n";
        return 0;
      }
      std::cout << "id\ttype\tpost_ops\tname\tsource_nodes\tinputs\toutputs\t"
                   "weight_shape\tweight_sparsity\tsparse_support\tflops\t"
                   "bytes\tkernel\n";
      auto tensors = [](const std::vector<TensorInfo> &ts) {
        std::string s;
        for (const TensorInfo &t : ts)
          s += (s.empty() ? "" : ";") + t.name + ":" + t.describe();
        return s;
      };
      for (const ProbeInfo &p : probes) {
        std::string post, src, wshape;
        for (auto &x : p.postOps)
          post += (post.empty() ? "" : ",") + x;
        for (auto &x : p.sourceNodes)
          src += (src.empty() ? "" : ";") + x;
        for (size_t i = 0; i < p.weightShape.size(); ++i)
          wshape += (i ? "x" : "") + std::to_string(p.weightShape[i]);
        std::cout << p.id << '\t' << p.type << '\t' << post << '\t' << p.name
                  << '\t' << p.sourceNodes.size() << ":" << src << '\t'
                  << tensors(p.inputs) << '\t' << tensors(p.outputs) << '\t'
                  << wshape << '\t'
                  << (p.weightSparsity < 0 ? std::string("")
                                           : std::to_string(p.weightSparsity))
                  << '\t' << (p.sparseSupport ? "yes" : "no") << '\t'
                  << static_cast<int64_t>(p.flops) << '\t'
                  << static_cast<int64_t>(p.bytes) << '\t' << p.kernel << '\n';
      }
      return 0;
    }
    if (profile && model->probes().empty())
      die(soPath + " has no probes: it was compiled with --no-probes", 2);

    if (threads > 0)
      setDenseThreads(threads);
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < instances; ++i)
      sessions.push_back(model->createSession(probeCapacity));
    Session *session = sessions[0].get();

    // Inputs.
    std::vector<bool> given(model->inputs().size(), false);
    for (const std::string &spec : inputs) {
      auto [name, file] = splitSpec(spec, "--input");
      int i = model->inputIndex(name);
      if (i < 0) {
        std::string names;
        for (const TensorInfo &t : model->inputs())
          names += (names.empty() ? "" : ", ") + t.name;
        die("--input: the model has no input '" + name + "' (inputs: " +
                names + ")",
            2);
      }
      const TensorInfo &info = model->inputs()[i];
      HostTensor t = readTensorFile(file);
      if (t.shape != info.shape || t.dtype != info.dtype)
        die("--input " + name + ": the model expects " + info.describe() +
                ", " + file + " holds " + describe(t.dtype, t.shape),
            2);
      for (auto &s : sessions)
        std::memcpy(s->input(i), t.data.data(), t.data.size());
      given[i] = true;
    }
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i < given.size(); ++i)
      if (!given[i]) {
        HostTensor t = randomTensor(model->inputs()[i], rng, intMax);
        for (auto &s : sessions)
          std::memcpy(s->input(i), t.data.data(), t.data.size());
      }

    // Expected outputs, checked before timing so bad files fail fast.
    std::vector<std::pair<int, HostTensor>> expected;
    for (const std::string &spec : expects) {
      auto [name, file] = splitSpec(spec, "--expect");
      int o = model->outputIndex(name);
      if (o < 0)
        die("--expect: the model has no output '" + name + "'", 2);
      HostTensor t = readTensorFile(file);
      if (t.shape != model->outputs()[o].shape)
        die("--expect " + name + ": the model's output is " +
                model->outputs()[o].describe() + ", " + file + " holds " +
                describe(t.dtype, t.shape),
            2);
      expected.push_back({o, std::move(t)});
    }

    // Warm-up, then timed runs: each instance on its own thread.
    double probeCost = profile ? Profiler::probeCostNs() : 0.0;
    int runs = std::max(iterations, expected.empty() ? 0 : 1);
    std::vector<std::vector<double>> perInstance(sessions.size());
    int skip = 0;
    auto drive = [&](size_t k) {
      Session &s = *sessions[k];
      Profiler &prof = s.profiler();
      prof.enable(profile);
      {
        auto span = prof.record("warm up");
        for (int i = 0; i < warmup; ++i)
          s.run();
      }
      if (k == 0)
        skip = prof.currentIteration();
      auto span = prof.record("measure");
      for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        s.run();
        auto t1 = std::chrono::steady_clock::now();
        perInstance[k].push_back(
            std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      if (runs == 0)
        s.run();
    };
    auto wall0 = std::chrono::steady_clock::now();
    if (sessions.size() == 1) {
      drive(0);
    } else {
      std::vector<std::thread> workers;
      std::vector<std::string> errors(sessions.size());
      for (size_t k = 0; k < sessions.size(); ++k)
        workers.emplace_back([&, k] {
          try {
            drive(k);
          } catch (const std::exception &e) {
            errors[k] = e.what();
          }
        });
      for (auto &w : workers)
        w.join();
      for (const std::string &e : errors)
        if (!e.empty())
          throw Error(e);
    }
    double wallMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - wall0)
                        .count();
    std::vector<double> times;
    for (auto &v : perInstance)
      times.insert(times.end(), v.begin(), v.end());

    // Outputs.
    if (!outputDir.empty()) {
      fs::create_directories(outputDir);
      for (size_t o = 0; o < model->outputs().size(); ++o) {
        const TensorInfo &info = model->outputs()[o];
        HostTensor t;
        t.dtype = info.dtype;
        t.shape = info.shape;
        const char *p = static_cast<const char *>(session->output(o));
        t.data.assign(p, p + info.bytes());
        std::string name = info.name;
        std::replace(name.begin(), name.end(), '/', '_');
        writeNpy((fs::path(outputDir) / (name + ".npy")).string(), t);
      }
    }
    bool mismatch = false;
    for (auto &[o, want] : expected) {
      const TensorInfo &info = model->outputs()[o];
      auto got = asDoubles(info.dtype, session->output(o), info.elements());
      auto ref = asDoubles(want.dtype, want.data.data(), want.elements());
      Comparison c = compareTensors(got, ref, rtol, atol);
      bool ok = c.mismatches == 0;
      mismatch |= !ok;
      std::cout << "output " << info.name << ": max abs error " << c.maxAbs
                << ", max rel error " << c.maxRel << ", cosine "
                << std::setprecision(9) << c.cosine << std::setprecision(6)
                << " -> " << (ok ? "match" : "MISMATCH") << " (rtol " << rtol
                << ", atol " << atol << ", " << c.mismatches << " of "
                << got.size() << " elements outside)\n";
    }

    if (!quiet && !times.empty()) {
      std::vector<double> sorted = times;
      std::sort(sorted.begin(), sorted.end());
      double sum = 0;
      for (double t : sorted)
        sum += t;
      double mean = sum / sorted.size();
      int64_t batch = model->inputs().empty() || model->inputs()[0].shape.empty()
                          ? 1
                          : model->inputs()[0].shape[0];
      std::cout << model->name() << ": " << model->numOps() << " ops, arena "
                << ms(model->arenaBytes() / 1048576.0) << " MiB, weights "
                << ms(model->weightBytes() / 1048576.0) << " MiB, threads "
                << (threads > 0 ? std::to_string(threads) : std::string("all"))
                << (profile ? ", profiling" : "") << "\n";
      std::cout << "latency ms: count " << sorted.size() << "  min "
                << ms(sorted.front()) << "  max " << ms(sorted.back())
                << "  mean " << ms(mean) << "  median "
                << ms(percentile(sorted, 50)) << "  p90 "
                << ms(percentile(sorted, 90)) << "  p95 "
                << ms(percentile(sorted, 95)) << "  p99 "
                << ms(percentile(sorted, 99)) << "  p99.9 "
                << ms(percentile(sorted, 99.9)) << "\n";
      // Throughput over all instances: runs completed per second of wall
      // time (warm-up included when there are several instances).
      double perSecond = sessions.size() == 1
                             ? 1000.0 / mean
                             : 1000.0 * sessions.size() * (runs + warmup) / wallMs;
      std::cout << "throughput: " << std::fixed << std::setprecision(1)
                << perSecond << " runs/s, " << perSecond * batch
                << " samples/s (batch " << batch << ", " << sessions.size()
                << (sessions.size() == 1 ? " instance" : " instances")
                << ")\n"
                << std::defaultfloat;
    }

    if (profile) {
      ProfileData d;
      d.model = model.get();
      for (auto &s : sessions)
        d.sessions.push_back(s.get());
      d.threads = threads > 0 ? threads
                              : static_cast<int>(std::thread::hardware_concurrency());
      d.probeCostNs = probeCost;
      d.skipIterations = skip;
      d.run = {{"iterations", std::to_string(iterations)},
               {"warmup", std::to_string(warmup)},
               {"threads", std::to_string(d.threads)},
               {"seed", std::to_string(seed)},
               {"instances", std::to_string(instances)},
               {"model_file", soPath}};
      if (!quiet)
        printProfileSummary(std::cout, d, top);
      if (!tracePath.empty())
        writeTrace(tracePath, d);
      if (!csvPath.empty())
        writeProfileCsv(csvPath, d);
    }
    return mismatch ? 1 : 0;
  } catch (const std::exception &e) {
    die(e.what());
  }
}
