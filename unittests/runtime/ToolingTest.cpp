//===- ToolingTest.cpp - the runtime tooling library ----------------------===//
//
// Part of opscope. Model path classification (the suffix check that once
// took `model.so` for ONNX), the compile cache key, tensor comparison and
// latency statistics.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/file_output.h"
#include "opscope/runtime/sparse.h"
#include "opscope/runtime/tooling/benchmark.h"
#include "opscope/runtime/tooling/compare.h"
#include "opscope/runtime/tooling/kernel_bench.h"
#include "opscope/runtime/tooling/model_files.h"
#include "opscope/runtime/tooling/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

using namespace opscope;
using namespace opscope::tooling;

namespace {

/// The files of `dir`, by name.
std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// The one atomic writer (file_output.h): a whole file, or on a failed
/// write the old file untouched and no temporary left behind.
TEST(FileOutput, WholeFileOrTheOldOne) {
  std::string dir = ::testing::TempDir() + "file-output-" +
                    std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = dir + "/out.txt";
  ASSERT_EQ(writeFileAtomically(path, std::string("first\n")), "");
  std::string error = writeFileAtomically(path, [](std::ostream &out) {
    out << "half of the second";
    out.setstate(std::ios::badbit); // as a full disk would
  });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "first\n");
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"out.txt"});
  // A writer that throws: the exception is the caller's, the old file
  // stays and no temporary is left.
  EXPECT_THROW(writeFileAtomically(path,
                                   [](std::ostream &out) {
                                     out << "partial";
                                     throw std::runtime_error("serialising");
                                   }),
               std::runtime_error);
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"out.txt"});
  error = writeFileAtomically(dir + "/missing/out.txt", std::string("x"));
  EXPECT_NE(error.find("missing/out.txt: cannot write"), std::string::npos)
      << error;
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"out.txt"});
  std::filesystem::remove_all(dir);
}

/// Names of every length from 1 to 12 characters ending in each suffix (or
/// as short as the suffix allows), bare and under directories, including
/// directories whose names contain `.onnx`.
TEST(ModelFiles, ClassifiesBySuffixAtEveryLength) {
  const std::pair<const char *, ModelFileKind> suffixes[] = {
      {".so", ModelFileKind::Library},
      {".onnx", ModelFileKind::Onnx},
      {".onnxtext", ModelFileKind::OnnxText},
      {".mlir", ModelFileKind::Mlir}};
  for (auto [suffix, kind] : suffixes) {
    std::string sfx = suffix;
    for (size_t len = 1; len <= 12; ++len) {
      if (len <= sfx.size())
        continue; // a stem of at least one character
      std::string name = std::string(len - sfx.size(), 'm') + sfx;
      for (std::string dir : {"", "./", "d/", "dir.onnx/", "x.onnxtext/sub/",
                              "/abs/m.onnx.d/"}) {
        std::string path = dir + name;
        EXPECT_EQ(classifyModelFile(path), kind) << path;
      }
    }
  }
  // The names the bug report used.
  EXPECT_EQ(classifyModelFile("model.so"), ModelFileKind::Library);
  EXPECT_EQ(classifyModelFile("plain.so"), ModelFileKind::Library);
  EXPECT_EQ(classifyModelFile("./enc.so"), ModelFileKind::Library);
  EXPECT_EQ(classifyModelFile("dir.onnx/model.so"), ModelFileKind::Library);
  // Names that only contain a suffix somewhere are not of that kind.
  EXPECT_EQ(classifyModelFile("model.onnx.so"), ModelFileKind::Library);
  EXPECT_EQ(classifyModelFile("model.so.onnx"), ModelFileKind::Onnx);
  EXPECT_EQ(classifyModelFile("onnx"), ModelFileKind::Unknown);
  EXPECT_EQ(classifyModelFile("a"), ModelFileKind::Unknown);
  EXPECT_EQ(classifyModelFile(""), ModelFileKind::Unknown);
  EXPECT_EQ(classifyModelFile("model.weights"), ModelFileKind::Unknown);
  EXPECT_TRUE(needsCompiling(ModelFileKind::Onnx));
  EXPECT_FALSE(needsCompiling(ModelFileKind::Library));
}

TEST(ModelFiles, CacheKeyFollowsModelAndFlags) {
  std::string path = ::testing::TempDir() + "/cache-key.onnx";
  { std::ofstream(path) << "not really a model"; }
  CompileRequest r;
  r.model = path;
  r.inputShapes = {"x=1x4"};
  std::string error;
  std::string a = cachedLibraryPath(r, "/cache", error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(a.rfind("/cache/cache-key-", 0), 0u) << a;
  EXPECT_EQ(a.substr(a.size() - 3), ".so");
  EXPECT_EQ(cachedLibraryPath(r, "/cache", error), a) << "stable";
  CompileRequest other = r;
  other.noFuse = true;
  EXPECT_NE(cachedLibraryPath(other, "/cache", error), a);
  other = r;
  other.inputShapes = {"x=2x4"};
  EXPECT_NE(cachedLibraryPath(other, "/cache", error), a);
  { std::ofstream(path) << "a longer, different model file"; }
  EXPECT_NE(cachedLibraryPath(r, "/cache", error), a) << "edited model";
  std::remove(path.c_str());

  r.model = ::testing::TempDir() + "/missing.onnx";
  EXPECT_TRUE(cachedLibraryPath(r, "/cache", error).empty());
  EXPECT_NE(error.find("missing.onnx"), std::string::npos) << error;
}

TEST(Compare, ToleranceMaximaAndCosine) {
  TensorComparison c = compareTensors({1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}, 0, 0);
  EXPECT_TRUE(c.matches());
  EXPECT_EQ(c.maxAbs, 0);
  EXPECT_DOUBLE_EQ(c.cosine, 1.0);

  // |2.1 - 2| = 0.1 <= 0.05 + 0.1 * 2: inside; |3.5 - 3| = 0.5 > 0.35: out.
  c = compareTensors({1.0, 2.1, 3.5}, {1.0, 2.0, 3.0}, 0.1, 0.05);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NEAR(c.maxAbs, 0.5, 1e-12);
  EXPECT_NEAR(c.maxRel, 0.5 / 3.0, 1e-12);
  EXPECT_LT(c.cosine, 1.0);
  EXPECT_GT(c.cosine, 0.99);

  c = compareTensors({-1.0, -2.0}, {1.0, 2.0}, 0, 0);
  EXPECT_NEAR(c.cosine, -1.0, 1e-12);
}

TEST(Compare, NanAndInfinity) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  TensorComparison c = compareTensors({nan, inf, -inf}, {nan, inf, -inf}, 0, 0);
  EXPECT_TRUE(c.matches()) << "NaN matches NaN, an infinity the same one";
  c = compareTensors({nan}, {1.0}, 1, 1);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_TRUE(std::isinf(c.maxAbs));
  c = compareTensors({inf}, {-inf}, 1, 1);
  EXPECT_EQ(c.mismatches, 1);
  c = compareTensors({1.0, 2.0}, {1.0}, 0, 0);
  EXPECT_EQ(c.mismatches, 1) << "an element only one side has";
}

TEST(Benchmark, LatencyStatisticsAreNearestRank) {
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i)
    ms.push_back(i); // unsorted on purpose
  LatencyStats s = latencyStats(ms);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p95, 95);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.p999, 100);
  EXPECT_EQ(latencyStats({}).count, 0);
  LatencyStats one = latencyStats({7.5});
  EXPECT_EQ(one.p50, 7.5);
  EXPECT_EQ(one.p999, 7.5);
}

TEST(Benchmark, Throughput) {
  BenchmarkConfig config;
  config.warmup = 1;
  config.iterations = 4;
  BenchmarkResult one;
  one.perInstanceMs = {{2, 2, 2, 2}};
  LatencyStats s = latencyStats(one.allMs());
  EXPECT_DOUBLE_EQ(runsPerSecond(one, config, s), 500.0);
  BenchmarkResult two;
  two.perInstanceMs = {{2, 2, 2, 2}, {2, 2, 2, 2}};
  two.wallMs = 20; // 2 instances x 5 runs in 20 ms
  EXPECT_DOUBLE_EQ(runsPerSecond(two, config, latencyStats(two.allMs())), 500.0);
}

TEST(Benchmark, RandomInputsRespectTheirRange) {
  TensorInfo ids;
  ids.dtype = rt::DType::I64;
  ids.shape = {1, 64};
  std::mt19937_64 rng(1);
  rt::HostTensor t = randomTensor(ids, rng, 5);
  ASSERT_EQ(t.data.size(), 64 * sizeof(int64_t));
  const int64_t *v = reinterpret_cast<const int64_t *>(t.data.data());
  for (int i = 0; i < 64; ++i) {
    EXPECT_GE(v[i], 0);
    EXPECT_LT(v[i], 5);
  }
  TensorInfo x;
  x.dtype = rt::DType::F32;
  x.shape = {128};
  t = randomTensor(x, rng, 5);
  const float *f = reinterpret_cast<const float *>(t.data.data());
  for (int i = 0; i < 128; ++i) {
    EXPECT_GE(f[i], -1.0f);
    EXPECT_LT(f[i], 1.0f);
  }
}

TEST(Threads, DefaultIsTheIdleCoresAtLeastOne) {
  CoreUsage u = sampleCoreUsage(20);
  EXPECT_GE(u.allowed, 1);
  EXPECT_GE(u.idle, 0);
  EXPECT_LE(u.idle, u.allowed);
  EXPECT_EQ(defaultThreadCount({4, 3}), 3);
  EXPECT_EQ(defaultThreadCount({2, 0}), 1) << "every core busy: one thread";
  EXPECT_EQ(defaultThreadCount({2, 2}), 2);
}

} // namespace

TEST(KernelBench, PruneZeroesTheSmallestBlocks) {
  // 3 x 10: two whole 1x4 blocks per row (the tail of 2 is never pruned),
  // block L1 norms 1..6 in a shuffled order.
  const int64_t n = 3, k = 10;
  const float norms[6] = {4, 1, 6, 2, 5, 3};
  std::vector<float> w(n * k, 7.0f);
  for (int b = 0; b < 6; ++b)
    for (int j = 0; j < 4; ++j)
      w[(b / 2) * k + (b % 2) * 4 + j] = (j % 2 ? -1 : 1) * norms[b] / 4;
  auto pruned = w;
  opscope::tooling::pruneBlocks(pruned, n, k, 0.5);
  for (int b = 0; b < 6; ++b)
    for (int j = 0; j < 4; ++j) {
      float v = pruned[(b / 2) * k + (b % 2) * 4 + j];
      if (norms[b] <= 3)
        EXPECT_EQ(v, 0.0f) << "block " << b;
      else
        EXPECT_EQ(v, w[(b / 2) * k + (b % 2) * 4 + j]) << "block " << b;
    }
  for (int64_t r = 0; r < n; ++r)
    EXPECT_EQ(pruned[r * k + 8], 7.0f);
}

TEST(KernelBench, MedianAndPerRoundRatios) {
  using opscope::tooling::median;
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  opscope::tooling::KernelBenchResult r;
  r.denseMs = {2, 4, 6};
  r.sparseMs = {{1, 1, 3}};
  EXPECT_EQ(r.perRoundRatios(0), (std::vector<double>{2, 4, 2}));
}

/// A round calls the candidates in turn, call by call (a slow spell of the
/// host falls on all of them), at least three times each, and gives one
/// median per candidate.
TEST(KernelBench, InterleavesTheCandidatesCallByCall) {
  std::string order;
  std::vector<std::function<void()>> fs;
  for (char c : {'a', 'b', 'c'})
    fs.push_back([&order, c] { order += c; });
  auto ms = opscope::tooling::interleavedMedianMs(fs, 0);
  EXPECT_EQ(ms.size(), 3u);
  EXPECT_EQ(order, "abcabcabc");
  order.clear();
  // With a budget, the calls go on in whole cycles until it is spent.
  opscope::tooling::interleavedMedianMs(fs, 2);
  ASSERT_GE(order.size(), 9u);
  EXPECT_EQ(order.size() % 3, 0u);
  for (size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(order[i], "abc"[i % 3]) << "call " << i << " of " << order;
  EXPECT_TRUE(opscope::tooling::interleavedMedianMs({}, 5).empty());
}

/// The database keeps each candidate's fastest round, not the median over
/// rounds: a round in a spell of contention (the dense product twice as
/// slow, the sparse kernel barely slower) must not set the ratio.
TEST(KernelBench, TuningEntryKeepsTheFastestRound) {
  opscope::tooling::KernelBenchResult r;
  r.denseImpl = "gemm:avx2";
  r.sparseImpl = "sparse_1x4:avx2:f32";
  r.denseMs = {12.0, 6.2, 11.5, 6.4, 12.1}; // median 11.5
  r.sparseMs = {{3.1, 2.9, 3.0, 3.3, 3.2}, {2.2, 2.0, 2.1, 2.3, 2.4}};
  r.matmulMs = {13, 10, 14, 10.5, 12};
  auto e = opscope::tooling::tuningEntry(
      r, 3072, 768, 128, opscope::tooling::KernelPrecision::F32, "1x4", 1,
      {0.8, 0.9});
  EXPECT_EQ(e.n, 3072);
  EXPECT_EQ(e.k, 768);
  EXPECT_EQ(e.m, 128);
  EXPECT_EQ(e.precision, "fp32");
  EXPECT_EQ(e.block, "1x4");
  EXPECT_EQ(e.threads, 1);
  EXPECT_EQ(e.denseMs, 6.2);
  EXPECT_EQ(e.matmulMs, 10);
  EXPECT_EQ(e.denseImpl, "gemm:avx2");
  EXPECT_EQ(e.sparseImpl, "sparse_1x4:avx2:f32");
  ASSERT_EQ(e.sparse.size(), 2u);
  EXPECT_EQ(e.sparse[0].sparsity, 0.8);
  EXPECT_EQ(e.sparse[0].ms, 2.9);
  EXPECT_EQ(e.sparse[1].sparsity, 0.9);
  EXPECT_EQ(e.sparse[1].ms, 2.0);
  // The spread of the per-round ratios stays in the entry: 6.4 / 3.3 and
  // 12.0 / 3.1 at 80%.
  EXPECT_DOUBLE_EQ(e.sparse[0].ratioMin, 6.4 / 3.3);
  EXPECT_DOUBLE_EQ(e.sparse[0].ratioMax, 12.0 / 3.1);
  EXPECT_EQ(opscope::tooling::fastestRound({}), 0.0);
}

/// A measurement taken again adds its rounds to the first one's: an
/// unsteady 80% point measured slow in the first is then set by the
/// faster second.
TEST(KernelBench, RoundsOfAMeasurementTakenAgainJoin) {
  opscope::tooling::KernelBenchResult first, again;
  first.denseMs = {7.5, 7.6};
  first.sparseMs = {{5.6, 5.7}, {8.2, 8.4}};
  again.denseMs = {6.4, 7.0};
  again.sparseMs = {{5.9, 6.0}, {3.1, 3.2}};
  again.matmulMs = {9.0, 9.5};
  first.appendRounds(again);
  EXPECT_EQ(first.denseMs, (std::vector<double>{7.5, 7.6, 6.4, 7.0}));
  EXPECT_EQ(first.sparseMs[1], (std::vector<double>{8.2, 8.4, 3.1, 3.2}));
  EXPECT_EQ(first.matmulMs, (std::vector<double>{9.0, 9.5}));
  auto e = opscope::tooling::tuningEntry(
      first, 3072, 768, 128, opscope::tooling::KernelPrecision::F32, "1x4",
      1, {0.7, 0.8});
  EXPECT_EQ(e.denseMs, 6.4);
  EXPECT_EQ(e.sparse[0].ms, 5.6);
  EXPECT_EQ(e.sparse[1].ms, 3.1);
  EXPECT_EQ(opscope::tuning::unsteadiness(e), "");
}

TEST(KernelBench, MeasuresEveryCandidateEveryRound) {
  opscope::tooling::KernelBenchConfig config;
  config.rounds = 2;
  config.minMs = 0;
  config.rowMajor = true;
  int calls = 0;
  for (auto prec : {opscope::tooling::KernelPrecision::F32,
                    opscope::tooling::KernelPrecision::BF16,
                    opscope::tooling::KernelPrecision::S8}) {
    auto r = opscope::tooling::measureInnerProducts(
        prec, 17, 12, 3, {0.5, 0.9}, config, [&](int, int) { ++calls; });
    EXPECT_EQ(r.denseMs.size(), 2u);
    ASSERT_EQ(r.sparseMs.size(), 2u);
    ASSERT_EQ(r.sparseRowMajorMs.size(), 2u);
    EXPECT_EQ(r.sparseMs[1].size(), 2u);
    EXPECT_EQ(r.sparseRowMajorMs[1].size(), 2u);
    EXPECT_FALSE(r.denseImpl.empty());
    EXPECT_NE(r.sparseImpl.find("sparse"), std::string::npos) << r.sparseImpl;
  }
  EXPECT_EQ(calls, 6);
}

/// Each candidate runs on a ring of weight copies of weightRingBytes in
/// all (at most 64), or on one copy (0, opscope-tune --warm-weights).
TEST(KernelBench, RingsOfWeightCopies) {
  opscope::tooling::KernelBenchConfig config;
  config.rounds = 1;
  config.minMs = 0;
  auto f32 = opscope::tooling::KernelPrecision::F32;
  // 32 x 64 f32 weights: 8 KiB a copy.
  EXPECT_EQ(measureInnerProducts(f32, 32, 64, 4, {0.5}, config).denseCopies,
            64u);
  config.weightRingBytes = 40 << 10;
  EXPECT_EQ(measureInnerProducts(f32, 32, 64, 4, {0.5}, config).denseCopies,
            5u);
  config.weightRingBytes = 0;
  auto warm = measureInnerProducts(f32, 32, 64, 4, {0.5}, config);
  EXPECT_EQ(warm.denseCopies, 1u);
  EXPECT_EQ(warm.sparseMs[0].size(), 1u);
}

/// --compare-stores: the transposed kernel again with ordinary stores, in
/// the same rounds, and the caller's store setting restored after each call.
TEST(KernelBench, TimesCachedStoresWhenAsked) {
  opscope::tooling::KernelBenchConfig config;
  config.rounds = 2;
  config.minMs = 0;
  config.rowMajor = true;
  config.cachedStores = true;
  struct Restore {
    ~Restore() { opscope::rt::setSparseStores(opscope::rt::SparseStores::Auto); }
  } restore;
  opscope::rt::setSparseStores(opscope::rt::SparseStores::Streamed);
  for (auto prec : {opscope::tooling::KernelPrecision::F32,
                    opscope::tooling::KernelPrecision::S8}) {
    auto r = opscope::tooling::measureInnerProducts(prec, 64, 16, 32,
                                                    {0.5, 0.9}, config);
    ASSERT_EQ(r.sparseCachedMs.size(), 2u);
    ASSERT_EQ(r.sparseRowMajorMs.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(r.sparseCachedMs[i].size(), 2u);
      EXPECT_EQ(r.sparseRowMajorMs[i].size(), 2u);
      for (double ms : r.sparseCachedMs[i])
        EXPECT_GT(ms, 0.0);
    }
    EXPECT_EQ(opscope::rt::sparseStores(), opscope::rt::SparseStores::Streamed);
  }
}
