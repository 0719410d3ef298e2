//===- KernelBench.cpp - dense vs sparse inner-product timing -------------===//
//
// Part of opscope's runtime tooling. See kernel_bench.h.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/kernel_bench.h"

#include "../kernels/AlignedBuffer.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/sparse.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

using namespace opscope;
using namespace opscope::rt;
namespace sp = opscope::rt::sparse;

namespace opscope::tooling {

const char *precisionName(KernelPrecision p) {
  return p == KernelPrecision::F32    ? "fp32"
         : p == KernelPrecision::BF16 ? "bf16"
                                      : "int8";
}

bool parsePrecision(const std::string &s, KernelPrecision &out) {
  for (KernelPrecision p :
       {KernelPrecision::F32, KernelPrecision::BF16, KernelPrecision::S8})
    if (s == precisionName(p)) {
      out = p;
      return true;
    }
  return false;
}

double medianCallMs(const std::function<void()> &f, double minMs) {
  using clock = std::chrono::steady_clock;
  std::vector<double> t;
  auto start = clock::now();
  do {
    auto a = clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(clock::now() - a).count());
  } while (t.size() < 3 ||
           std::chrono::duration<double, std::milli>(clock::now() - start)
                   .count() < minMs);
  return median(std::move(t));
}

std::vector<double>
interleavedMedianMs(const std::vector<std::function<void()>> &fs,
                    double minMs) {
  using clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> t(fs.size());
  auto start = clock::now();
  double budget = minMs * static_cast<double>(fs.size());
  do {
    for (size_t i = 0; i < fs.size(); ++i) {
      auto a = clock::now();
      fs[i]();
      t[i].push_back(
          std::chrono::duration<double, std::milli>(clock::now() - a).count());
    }
  } while (!fs.empty() &&
           (t[0].size() < 3 ||
            std::chrono::duration<double, std::milli>(clock::now() - start)
                    .count() < budget));
  std::vector<double> medians;
  for (auto &v : t)
    medians.push_back(median(std::move(v)));
  return medians;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

void pruneBlocks(std::vector<float> &w, int64_t n, int64_t k, double ratio,
                 int64_t blockRows) {
  // A trailing partial block (K not a multiple of 4) is never pruned.
  int64_t perRow = k / 4, blocks = n / blockRows * perRow;
  if (blocks == 0)
    return;
  auto at = [&](int64_t b, int64_t q) {
    return &w[((b / perRow) * blockRows + q) * k + (b % perRow) * 4];
  };
  std::vector<float> norm(blocks, 0.0f);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t q = 0; q < blockRows; ++q) {
      const float *p = at(b, q);
      norm[b] += std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2]) +
                 std::fabs(p[3]);
    }
  std::vector<int64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  int64_t cut = std::clamp<int64_t>(std::llround(ratio * blocks), 0, blocks);
  std::nth_element(order.begin(), order.begin() + cut, order.end(),
                   [&](int64_t a, int64_t b) { return norm[a] < norm[b]; });
  for (int64_t i = 0; i < cut; ++i)
    for (int64_t q = 0; q < blockRows; ++q)
      std::fill_n(at(order[i], q), 4, 0.0f);
}

void KernelBenchResult::appendRounds(const KernelBenchResult &more) {
  auto add = [](std::vector<double> &to, const std::vector<double> &from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  auto addEach = [&](std::vector<std::vector<double>> &to,
                     const std::vector<std::vector<double>> &from) {
    if (to.size() < from.size())
      to.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i)
      add(to[i], from[i]);
  };
  add(denseMs, more.denseMs);
  add(matmulMs, more.matmulMs);
  addEach(sparseMs, more.sparseMs);
  addEach(sparseRowMajorMs, more.sparseRowMajorMs);
  addEach(sparseCachedMs, more.sparseCachedMs);
}

double fastestRound(const std::vector<double> &perRound) {
  return perRound.empty()
             ? 0.0
             : *std::min_element(perRound.begin(), perRound.end());
}

tuning::Entry tuningEntry(const KernelBenchResult &res, int64_t n, int64_t k,
                          int64_t m, KernelPrecision prec,
                          const std::string &block, int threads,
                          const std::vector<double> &ratios) {
  tuning::Entry e;
  e.n = n;
  e.k = k;
  e.m = m;
  e.precision = precisionName(prec);
  e.block = block;
  e.threads = threads;
  e.denseMs = fastestRound(res.denseMs);
  e.denseImpl = res.denseImpl;
  e.sparseImpl = res.sparseImpl;
  if (!res.matmulMs.empty()) {
    e.matmulMs = fastestRound(res.matmulMs);
    e.matmulImpl = res.matmulImpl;
  }
  for (size_t i = 0; i < ratios.size() && i < res.sparseMs.size(); ++i) {
    auto pr = res.perRoundRatios(i);
    if (pr.empty())
      continue;
    e.sparse.push_back({ratios[i], fastestRound(res.sparseMs[i]),
                        *std::min_element(pr.begin(), pr.end()),
                        *std::max_element(pr.begin(), pr.end())});
  }
  return e;
}

std::vector<double> KernelBenchResult::perRoundRatios(size_t i,
                                                      bool rowMajor) const {
  const auto &s = rowMajor ? sparseRowMajorMs[i] : sparseMs[i];
  std::vector<double> r;
  for (size_t j = 0; j < denseMs.size() && j < s.size(); ++j)
    r.push_back(denseMs[j] / s[j]);
  return r;
}

namespace {
std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.02f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Weight copies per candidate at most (small weights: 64 copies of a
/// 256 x 256 f32 weight are 16 MiB, past L2 as in a model of such layers).
constexpr size_t kMaxCopies = 64;

struct AlignedBlob {
  std::unique_ptr<uint8_t[]> storage;
  uint8_t *ptr;
  size_t bytes;
  /// Packed in `blockRows` x 4 blocks, or as the compiler would choose (0).
  AlignedBlob(const std::vector<float> &w, int64_t n, int64_t k,
              sp::ValueType t, int64_t blockRows = 0) {
    int64_t br = blockRows ? blockRows : sp::chooseBlockRows(w.data(), n, k);
    int64_t nnz = sp::countNonZeroBlocks(w.data(), n, k, br);
    bytes = sp::layout(t, n, k, nnz, br).totalBytes;
    storage.reset(new uint8_t[bytes + 64]);
    ptr = storage.get() +
          (64 - reinterpret_cast<uintptr_t>(storage.get()) % 64) % 64;
    sp::pack(w.data(), n, k, t, ptr, br);
  }
};
} // namespace

KernelBenchResult
measureInnerProducts(KernelPrecision prec, int64_t n, int64_t k, int64_t m,
                     const std::vector<double> &ratios,
                     const KernelBenchConfig &config,
                     const std::function<void(int, int)> &onRound) {
  KernelBenchResult res;
  auto x = randomVector(m * k, 1);
  bool int8 = prec == KernelPrecision::S8, bf16 = prec == KernelPrecision::BF16;
  std::vector<uint16_t> xb(m * k);
  for (size_t i = 0; i < xb.size(); ++i)
    xb[i] = sp::toBf16(x[i]);
  std::vector<uint8_t> xq(m * k);
  for (size_t i = 0; i < xq.size(); ++i)
    xq[i] = static_cast<uint8_t>(
        std::clamp(128.0f + x[i] * 2000.0f, 0.0f, 255.0f));
  std::vector<float> bias(n, 0.01f);
  // The output 64-byte aligned, as the runtime's arena places every tensor
  // (the sparse kernels stream large aligned outputs past the caches).
  AlignedBuffer<float> yBuf;
  yBuf.resize(size_t(m * n));
  float *y = yBuf.data;
  auto dense = randomVector(n * k, 2);
  std::vector<std::function<void()>> systems;
  // Each candidate as a ring of copies, each with weights of its own (held
  // by `keep`), one per call: config.weightRingBytes of weights in all (at
  // most kMaxCopies copies), so that each call reads its weights from
  // memory or L3 as a model's run does, not from the cache the previous
  // call left them in.
  std::vector<std::shared_ptr<void>> keep;
  auto copiesFor = [&](size_t weightBytes) -> size_t {
    if (config.weightRingBytes == 0 || weightBytes == 0)
      return 1;
    return std::clamp<size_t>(config.weightRingBytes / weightBytes, 1,
                              kMaxCopies);
  };
  // `make(copy)` builds one copy and returns its call.
  auto ring = [&](size_t weightBytes,
                  const std::function<std::function<void()>(size_t)> &make) {
    auto calls = std::make_shared<std::vector<std::function<void()>>>();
    for (size_t i = 0, c = copiesFor(weightBytes); i < c; ++i)
      calls->push_back(make(i));
    for (auto &call : *calls) // warm up: first touch, oneDNN's JIT
      call();
    auto at = std::make_shared<size_t>(0);
    systems.push_back([calls, at] {
      (*calls)[*at]();
      *at = (*at + 1) % calls->size();
    });
  };
  // Keeps `object` alive and returns it.
  auto held = [&](auto object) {
    keep.push_back(object);
    return object.get();
  };
  // The bytes each copy holds: bf16 weights stay f32 where the CPU has no
  // bf16 instructions, and the bf16 sparse kernels may widen theirs
  // (KernelTable::bf16OnF32), so bf16 counts as f32.
  size_t denseBytes = size_t(n * k) * (int8 ? 1 : 4);
  res.denseCopies = copiesFor(denseBytes);
  if (bf16) {
    ring(denseBytes, [&](size_t) -> std::function<void()> {
      auto *db = held(std::make_shared<Bf16InnerProduct>(
          m, k, n, dense.data(), bias.data(), std::vector<PostOp>{},
          Bf16Activations{true, false}));
      res.denseImpl = db->implementation();
      return [&, db] { db->runRaw(xb.data(), y); };
    });
  } else if (int8) {
    ring(denseBytes, [&](size_t) -> std::function<void()> {
      auto *dq = held(std::make_shared<QuantizedInnerProduct>(
          m, k, n, dense.data(), bias.data(), std::vector<PostOp>{}));
      res.denseImpl = dq->implementation();
      return [&, dq] { dq->run(xq.data(), 0.01f, y); };
    });
  } else {
    ring(denseBytes, [&](size_t) -> std::function<void()> {
      auto *df = held(std::make_shared<InnerProduct>(
          m, k, n, dense.data(), bias.data(), std::vector<PostOp>{}));
      res.denseImpl = df->implementation();
      return [&, df] { df->run(x.data(), y); };
    });
  }
  // Per ratio: the transposed layout (inside an osc-sparse-layout chain),
  // then row-major (a chain boundary) when asked.
  std::vector<bool> layouts = {true};
  if (config.rowMajor)
    layouts.push_back(false);
  // Runs `f` with ordinary stores, then restores the caller's setting.
  auto cached = [](const std::function<void()> &f) {
    SparseStores saved = sparseStores();
    setSparseStores(SparseStores::Cached);
    f();
    setSparseStores(saved);
  };
  auto type = int8   ? sp::ValueType::S8
              : bf16 ? sp::ValueType::BF16
                     : sp::ValueType::F32;
  for (double r : ratios) {
    auto w = dense;
    pruneBlocks(w, n, k, r, config.blockRows);
    // One packing per copy, shared by the layouts and store modes (a bf16
    // kernel that widens it keeps a copy of its own).
    std::vector<const uint8_t *> blobs;
    size_t blobBytes = 0;
    for (size_t i = 0, c = 1; i < c; ++i) {
      auto *blob = held(std::make_shared<AlignedBlob>(w, n, k, type));
      blobs.push_back(blob->ptr);
      blobBytes = blob->bytes * (bf16 ? 2 : 1);
      c = copiesFor(blobBytes);
    }
    for (bool transposed : layouts) {
      SparseLayout layout{transposed, transposed};
      std::vector<bool> modes = {false};
      if (transposed && config.cachedStores)
        modes.push_back(true);
      for (bool cachedStores : modes)
        ring(blobBytes, [&](size_t i) -> std::function<void()> {
          if (int8) {
            auto *k8 = held(std::make_shared<SparseInnerProductS8>(
                m, blobs[i], bias.data(), std::vector<PostOp>{}, layout));
            res.sparseImpl = k8->implementation();
            auto call = [&, k8] { k8->run(xq.data(), 0.01f, 128, y); };
            if (!cachedStores)
              return call;
            return [&, call] { cached(call); };
          }
          auto *kf = held(std::make_shared<SparseInnerProduct>(
              m, blobs[i], bias.data(), std::vector<PostOp>{}, layout));
          res.sparseImpl = kf->implementation();
          auto call = [&, kf] { kf->run(x.data(), y); };
          if (!cachedStores)
            return call;
          return [&, call] { cached(call); };
        });
    }
  }
  // fp32: the same dense product on oneDNN's matmul primitive, last.
  bool matmul = !int8 && !bf16;
  if (matmul)
    ring(denseBytes, [&](size_t) -> std::function<void()> {
      auto *dm = held(std::make_shared<MatMulInnerProduct>(
          m, k, n, dense.data(), bias.data(), std::vector<PostOp>{}));
      res.matmulImpl = dm->implementation();
      return [&, dm] { dm->run(x.data(), y); };
    });
  // Per ratio: transposed, [transposed with ordinary stores], [row-major].
  size_t per = layouts.size() + (config.cachedStores ? 1 : 0);
  size_t cachedAt = 1, rowMajorAt = config.cachedStores ? 2 : 1;
  res.sparseMs.assign(ratios.size(), {});
  if (config.rowMajor)
    res.sparseRowMajorMs.assign(ratios.size(), {});
  if (config.cachedStores)
    res.sparseCachedMs.assign(ratios.size(), {});
  int rounds = std::max(1, config.rounds);
  for (int r = 0; r < rounds; ++r) {
    // Every candidate in turn, call by call: a slow spell of the host
    // (another process, frequency changes) lasting longer than a few calls
    // slows every candidate alike, where timing each over its own
    // --min-ms once made one candidate's median 2-3x off in a round.
    std::vector<double> ms = interleavedMedianMs(systems, config.minMs);
    res.denseMs.push_back(ms[0]);
    for (size_t i = 0; i < ratios.size(); ++i) {
      const double *at = &ms[1 + per * i];
      res.sparseMs[i].push_back(at[0]);
      if (config.cachedStores)
        res.sparseCachedMs[i].push_back(at[cachedAt]);
      if (config.rowMajor)
        res.sparseRowMajorMs[i].push_back(at[rowMajorAt]);
    }
    if (matmul)
      res.matmulMs.push_back(ms.back());
    if (onRound)
      onRound(r + 1, rounds);
  }
  return res;
}

//===----------------------------------------------------------------------===//
// SparsePeak
//===----------------------------------------------------------------------===//

/// The kernel on a fully populated 1x4 pattern: N = 768 rows with every
/// block of K, packed 1x4 (the compiler would pack a dense weight 4x4).
struct SparsePeak::Pattern {
  static constexpr int64_t n = 768, m = 256;
  AlignedBlob blob;
  std::vector<float> bias = std::vector<float>(n, 0.0f), xf;
  std::vector<uint8_t> xq;
  AlignedBuffer<float> y;
  std::unique_ptr<SparseInnerProduct> f32;
  std::unique_ptr<SparseInnerProductS8> s8;
  std::function<void()> pass;

  Pattern(bool int8, int64_t k)
      : blob(randomVector(size_t(n) * k, 3), n, k,
             int8 ? sp::ValueType::S8 : sp::ValueType::F32, 1) {
    y.resize(size_t(n) * m);
    SparseLayout layout{true, true};
    if (int8) {
      auto x = randomVector(size_t(k) * m, 4);
      for (float v : x)
        xq.push_back(static_cast<uint8_t>(
            std::clamp(128.0f + v * 2000.0f, 0.0f, 255.0f)));
      s8 = std::make_unique<SparseInnerProductS8>(
          m, blob.ptr, bias.data(), std::vector<PostOp>{}, layout);
      pass = [this] { s8->run(xq.data(), 0.01f, 128, y.data); };
    } else {
      xf = randomVector(size_t(k) * m, 4);
      f32 = std::make_unique<SparseInnerProduct>(
          m, blob.ptr, bias.data(), std::vector<PostOp>{}, layout);
      pass = [this] { f32->run(xf.data(), y.data); };
    }
    pass(); // warm: first-touch faults, packed buffers
  }
};

SparsePeak::SparsePeak(KernelPrecision prec)
    : k0(prec == KernelPrecision::S8 ? 128 : 64),
      int8(prec == KernelPrecision::S8) {
  small = std::make_unique<Pattern>(int8, k0);
  large = std::make_unique<Pattern>(int8, 2 * k0);
}

SparsePeak::~SparsePeak() = default;

double SparsePeak::rate(double minMs) {
  double a = medianCallMs(small->pass, minMs);
  double b = medianCallMs(large->pass, minMs);
  double ops = double(Pattern::n) * k0 * Pattern::m / (int8 ? 64 : 16);
  return b > a ? ops / ((b - a) * 1e-3) : 0.0;
}

} // namespace opscope::tooling
