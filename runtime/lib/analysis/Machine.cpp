//===- Machine.cpp - peak compute and bandwidth for the roofline ----------===//
//
// Part of opscope's runtime. `opscope-analyze --calibrate` measures the
// machine once and stores the figures; the roofline columns read them.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/cpu.h"
#include "opscope/runtime/file_output.h"

#include "../kernels/x86_64/PeakFma.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

using nlohmann::json;
using namespace opscope;
using namespace opscope::analysis;
using Clock = std::chrono::steady_clock;

namespace {
/// The peak loops of the tier in force (cpu.h), one core each, and what
/// they time: fp32 FMAs (a multiply and an add below AVX2) with the widest
/// vectors, the peak the roofline holds fp32 ops against (GFLOP/s); and
/// the tier's fastest int8 multiply-add, the one oneDNN's int8 kernels run
/// (GOP/s). opscope's exact s16 GEMM below VNNI does half its products per
/// instruction, so it reads at most about half of the int8 peak. AMX's
/// tiles are not timed: that tier reports AVX-512 VNNI's. Null loops off
/// x86.
struct PeakLoops {
  const char *fmaOperation;
  double (*gflops)(double seconds);
  const char *int8Operation;
  double (*int8Gops)(double seconds);
};
PeakLoops peakLoops() {
#if defined(__x86_64__)
  rt::IsaLevel tier = rt::tierInForce();
  PeakLoops l{"FMA", peak::fmaGflopsAvx2, "vpmaddubsw", peak::int8GopsAvx2};
  if (tier >= rt::IsaLevel::Avx512Core) {
    l.gflops = peak::fmaGflopsAvx512;
    l.int8Gops = peak::int8GopsAvx512;
  } else if (tier < rt::IsaLevel::Avx2) {
    l = {"multiply + add", peak::mulAddGflopsSse, "pmaddubsw",
         peak::int8GopsSsse3};
  }
  if (rt::hasVnni(tier)) {
    l.int8Operation = "vpdpbusd";
    l.int8Gops = tier >= rt::IsaLevel::Avx512CoreVnni ? peak::int8GopsAvx512Vnni
                                                      : peak::int8GopsAvxVnni;
  }
  return l;
#else
  return {"multiply + add", nullptr, "none", nullptr};
#endif
}

/// The sum over `threads` threads, each running `loop` for `seconds`.
double overThreads(int threads, double (*loop)(double), double seconds) {
  if (!loop)
    return 0.0;
  std::vector<double> perThread(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { perThread[t] = loop(seconds); });
  for (auto &th : pool)
    th.join();
  double sum = 0;
  for (double g : perThread)
    sum += g;
  return sum;
}

/// Peak figures with `threads` threads, each running its own FMA loop,
/// then its int8 loop, and its slice of the triad.
Machine::Peak measurePeak(const PeakLoops &loops, int threads, float *a,
                          const float *b, const float *c, size_t n) {
  Machine::Peak peak;
  peak.gflops = overThreads(threads, loops.gflops, 0.3);
  peak.int8Gops = overThreads(threads, loops.int8Gops, 0.2);
  // STREAM-style triad a = b + s * c; bytes counted as 2 reads + 1 write per
  // element (no write-allocate).
  for (int pass = 0; pass < 4; ++pass) {
    auto start = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        size_t begin = n * t / threads, end = n * (t + 1) / threads;
        for (size_t i = begin; i < end; ++i)
          a[i] = b[i] + 3.0f * c[i];
      });
    for (auto &th : pool)
      th.join();
    double s = std::chrono::duration<double>(Clock::now() - start).count();
    peak.bandwidthGBs =
        std::max(peak.bandwidthGBs, 3.0 * n * sizeof(float) / s / 1e9);
  }
  return peak;
}
} // namespace

Machine opscope::analysis::calibrateMachine(int threads) {
  Machine m;
  m.cpu = rt::hostCpu().model;
  threads = std::max(1, threads);
  const size_t n = size_t(32) << 20; // 128 MB per array, far beyond caches
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  for (size_t i = 0; i < n; ++i)
    a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
  const PeakLoops loops = peakLoops();
  for (int t = 1; t <= threads; ++t)
    m.byThreads[t] = measurePeak(loops, t, a.get(), b.get(), c.get(), n);
  volatile float keep = a[n / 2];
  (void)keep;
  m.threads = threads;
  m.peakGflops = m.byThreads[threads].gflops;
  m.peakInt8Gops = m.byThreads[threads].int8Gops;
  m.bandwidthGBs = m.byThreads[threads].bandwidthGBs;
  return m;
}

Machine Machine::forThreads(int t) const {
  Machine m = *this;
  auto it = byThreads.upper_bound(t);
  if (t > 0 && it != byThreads.begin()) {
    --it;
    m.threads = it->first;
    m.peakGflops = it->second.gflops;
    m.peakInt8Gops = it->second.int8Gops;
    m.bandwidthGBs = it->second.bandwidthGBs;
  }
  return m;
}

const char *opscope::analysis::peakOperation() {
  return peakLoops().fmaOperation;
}

const char *opscope::analysis::int8Operation() {
  return peakLoops().int8Operation;
}

std::string opscope::analysis::loadMachine(const std::string &path,
                                           Machine &m) {
  std::ifstream in(path);
  if (!in)
    return path + ": no machine figures; run `opscope-analyze --calibrate` "
                  "first (or give --machine FILE)";
  try {
    json j = json::parse(in);
    m.peakGflops = j.at("peak_gflops").get<double>();
    m.peakInt8Gops = j.value("peak_int8_gops", 0.0);
    m.bandwidthGBs = j.at("bandwidth_gbs").get<double>();
    m.cpu = j.value("cpu", "");
    m.threads = j.value("threads", 0);
    if (j.contains("by_threads"))
      for (const auto &[k, v] : j["by_threads"].items()) {
        Machine::Peak &p = m.byThreads[std::stoi(k)];
        p.gflops = v.at("peak_gflops").get<double>();
        p.bandwidthGBs = v.at("bandwidth_gbs").get<double>();
        p.int8Gops = v.value("peak_int8_gops", 0.0);
      }
  } catch (const std::exception &e) { // json's errors and std::stoi's
    return path + ": not a machine file: " + e.what();
  }
  if (m.peakGflops <= 0 || m.bandwidthGBs <= 0)
    return path + ": peak_gflops and bandwidth_gbs must be positive";
  if (m.peakInt8Gops < 0)
    return path + ": peak_int8_gops must not be negative";
  return "";
}

std::string opscope::analysis::saveMachine(const std::string &path,
                                           const Machine &m) {
  json byThreads = json::object();
  for (const auto &[t, p] : m.byThreads)
    byThreads[std::to_string(t)] = {{"peak_gflops", p.gflops},
                                    {"peak_int8_gops", p.int8Gops},
                                    {"bandwidth_gbs", p.bandwidthGBs}};
  json j = {{"peak_gflops", m.peakGflops},
            {"peak_int8_gops", m.peakInt8Gops},
            {"bandwidth_gbs", m.bandwidthGBs},
            {"threads", m.threads},
            {"cpu", m.cpu},
            {"by_threads", byThreads}};
  return writeFileAtomically(path, j.dump(2) + "\n");
}

std::string opscope::analysis::defaultMachineFile() {
  const char *cache = std::getenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  std::string dir =
      cache ? cache : (home ? std::string(home) + "/.cache" : ".");
  return dir + "/opscope/machine.json";
}
