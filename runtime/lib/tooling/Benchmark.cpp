//===- Benchmark.cpp - timed runs of one or several sessions --------------===//
//
// Part of opscope's runtime tooling.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/benchmark.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/sinks.h"

#include "opscope/runtime/dense.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

using namespace opscope;
using namespace opscope::tooling;
using Clock = std::chrono::steady_clock;

std::vector<double> BenchmarkResult::allMs() const {
  std::vector<double> all;
  for (const auto &v : perInstanceMs)
    all.insert(all.end(), v.begin(), v.end());
  return all;
}

std::vector<int> opscope::tooling::allowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return {0};
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set))
      cpus.push_back(c);
  return cpus;
}

std::vector<std::vector<int>>
opscope::tooling::assignCores(const std::vector<int> &allowed, int instances,
                              int perInstance, bool &shared) {
  std::vector<std::vector<int>> out(instances);
  size_t next = 0;
  shared = static_cast<size_t>(instances) * perInstance > allowed.size();
  for (auto &cores : out)
    for (int c = 0; c < perInstance; ++c)
      cores.push_back(allowed[next++ % allowed.size()]);
  return out;
}

namespace {
/// Pins the calling thread to `cores` and sizes its kernel thread team:
/// OpenMP threads this thread starts inherit the mask.
void pinThisThread(const std::vector<int> &cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores)
    CPU_SET(c, &set);
  int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc != 0)
    throw Error("cannot pin an instance to its cores: " +
                std::string(std::strerror(rc)));
  std::vector<int> distinct = cores;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()),
                 distinct.end());
  rt::setDenseThreads(static_cast<int>(distinct.size()));
}
} // namespace

BenchmarkResult
opscope::tooling::runBenchmark(const std::vector<Session *> &sessions,
                               const BenchmarkConfig &config) {
  BenchmarkResult r;
  r.perInstanceMs.resize(sessions.size());
  std::atomic<int64_t> completed{0};
  const int64_t totalRuns =
      static_cast<int64_t>(sessions.size()) *
      (config.warmup + std::max(config.iterations, 1));
  auto ran = [&](size_t k) {
    int64_t done = ++completed;
    if (k == 0 && config.onRun)
      config.onRun(done, totalRuns);
  };
  bool pinned = !config.cores.empty();
  if (pinned && config.cores.size() != sessions.size())
    throw Error("runBenchmark: one core list per session is needed");
  auto drive = [&](size_t k) {
    if (pinned)
      pinThisThread(config.cores[k]);
    Session &s = *sessions[k];
    Profiler &prof = s.profiler();
    // Only ever switched on here: a session OPSCOPE_PROFILE made record
    // (docs/profiling.md) keeps recording without --profile.
    if (config.profile)
      prof.enable(true);
    {
      auto span = prof.record("warm up");
      for (int i = 0; i < config.warmup; ++i) {
        s.run();
        ran(k);
      }
    }
    if (k == 0)
      r.warmupIterations = static_cast<int>(prof.currentIteration());
    auto span = prof.record("measure");
    for (int i = 0; i < config.iterations; ++i) {
      auto t0 = Clock::now();
      s.run();
      r.perInstanceMs[k].push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      ran(k);
    }
    if (config.iterations == 0) {
      s.run();
      ran(k);
    }
  };
  auto wall0 = Clock::now();
  if (sessions.size() == 1 && !pinned) {
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
  r.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - wall0)
                 .count();
  return r;
}

LatencyStats opscope::tooling::latencyStats(std::vector<double> ms) {
  LatencyStats s;
  if (ms.empty())
    return s;
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double t : ms)
    sum += t;
  s.count = static_cast<int64_t>(ms.size());
  s.min = ms.front();
  s.max = ms.back();
  s.mean = sum / ms.size();
  s.p50 = percentile(ms, 50);
  s.p90 = percentile(ms, 90);
  s.p95 = percentile(ms, 95);
  s.p99 = percentile(ms, 99);
  s.p999 = percentile(ms, 99.9);
  return s;
}

double opscope::tooling::runsPerSecond(const BenchmarkResult &r,
                                       const BenchmarkConfig &config,
                                       const LatencyStats &stats) {
  size_t instances = r.perInstanceMs.size();
  if (instances <= 1)
    return stats.mean > 0 ? 1000.0 / stats.mean : 0.0;
  return r.wallMs > 0 ? 1000.0 * instances * (config.iterations + config.warmup) /
                            r.wallMs
                      : 0.0;
}

rt::HostTensor opscope::tooling::randomTensor(const TensorInfo &info,
                                              std::mt19937_64 &rng,
                                              int64_t intMax) {
  rt::HostTensor t;
  t.dtype = info.dtype;
  t.shape = info.shape;
  t.data.resize(info.bytes());
  int64_t n = info.elements();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(0, std::max<int64_t>(intMax - 1, 0));
  std::vector<double> values(n);
  for (double &v : values)
    v = info.dtype == rt::DType::F32 || info.dtype == rt::DType::F64 ||
                info.dtype == rt::DType::F16
            ? real(rng)
            : static_cast<double>(info.dtype == rt::DType::I1 ? integer(rng) % 2
                                                              : integer(rng));
  rt::cast(rt::DType::F64, values.data(), info.dtype, t.data.data(), n);
  return t;
}

std::string opscope::tooling::readInputSets(
    const std::string &dir, const Model &model,
    std::vector<std::vector<rt::HostTensor>> &out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return "'" + dir + "' is not a directory";
  std::vector<fs::path> sets;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.is_directory())
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty())
    sets.push_back(dir);
  for (const fs::path &set : sets) {
    std::vector<rt::HostTensor> tensors;
    std::set<std::string> expected;
    for (const TensorInfo &info : model.inputs()) {
      std::string name = info.name;
      std::replace(name.begin(), name.end(), '/', '_');
      fs::path file = set / (name + ".npy");
      expected.insert(file.filename().string());
      if (!fs::exists(file))
        return "input set '" + set.string() + "' has no " +
               file.filename().string() + " for input '" + info.name + "'";
      rt::HostTensor t;
      try {
        t = rt::readNpy(file.string());
      } catch (const std::exception &e) {
        return e.what();
      }
      if (t.shape != info.shape || t.dtype != info.dtype)
      {
        TensorInfo held;
        held.dtype = t.dtype;
        held.shape = t.shape;
        return file.string() + " holds " + held.describe() + ", input '" +
               info.name + "' is " + info.describe();
      }
      tensors.push_back(std::move(t));
    }
    for (const auto &e : fs::directory_iterator(set, ec))
      if (e.is_regular_file() && !expected.count(e.path().filename().string()))
        return e.path().string() +
               " names no input of the model (inputs are NAME.npy)";
    out.push_back(std::move(tensors));
  }
  return "";
}
