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
#include <cstdio>
#include <vector>

using namespace opscope::rt;

static void setIsa(benchmark::State &state) {
  setKernelIsa(state.range(0) ? Isa::Avx512 : Isa::Portable);
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

/// Each own kernel at every implementation this CPU (under OPSCOPE_MAX_ISA)
/// has: the AVX-512 form only where it can run, never a row of errors.
int main(int argc, char **argv) {
  setKernelIsa(Isa::Avx512);
  bool avx512 = kernelIsa() == Isa::Avx512;
  setKernelIsa(Isa::Portable);
  std::printf("opscope's own kernels: %s (ISA cap %s)\n",
              avx512 ? "portable and avx512"
                     : "portable only (no AVX-512 here or under the cap)",
              isaLevelName(maxIsa()));
  std::vector<int64_t> isas = {0};
  if (avx512)
    isas.push_back(1);
  for (int64_t isa : isas) {
    benchmark::RegisterBenchmark("BM_LayerNorm", BM_LayerNorm)
        ->Arg(isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_SoftmaxMasked", BM_SoftmaxMasked)
        ->Arg(isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("BM_GeluErf", BM_GeluErf)
        ->Arg(isa)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
