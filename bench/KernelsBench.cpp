//===- KernelsBench.cpp - opscope's own kernels at encoder sizes ----------===//
//
// Part of opscope. DistilBERT-shaped work (seq 128): LayerNorm over 128 x 768,
// masked softmax over 12 x 128 x 128 scores, GELU over 128 x 3072, each with
// the AVX-512 and the portable implementation.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

using namespace opscope::rt;

static void setIsa(benchmark::State &state) {
  setKernelIsa(state.range(0) ? Isa::Avx512 : Isa::Portable);
  if (state.range(0) && kernelIsa() != Isa::Avx512)
    state.SkipWithError("no AVX-512 on this CPU");
  state.SetLabel(state.range(0) ? "avx512" : "portable");
}

static void BM_LayerNorm(benchmark::State &state) {
  setIsa(state);
  std::vector<float> x(128 * 768, 0.5f), g(768, 1.0f), b(768, 0.0f), y(x.size());
  for (auto _ : state)
    layerNorm(x.data(), g.data(), b.data(), y.data(), 128, 768, 1e-12f);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

static void BM_SoftmaxMasked(benchmark::State &state) {
  setIsa(state);
  std::vector<float> x(12 * 128 * 128, 0.25f), mask(128, 0.0f), y(x.size());
  // The last quarter of the sequence is padding, as in make_inputs.py's
  // inputs: its scores get the mask's -10000.
  std::fill(mask.begin() + 96, mask.end(), -10000.0f);
  for (auto _ : state)
    softmax(x.data(), mask.data(), 12 * 128, y.data(), 12 * 128, 128, false);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

static void BM_GeluErf(benchmark::State &state) {
  setIsa(state);
  std::vector<float> x(128 * 3072, 0.3f), y(x.size());
  for (auto _ : state)
    gelu(x.data(), y.data(), x.size(), false);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

/// DistilBERT's linear layers at seq 128: QKV/output (768 -> 768), FFN up
/// (768 -> 3072, GELU post-op) and down (3072 -> 768, residual sum).
static void BM_InnerProduct(benchmark::State &state) {
  int64_t m = 128, k = state.range(0), n = state.range(1);
  std::vector<float> x(m * k, 0.01f), w(n * k, 0.02f), b(n, 0.0f), y(m * n);
  std::vector<PostOp> post;
  if (n > k)
    post.push_back(PostOp::GeluErf);
  if (k > n)
    post.push_back(PostOp::Sum);
  InnerProduct ip(m, k, n, w.data(), b.data(), post);
  for (auto _ : state)
    ip.run(x.data(), y.data(), y.data());
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * k * n * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
  state.SetLabel(ip.implementation());
}

BENCHMARK(BM_InnerProduct)->Args({768, 768})->Args({768, 3072})->Args({3072, 768})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LayerNorm)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SoftmaxMasked)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GeluErf)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
