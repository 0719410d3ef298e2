//===- SparseBench.cpp - sparse vs dense inner products -------------------===//
//
// Part of opscope (`make bench`). The kernel table of docs/sparsity.md:
// DistilBERT's weight shapes (N x K = 768x768, 3072x768, 768x3072) at M =
// 128 and 1024 tokens, 1x4 block sparsity of 70, 80 and 90%, opscope's
// sparse kernel against oneDNN's dense inner product of the same precision,
// on the calling thread (run it under `taskset -c 0`).
//
// The host is shared and noisy: every round times each system in turn (in-
// process median of its calls), the speed-up is computed per round, and the
// table prints the median over rounds with the min-max spread.
//
//   bench-sparse [--rounds N] [--min-ms MS] [--quick]
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/sinks.h"
#include "opscope/runtime/sparse.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace opscope;
using namespace opscope::rt;
namespace sp = opscope::rt::sparse;

namespace {
int rounds = 5;
double minMs = 150; // time per system per round

bool cpuFlag(const std::string &flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

/// Median ms of one call, over as many calls as fit in minMs (at least 3).
double medianMs(const std::function<void()> &f) {
  using clock = std::chrono::steady_clock;
  std::vector<double> t;
  auto start = clock::now();
  do {
    auto a = clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(clock::now() - a)
                    .count());
  } while (t.size() < 3 ||
           std::chrono::duration<double, std::milli>(clock::now() - start)
                   .count() < minMs);
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.02f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Zeroes `ratio` of the 1x4 blocks with the smallest L1 norm (as
/// opscope-prune and Intel's pruned models do).
void prune(std::vector<float> &w, int64_t n, int64_t k, double ratio) {
  int64_t perRow = k / 4, blocks = n * perRow;
  std::vector<float> norm(blocks);
  for (int64_t b = 0; b < blocks; ++b) {
    const float *p = &w[(b / perRow) * k + (b % perRow) * 4];
    norm[b] = std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2]) +
              std::fabs(p[3]);
  }
  std::vector<int64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  int64_t cut = std::llround(ratio * blocks);
  std::nth_element(order.begin(), order.begin() + cut, order.end(),
                   [&](int64_t a, int64_t b) { return norm[a] < norm[b]; });
  for (int64_t i = 0; i < cut; ++i)
    std::fill_n(&w[(order[i] / perRow) * k + (order[i] % perRow) * 4], 4,
                0.0f);
}

struct AlignedBlob {
  std::unique_ptr<uint8_t[]> storage;
  uint8_t *ptr;
  AlignedBlob(const std::vector<float> &w, int64_t n, int64_t k,
              sp::ValueType t) {
    int64_t nnz = sp::countNonZeroBlocks(w.data(), n, k);
    size_t bytes = sp::layout(t, n, k, nnz).totalBytes;
    storage.reset(new uint8_t[bytes + 64]);
    ptr = storage.get() +
          (64 - reinterpret_cast<uintptr_t>(storage.get()) % 64) % 64;
    sp::pack(w.data(), n, k, t, ptr);
  }
};

struct Row {
  std::string precision, shape;
  int64_t m;
  double sparsity, denseMs, sparseMs, speedup, lo, hi, target;
  double rowsMs, rowsSpeedup; // the same kernel with row-major activations
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One shape, one M, one precision: dense and every ratio, in rounds.
enum class Prec { F32, BF16, S8 };
const char *precName(Prec p) {
  return p == Prec::F32 ? "fp32" : p == Prec::BF16 ? "bf16" : "int8";
}

void measure(Prec prec, int64_t n, int64_t k, int64_t m,
             const std::vector<double> &ratios, std::vector<Row> &rows,
             std::string &denseImpl, std::string &sparseImpl) {
  auto x = randomVector(m * k, 1);
  bool int8 = prec == Prec::S8, bf16 = prec == Prec::BF16;
  std::vector<uint16_t> xb(m * k);
  for (size_t i = 0; i < xb.size(); ++i)
    xb[i] = sp::toBf16(x[i]);
  std::vector<uint8_t> xq(m * k);
  for (size_t i = 0; i < xq.size(); ++i)
    xq[i] = static_cast<uint8_t>(std::clamp(128.0f + x[i] * 2000.0f, 0.0f,
                                            255.0f));
  std::vector<float> y(m * n), bias(n, 0.01f);
  auto dense = randomVector(n * k, 2);
  std::vector<std::function<void()>> systems;
  std::unique_ptr<InnerProduct> df;
  std::unique_ptr<QuantizedInnerProduct> dq;
  std::unique_ptr<Bf16InnerProduct> db;
  if (bf16) {
    db = std::make_unique<Bf16InnerProduct>(m, k, n, dense.data(), bias.data(),
                                            std::vector<PostOp>{});
    denseImpl = db->implementation();
    systems.push_back([&] { db->run(xb.data(), y.data()); });
  } else if (int8) {
    dq = std::make_unique<QuantizedInnerProduct>(m, k, n, dense.data(),
                                                 bias.data(),
                                                 std::vector<PostOp>{});
    denseImpl = dq->implementation();
    systems.push_back([&] { dq->run(xq.data(), 0.01f, y.data()); });
  } else {
    df = std::make_unique<InnerProduct>(m, k, n, dense.data(), bias.data(),
                                        std::vector<PostOp>{});
    denseImpl = df->implementation();
    systems.push_back([&] { df->run(x.data(), y.data()); });
  }
  std::vector<std::unique_ptr<AlignedBlob>> blobs;
  std::vector<std::unique_ptr<SparseInnerProduct>> sf;
  std::vector<std::unique_ptr<SparseInnerProductS8>> sq;
  // Systems 1 + 2i: ratio i with transposed activations (a chain inside
  // the osc-sparse-layout pass); 2 + 2i: row-major (a chain boundary).
  for (double r : ratios) {
    auto w = dense;
    prune(w, n, k, r);
    blobs.push_back(std::make_unique<AlignedBlob>(
        w, n, k,
        int8 ? sp::ValueType::S8 : bf16 ? sp::ValueType::BF16 : sp::ValueType::F32));
    for (bool transposed : {true, false}) {
      SparseLayout layout{transposed, transposed};
      if (int8) {
        sq.push_back(std::make_unique<SparseInnerProductS8>(
            m, blobs.back()->ptr, bias.data(), std::vector<PostOp>{}, layout));
        sparseImpl = sq.back()->implementation();
        auto *k8 = sq.back().get();
        systems.push_back(
            [&, k8] { k8->run(xq.data(), 0.01f, 128, y.data()); });
      } else {
        sf.push_back(std::make_unique<SparseInnerProduct>(
            m, blobs.back()->ptr, bias.data(), std::vector<PostOp>{},
            layout));
        sparseImpl = sf.back()->implementation();
        auto *kf = sf.back().get();
        systems.push_back([&, kf] { kf->run(x.data(), y.data()); });
      }
    }
  }
  for (auto &s : systems) // warm up: first-touch, oneDNN's JIT
    s();
  std::vector<std::vector<double>> ms(systems.size()), ratio(ratios.size()),
      rowsRatio(ratios.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t s = 0; s < systems.size(); ++s)
      ms[s].push_back(medianMs(systems[s]));
    for (size_t i = 0; i < ratios.size(); ++i) {
      ratio[i].push_back(ms[0].back() / ms[1 + 2 * i].back());
      rowsRatio[i].push_back(ms[0].back() / ms[2 + 2 * i].back());
    }
  }
  for (size_t i = 0; i < ratios.size(); ++i) {
    Row row;
    row.precision = precName(prec);
    row.shape = std::to_string(n) + "x" + std::to_string(k);
    row.m = m;
    row.sparsity = ratios[i];
    row.denseMs = median(ms[0]);
    row.sparseMs = median(ms[1 + 2 * i]);
    row.speedup = median(ratio[i]);
    row.rowsMs = median(ms[2 + 2 * i]);
    row.rowsSpeedup = median(rowsRatio[i]);
    row.lo = *std::min_element(ratio[i].begin(), ratio[i].end());
    row.hi = *std::max_element(ratio[i].begin(), ratio[i].end());
    double pct = std::round(ratios[i] * 100);
    // Issue 13's targets (none for bf16).
    row.target = bf16        ? 0.0
                 : pct == 80 ? (int8 ? 3.0 : 2.0)
                 : pct == 90 ? (int8 ? 5.0 : 4.0)
                             : 0.0;
    rows.push_back(row);
  }
}
} // namespace

int main(int argc, char **argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--min-ms" && i + 1 < argc)
      minMs = std::atof(argv[++i]);
    else if (a == "--quick")
      quick = true;
    else {
      std::fprintf(stderr,
                   "usage: bench-sparse [--rounds N] [--min-ms MS] [--quick]\n");
      return 2;
    }
  }
  setDenseThreads(1); // oneDNN and the sparse kernels share OpenMP's pool
  bool amx = cpuFlag("amx_tile") && cpuFlag("amx_int8");
  std::printf("CPU: %s; AMX: %s; sparse kernels: f32 %s, bf16 %s, s8 %s; "
              "one thread\n",
              cpuModelName().c_str(), amx ? "yes" : "no",
              sparseIsa(sp::ValueType::F32).c_str(),
              sparseIsa(sp::ValueType::BF16).c_str(),
              sparseIsa(sp::ValueType::S8).c_str());
  std::printf("speed-up = dense ms / sparse ms, median over %d alternating "
              "rounds [min-max]\n\n",
              rounds);
  struct Shape {
    int64_t n, k;
  };
  std::vector<Shape> shapes = {{768, 768}, {3072, 768}, {768, 3072}};
  std::vector<int64_t> ms = {128, 1024};
  std::vector<double> ratios = {0.7, 0.8, 0.9};
  if (quick) {
    shapes = {{768, 768}};
    ms = {128};
  }
  std::printf("sparse_ms/speedup: activations transposed (K x M in, N x M "
              "out), as inside a chain of the osc-sparse-layout pass;\n"
              "rows_ms/rows_x: row-major activations (the kernel transposes "
              "its tiles), as at a chain boundary.\n\n");
  std::printf("%-6s %-10s %5s %8s %9s %9s %8s %13s %7s %9s %7s\n", "prec",
              "NxK", "M", "sparsity", "dense_ms", "sparse_ms", "speedup",
              "spread", "target", "rows_ms", "rows_x");
  for (Prec prec : {Prec::F32, Prec::BF16, Prec::S8}) {
    std::string denseImpl, sparseImpl;
    for (const Shape &s : shapes)
      for (int64_t m : ms) {
        std::vector<Row> rows;
        measure(prec, s.n, s.k, m, ratios, rows, denseImpl, sparseImpl);
        for (const Row &r : rows) {
          char spread[32], target[16];
          std::snprintf(spread, sizeof spread, "[%.2f-%.2f]", r.lo, r.hi);
          if (r.target > 0)
            std::snprintf(target, sizeof target, ">= %.1f", r.target);
          else
            std::snprintf(target, sizeof target, "-");
          std::printf("%-6s %-10s %5ld %7.0f%% %9.3f %9.3f %7.2fx %13s %7s "
                      "%9.3f %6.2fx\n",
                      r.precision.c_str(), r.shape.c_str(), (long)r.m,
                      r.sparsity * 100, r.denseMs, r.sparseMs, r.speedup,
                      spread, target, r.rowsMs, r.rowsSpeedup);
          std::fflush(stdout);
        }
      }
    std::printf("  (%s: dense %s, sparse %s)\n", precName(prec),
                denseImpl.c_str(), sparseImpl.c_str());
  }
  return 0;
}
