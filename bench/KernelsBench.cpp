//===- KernelsBench.cpp - opscope's own kernels at encoder sizes ----------===//
//
// Part of opscope. DistilBERT-shaped work (seq 128): LayerNorm over 128 x 768,
// masked softmax over 12 x 128 x 128 scores, GELU over 128 x 3072, and the
// unfused forms' rows, conversions and transposes, each at every tier of
// the kernel table (reference, avx2, avx512) the CPU has.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using namespace opscope::rt;

/// The benchmark's tier (its argument, an IsaLevel), set before it runs.
static void setTier(benchmark::State &state) {
  setKernelTier(static_cast<IsaLevel>(state.range(0)));
  state.SetLabel(kernelTierName());
}

static void BM_LayerNorm(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(128 * 768, 0.5f), g(768, 1.0f), b(768, 0.0f), y(x.size());
  for (auto _ : state)
    layerNorm(x.data(), g.data(), b.data(), y.data(), 128, 768, 1e-12f);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

static void BM_SoftmaxMasked(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(12 * 128 * 128, 0.25f), mask(128, 0.0f), y(x.size());
  // The last quarter of the sequence is padding, as in make_inputs.py's
  // inputs: its scores get the mask's -10000.
  std::fill(mask.begin() + 96, mask.end(), -10000.0f);
  for (auto _ : state)
    softmax(x.data(), mask.data(), 12 * 128, y.data(), 12 * 128, 128, false);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

static void BM_GeluErf(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(128 * 3072, 0.3f), y(x.size());
  for (auto _ : state)
    gelu(x.data(), y.data(), x.size(), false);
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

/// The unfused forms' rows: exp, an add, a where over the attention
/// scores' shape, and a sum over 768 (the decomposed LayerNorm's mean).
static void BM_Exp(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(12 * 128 * 128, -0.5f), y(x.size());
  for (auto _ : state)
    transcendental(Transcendental::Exp, x.data(), y.data(), x.size());
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

static void BM_Add(benchmark::State &state) {
  setTier(state);
  Shape shape = {128, 3072};
  std::vector<float> a(128 * 3072, 1.0f), b(a.size(), 2.0f), y(a.size());
  for (auto _ : state)
    binary(BinaryKind::Add, DType::F32, a.data(), shape, b.data(), shape,
           y.data(), shape);
  state.SetBytesProcessed(state.iterations() * a.size() * 12);
}

static void BM_Where(benchmark::State &state) {
  setTier(state);
  Shape shape = {12, 128, 128};
  std::vector<uint8_t> c(12 * 128 * 128);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = i % 3 != 0;
  std::vector<float> a(c.size(), 1.0f), b(c.size(), -1e4f), y(c.size());
  for (auto _ : state)
    where(c.data(), shape, a.data(), shape, b.data(), shape, y.data(), shape,
          sizeof(float));
  state.SetBytesProcessed(state.iterations() * c.size() * 13);
}

static void BM_ReduceMean(benchmark::State &state) {
  setTier(state);
  Shape shape = {128, 768};
  std::vector<float> x(128 * 768, 0.5f), y(128);
  for (auto _ : state)
    reduce(ReduceKind::Mean, DType::F32, x.data(), shape, {1}, y.data());
  state.SetBytesProcessed(state.iterations() * x.size() * 4);
}

/// Dynamic int8's activation quantization and bf16 chains' rounding over
/// an FFN activation (128 x 3072), and a 32-bit transpose of one (the
/// sparse layout's and attention's transposes).
static void BM_QuantizeU8(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(128 * 3072, 0.3f);
  std::vector<uint8_t> q(x.size());
  for (auto _ : state)
    quantizeU8(x.data(), q.data(), x.size(), 0.01f, 128);
  state.SetBytesProcessed(state.iterations() * x.size() * 5);
}

static void BM_ToBf16(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(128 * 3072, 0.3f);
  std::vector<uint16_t> y(x.size());
  for (auto _ : state)
    roundToBf16(x.data(), y.data(), x.size());
  state.SetBytesProcessed(state.iterations() * x.size() * 6);
}

static void BM_Transpose(benchmark::State &state) {
  setTier(state);
  std::vector<float> x(128 * 3072, 0.3f), y(x.size());
  for (auto _ : state)
    transposeMatrices32(x.data(), 1, 128, 3072, y.data());
  state.SetBytesProcessed(state.iterations() * x.size() * 8);
}

/// A 2x bilinear upsampling of a 64-channel 80x80 feature map (an OCR
/// detector's neck), NCHW and channels-last.
static void BM_Resize(benchmark::State &state) {
  setTier(state);
  ResizeParams p;
  p.mode = ResizeMode::Linear;
  p.transform = CoordinateTransform::HalfPixel;
  Shape in = {1, 64, 80, 80}, out = {1, 64, 160, 160};
  auto plan = planResize2D(p, in, out);
  std::vector<float> x(numElements(in), 0.3f), y(numElements(out));
  for (auto _ : state) {
    resize2D(*plan, x.data(), y.data());
    resize2DNhwc(*plan, 64, x.data(), y.data());
  }
  state.SetBytesProcessed(state.iterations() * (x.size() + y.size()) * 8);
}

/// The corpus CNN's max pooling (8x32x32x32, 3x3, stride 2, pad 1),
/// channels-last: the kernel that runs below AVX-512 (above it, oneDNN's).
static void BM_MaxPoolNhwc(benchmark::State &state) {
  setTier(state);
  Shape in = {8, 32, 32, 32}, out = {8, 32, 16, 16};
  std::vector<float> x(numElements(in), 0.3f), y(numElements(out));
  for (auto _ : state)
    maxPool2DNhwc(x.data(), in, out, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1},
                  y.data());
  state.SetBytesProcessed(state.iterations() * (x.size() + y.size()) * 4);
}

/// DistilBERT's linear layers at seq 128: QKV/output (768 -> 768), FFN up
/// (768 -> 3072, GELU post-op) and down (3072 -> 768, residual sum).
/// An inner product of DistilBERT's shapes (M = 128): f32, or bf16 (IP =
/// Bf16InnerProduct: oneDNN's bf16 kernels where the CPU has bf16
/// instructions, else f32 kernels on the bf16 weights), so the two rows
/// show bf16's cost or gain over f32 at this tier.
template <typename IP> void innerProductBench(benchmark::State &state) {
  int64_t m = 128, k = state.range(0), n = state.range(1);
  std::vector<float> x(m * k, 0.01f), w(n * k, 0.02f), b(n, 0.0f), y(m * n);
  std::vector<PostOp> post;
  if (n > k)
    post.push_back(PostOp::GeluErf);
  if (k > n)
    post.push_back(PostOp::Sum);
  IP ip(m, k, n, w.data(), b.data(), post);
  for (auto _ : state)
    ip.run(x.data(), y.data(), y.data());
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * k * n * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
  state.SetLabel(ip.implementation());
}

static void BM_InnerProduct(benchmark::State &state) {
  innerProductBench<InnerProduct>(state);
}
BENCHMARK(BM_InnerProduct)->Args({768, 768})->Args({768, 3072})->Args({3072, 768})
    ->Unit(benchmark::kMicrosecond);

/// Runs each iteration on the next kernel object of `ips`, a ring of
/// copies (cold weights where there are several), and reports `ops`
/// operations a call as a rate named `unit`, labelled with the first
/// copy's implementation.
template <typename IP, typename Run>
void runRing(benchmark::State &state,
             const std::vector<std::unique_ptr<IP>> &ips, double ops,
             const char *unit, Run run) {
  size_t at = 0;
  for (auto _ : state) {
    run(*ips[at]);
    at = at + 1 == ips.size() ? 0 : at + 1;
  }
  state.counters[unit] =
      benchmark::Counter(ops * state.iterations(), benchmark::Counter::kIsRate,
                         benchmark::Counter::kIs1000);
  state.SetLabel(ips[0]->implementation());
}

/// The f32 inner product on each GEMM the tier offers (range 0: 0 Auto,
/// opscope's packed GEMM on the AVX2 tier; 1 oneDNN's inner product) at
/// M x K -> N (ranges 1-3), with the weights warm in cache (range 4 = 0),
/// or cold (1): a ring of copies, 128 MiB of weights in all, one per call,
/// as a model streams its weights from memory on every run (opscope-tune's
/// ring, kernel_bench.h, without its 64-copy cap: these shapes need at
/// most 54). No post-op.
static void BM_InnerProductGemm(benchmark::State &state) {
  auto gemm = static_cast<InnerProductGemm>(state.range(0));
  int64_t m = state.range(1), k = state.range(2), n = state.range(3);
  size_t copies =
      state.range(4) ? std::max<size_t>(1, (128u << 20) / (n * k * 4)) : 1;
  std::vector<float> x(m * k, 0.01f), w(n * k, 0.02f), b(n, 0.0f), y(m * n);
  std::vector<std::unique_ptr<InnerProduct>> ips;
  for (size_t i = 0; i < copies; ++i)
    ips.push_back(std::make_unique<InnerProduct>(m, k, n, w.data(), b.data(),
                                                 std::vector<PostOp>{}, gemm));
  runRing(state, ips, 2.0 * m * k * n, "GFLOP/s",
          [&](InnerProduct &ip) { ip.run(x.data(), y.data()); });
}
BENCHMARK(BM_InnerProductGemm)
    ->ArgNames({"onednn", "m", "k", "n", "cold"})
    ->ArgsProduct({{0, 1}, {128}, {768}, {768, 3072}, {0, 1}})
    ->ArgsProduct({{0, 1}, {128}, {3072}, {768}, {0, 1}})
    ->ArgsProduct({{0, 1}, {1, 16, 512, 1024}, {768}, {768}, {0, 1}})
    ->ArgsProduct({{0, 1}, {256, 512, 1024}, {768}, {3072}, {0, 1}})
    ->ArgsProduct({{0, 1}, {128}, {256}, {256, 1024}, {0}})
    ->ArgsProduct({{0, 1}, {128}, {1024}, {256}, {0}})
    ->Unit(benchmark::kMicrosecond);

/// The packed f32 GEMM's register tile alone, its operands in L1
/// (gemmTileGflops, 0.1 s a call): the ceiling of BM_InnerProductGemm's
/// packed GEMM at the tier in force, to hold against the core's FMA peak
/// (`opscope-analyze --calibrate`). The best of the five calls: a shared
/// host's noise only ever slows one (docs/tuning.md). Tiers without the
/// tile skip it.
static void BM_GemmTileL1(benchmark::State &state) {
  double gflops = 0.0;
  for (auto _ : state)
    gflops = std::max(gflops, gemmTileGflops(0.1));
  if (gflops == 0.0) {
    state.SkipWithError("the kernel tier in force has no f32 GEMM tile");
    return;
  }
  state.counters["GFLOP/s"] = gflops;
  state.SetLabel(std::string("gemm:") + kernelTierName());
}
BENCHMARK(BM_GemmTileL1)->Unit(benchmark::kMillisecond)->Iterations(5);

/// The int8 inner product at DistilBERT's shapes (M = 128) with 8-bit
/// weights (range 0 = 8, an imported QDQ model's: without VNNI the
/// exact s16 GEMM on the AVX2 tier, or with OPSCOPE_GEMM=onednn the two
/// 7-bit halves on oneDNN's) or 7-bit ones (7: what --precision int8
/// compiles for such a tier, oneDNN's int8 kernels as they are), K -> N
/// (ranges 1-2), weights cold: a ring of copies as BM_InnerProductGemm's.
static void BM_QuantizedInnerProduct(benchmark::State &state) {
  const int limit = state.range(0) == 8 ? 127 : 64;
  int64_t m = 128, k = state.range(1), n = state.range(2);
  size_t copies = std::max<size_t>(1, (128u << 20) / (n * k));
  std::vector<int8_t> w(n * k);
  for (int64_t i = 0; i < n * k; ++i)
    w[i] = static_cast<int8_t>((i * 37) % (2 * limit + 1) - limit);
  std::vector<float> scales(n, 0.001f), b(n, 0.0f), y(m * n);
  std::vector<uint8_t> x(m * k);
  for (int64_t i = 0; i < m * k; ++i)
    x[i] = static_cast<uint8_t>(i * 11);
  std::vector<std::unique_ptr<QuantizedInnerProduct>> ips;
  for (size_t i = 0; i < copies; ++i)
    ips.push_back(std::make_unique<QuantizedInnerProduct>(
        m, k, n, w.data(), scales.data(), b.data(), std::vector<PostOp>{}));
  runRing(state, ips, 2.0 * m * k * n, "GOP/s", [&](QuantizedInnerProduct &ip) {
    ip.run(x.data(), 0.02f, 3, y.data());
  });
}
BENCHMARK(BM_QuantizedInnerProduct)
    ->ArgNames({"bits", "k", "n"})
    ->ArgsProduct({{8, 7}, {768}, {768, 3072}})
    ->ArgsProduct({{8, 7}, {3072}, {768}})
    ->Unit(benchmark::kMicrosecond);

/// conv_integer as ONNX Runtime's quantize_dynamic writes a CNN's: u8
/// input with a zero point, a u8 weight with its own zero point per output
/// channel (9 bits once centered), 3x3, stride 1, pad 1; C x HW x HW to OC
/// (ranges 0-2: the 1024x1024 IS-Net's widest layers). Below VNNI it runs
/// on the exact s16 GEMM in one pass (IntegerConvGemm), or with
/// OPSCOPE_GEMM=onednn on oneDNN's int8 convolution in two 7-bit parts.
static void BM_ConvInteger(benchmark::State &state) {
  const int64_t c = state.range(0), hw = state.range(1), oc = state.range(2);
  ConvParams p;
  p.input = {1, c, hw, hw};
  p.weight = {oc, c, 3, 3};
  p.output = {1, oc, hw, hw};
  p.strides = {1, 1};
  p.pads = {1, 1, 1, 1};
  p.dilations = {1, 1};
  std::vector<int32_t> w(oc * c * 9);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<int32_t>((i * 37) % 511) - 255;
  std::vector<uint8_t> x(c * hw * hw);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<uint8_t>(i * 11);
  std::vector<int32_t> y(oc * hw * hw);
  IntegerConv conv(p, /*srcSigned=*/false, w.data());
  for (auto _ : state)
    conv.run(x.data(), 117, y.data());
  state.counters["GOP/s"] = benchmark::Counter(
      2.0 * oc * c * 9 * hw * hw * state.iterations(),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.SetLabel(conv.implementation());
}
BENCHMARK(BM_ConvInteger)
    ->ArgNames({"c", "hw", "oc"})
    ->Args({64, 512, 64})
    ->Args({128, 512, 64})
    ->Args({1024, 64, 256})
    ->Args({512, 32, 512})
    ->Unit(benchmark::kMillisecond);

static void BM_Bf16InnerProduct(benchmark::State &state) {
  innerProductBench<Bf16InnerProduct>(state);
}
BENCHMARK(BM_Bf16InnerProduct)->Args({768, 768})->Args({768, 3072})
    ->Args({3072, 768})->Unit(benchmark::kMicrosecond);

/// A 3x3, stride-1, padded convolution on channels-last activations, as
/// oneDNN's direct kernels (range 1 = 0) or Winograd F(2x2, 3x3) (2) or
/// F(4x4, 3x3) (4) on the table's tier: batch x C x HW x HW to K
/// channels, ReLU. The shapes are the OCR-like detector's, the U-Net's and
/// the corpus CNN's, and a ResNet's last stage (512 channels over 7x7: few
/// pixels for each weight).
static void BM_Conv3x3(benchmark::State &state) {
  setTier(state);
  int64_t tile = state.range(1);
  int64_t c = state.range(2), k = state.range(3), hw = state.range(4),
          n = state.range(5), dilation = state.range(6);
  ConvParams p;
  p.input = {n, c, hw, hw};
  p.weight = {k, c, 3, 3};
  p.output = {n, k, hw, hw};
  p.strides = {1, 1};
  p.dilations = {dilation, dilation};
  p.pads = {dilation, dilation, dilation, dilation};
  p.postOps = {PostOp::Relu};
  p.inputNhwc = p.outputNhwc = true;
  p.algorithm = tile == 2   ? ConvAlgorithm::WinogradF2x3
                : tile == 4 ? ConvAlgorithm::WinogradF4x3
                            : ConvAlgorithm::Direct;
  std::vector<float> x(numElements(p.input), 0.25f), w(k * c * 9, 0.01f),
      b(k, 0.1f), y(numElements(p.output));
  Conv conv(p, w.data(), b.data(), true);
  for (auto _ : state)
    conv.run(x.data(), nullptr, nullptr, y.data());
  // Direct-equivalent FLOPs, so that the rows compare as times.
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * 9 * c * k * hw * hw * n * state.iterations(),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  state.SetLabel(conv.implementation());
}

/// Each own kernel at every tier of the kernel table this CPU (under
/// OPSCOPE_MAX_ISA) has: reference, avx2, avx512 (never a row of errors
/// for a tier it lacks).
int main(int argc, char **argv) {
  std::vector<IsaLevel> tiers;
  std::string names;
  // The levels whose f32 kernels differ (the VNNI and BF16 levels add
  // sparse s8 and bf16 forms only).
  std::string last;
  for (IsaLevel level : kernelTableLevels())
    if (setKernelTier(level) == level && last != kernelTierName()) {
      last = kernelTierName();
      tiers.push_back(level);
      names += (names.empty() ? "" : ", ") + std::string(kernelTierName());
    }
  setKernelTier(IsaLevel::All);
  std::printf("opscope's own kernels: %s (ISA cap %s)\n", names.c_str(),
              isaLevelName(maxIsa()));
  using Fn = void (*)(benchmark::State &);
  const std::pair<const char *, Fn> kernels[] = {
      {"BM_LayerNorm", BM_LayerNorm},   {"BM_SoftmaxMasked", BM_SoftmaxMasked},
      {"BM_GeluErf", BM_GeluErf},       {"BM_Exp", BM_Exp},
      {"BM_Add", BM_Add},               {"BM_Where", BM_Where},
      {"BM_ReduceMean", BM_ReduceMean}, {"BM_QuantizeU8", BM_QuantizeU8},
      {"BM_ToBf16", BM_ToBf16},         {"BM_Transpose", BM_Transpose},
      {"BM_Resize", BM_Resize},         {"BM_MaxPoolNhwc", BM_MaxPoolNhwc}};
  for (const auto &[name, fn] : kernels)
    for (IsaLevel level : tiers)
      benchmark::RegisterBenchmark(name, fn)
          ->Arg(static_cast<int64_t>(level))
          ->Unit(benchmark::kMicrosecond);
  // The 3x3 convolutions: oneDNN's direct kernels at the CPU's tier, and
  // Winograd at the table's AVX2 and AVX-512 tiers (the VNNI and BF16
  // levels run the AVX-512 forms).
  const std::vector<int64_t> convShapes[] = {
      {96, 24, 80, 1},   {32, 32, 128, 1},  {16, 16, 256, 1},
      {64, 64, 64, 1},   {32, 32, 16, 8},   {128, 128, 4, 8},
      {128, 128, 28, 1}, {256, 256, 14, 1}, {512, 512, 7, 1},
      // The segmentation network's (isnet-opset17 at 1024x1024) widest:
      // transformed weights past the cache budget, many tiles.
      {1024, 256, 64, 1}, {256, 512, 64, 1}, {512, 512, 32, 1},
      {512, 512, 16, 1},
      // Its dilated ones (RSU4F: dilation 4 and 8 at 32x32).
      {512, 256, 32, 1, 4}, {256, 256, 32, 1, 8}};
  for (const auto &shape : convShapes) {
    auto reg = [&](IsaLevel level, int64_t algorithm) {
      std::vector<int64_t> args = {static_cast<int64_t>(level), algorithm};
      args.insert(args.end(), shape.begin(), shape.end());
      if (args.size() == 6)
        args.push_back(1); // no dilation
      benchmark::RegisterBenchmark("BM_Conv3x3", BM_Conv3x3)
          ->Args(args)
          ->ArgNames({"tier", "winograd_tile", "c", "k", "hw", "n", "dilation"})
          ->Unit(benchmark::kMicrosecond);
    };
    reg(tiers.back(), 0);
    for (IsaLevel level : {IsaLevel::Avx2, IsaLevel::Avx512Core})
      if (std::find(tiers.begin(), tiers.end(), level) != tiers.end())
        for (int64_t tile : {2, 4})
          reg(level, tile);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
