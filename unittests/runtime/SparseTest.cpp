//===- SparseTest.cpp - block-sparse kernels vs a dense reference ---------===//
//
// Part of opscope. The packed format (measure, pack, validate) and the
// sparse inner products (f32, bf16, s8), AVX-512 and portable, in both
// activation layouts, with 1x4 and 4x4 blocks,
// on odd sizes (M, N, K not multiples of the tile or vector widths) and
// block ratios of 0, 50, 80, 90 and 100% (all zero), with every post-op and
// a residual sum that aliases the output.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/kernels.h"
#include "PostOpReference.h"
#include "Tiers.h"

#include "opscope/runtime/sparse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace opscope::rt;
namespace sp = opscope::rt::sparse;

namespace {
/// The expected kernel follows the tier in force, never the host alone, so
/// the suite passes under every cap (make test runs it under avx2 as well).
/// The row kernel the table's ladder (KernelTable.cpp) gives a weight type
/// at the tier in force.
std::string expectedSparseIsa(sp::ValueType t) {
  IsaLevel tier = kernelTier();
  if (t == sp::ValueType::S8 && tier >= IsaLevel::Avx512CoreVnni)
    return "avx512_vnni";
  if (t == sp::ValueType::S8 && tier == IsaLevel::Avx2Vnni)
    return "avx2_vnni";
  if (t == sp::ValueType::BF16 && tier >= IsaLevel::Avx512CoreBf16)
    return "avx512_bf16";
  if (t == sp::ValueType::BF16 && tier >= IsaLevel::Avx512Core)
    return "avx512:f32";
  if (t != sp::ValueType::S8 && tier >= IsaLevel::Avx512Core)
    return "avx512";
  return tier >= IsaLevel::Avx2 ? "avx2" : "reference";
}
// Every instantiation of a suite below (each tier, layout, tile order and
// store kind) checks the same cases on the same operands: the operands and
// the double reference are computed once per distinct set and reused. The
// reference and the generator were three quarters of this binary's time,
// which the emulated-AVX2 run multiplies (about 250 s on 2 vCPUs).
std::vector<float> randomVector(size_t n, unsigned seed) {
  static std::map<std::pair<size_t, unsigned>, std::vector<float>> memo;
  auto [it, fresh] = memo.try_emplace({n, seed});
  if (fresh) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    it->second.resize(n);
    for (float &x : it->second)
      x = dist(rng);
  }
  return it->second;
}

/// N x K weights with round(ratio * blocks) of the br x 4 blocks zeroed (br
/// 1 or 4; with 4, N a multiple of 4).
std::vector<float> prunedWeights(int64_t n, int64_t k, double ratio,
                                 unsigned seed, int64_t br = 1) {
  auto w = randomVector(n * k, seed);
  int64_t perRow = (k + 3) / 4, blocks = n / br * perRow;
  std::vector<int64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed + 7));
  int64_t zero = std::llround(ratio * blocks);
  for (int64_t i = 0; i < zero; ++i) {
    int64_t r0 = order[i] / perRow * br, c0 = order[i] % perRow * 4;
    for (int64_t r = r0; r < r0 + br; ++r)
      for (int64_t c = c0; c < std::min(k, c0 + 4); ++c)
        w[r * k + c] = 0.0f;
  }
  return w;
}

/// Packs in the block rows the compiler would pick (chooseBlockRows), which
/// must be `br` for weights pruned in br x 4 blocks.
std::vector<uint8_t> packed(const std::vector<float> &w, int64_t n, int64_t k,
                            sp::ValueType t, int64_t br = 1) {
  int64_t chosen = sp::chooseBlockRows(w.data(), n, k);
  EXPECT_EQ(chosen, br);
  int64_t nnz = sp::countNonZeroBlocks(w.data(), n, k, chosen);
  std::vector<uint8_t> out(sp::layout(t, n, k, nnz, chosen).totalBytes);
  sp::pack(w.data(), n, k, t, out.data(), chosen);
  EXPECT_EQ(sp::validate(out.data(), out.size()), "");
  return out;
}

/// A 64-byte aligned copy of `src`: packed blobs (as they are in .weights)
/// and outputs (the arena aligns every tensor so, and only an aligned
/// output can be streamed); std::vector's own storage is not aligned.
template <typename T> struct Aligned {
  std::vector<T> storage;
  T *ptr;
  explicit Aligned(const std::vector<T> &src)
      : storage(src.size() + 64 / sizeof(T)) {
    ptr = storage.data() +
          (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 /
              sizeof(T);
    std::copy(src.begin(), src.end(), ptr);
  }
  std::vector<T> get(size_t n) const { return {ptr, ptr + n}; }
};
template <typename T> Aligned(const std::vector<T> &) -> Aligned<T>;
using AlignedFloats = Aligned<float>;

double post(const PostOp &p, double v, double sum) {
  return postops::referencePostOp(p, v, sum);
}

struct Case {
  int64_t m, k, n;
  double ratio;
};

/// Reference y (M x N) in double from x (M x K) and w (N x K); computed once
/// per distinct operands (keyed by the shapes, the post-ops and a hash of
/// every operand's bytes).
std::vector<double> reference(const std::vector<float> &x,
                              const std::vector<float> &w,
                              const std::vector<float> &b,
                              const std::vector<float> &sum,
                              const std::vector<PostOp> &postOps, int64_t m,
                              int64_t k, int64_t n) {
  auto bytes = [](const std::vector<float> &v) {
    return std::hash<std::string_view>()(std::string_view(
        reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float)));
  };
  std::string key = std::to_string(m) + "x" + std::to_string(k) + "x" +
                    std::to_string(n) + ":" + std::to_string(bytes(x)) + ":" +
                    std::to_string(bytes(w)) + ":" + std::to_string(bytes(b)) +
                    ":" + std::to_string(bytes(sum)) + ":";
  for (PostOp p : postOps)
    key += postOpName(p) + ",";
  static std::map<std::string, std::vector<double>> memo;
  auto [it, fresh] = memo.try_emplace(key);
  if (!fresh)
    return it->second;
  std::vector<double> &y = it->second;
  y.resize(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = b.empty() ? 0 : b[j];
      for (int64_t c = 0; c < k; ++c)
        acc += double(x[i * k + c]) * w[j * k + c];
      for (PostOp p : postOps)
        acc = post(p, acc, sum.empty() ? 0 : sum[i * n + j]);
      y[i * n + j] = acc;
    }
  return y;
}

template <typename T>
std::vector<T> transpose(const std::vector<T> &a, int64_t rows, int64_t cols) {
  std::vector<T> t(a.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      t[j * rows + i] = a[i * cols + j];
  return t;
}

/// The worst error relative to 1 + |want| of the kernel's M x N output in
/// `out` (N x M when `transposedOutput`) against `want` (M x N).
double worstError(const AlignedFloats &out, const std::vector<double> &want,
                  int64_t m, int64_t n, bool transposedOutput) {
  std::vector<float> y = out.get(m * n);
  if (transposedOutput)
    y = transpose(y, n, m);
  double worst = 0;
  for (size_t i = 0; i < y.size(); ++i)
    worst = std::max(worst,
                     std::fabs(y[i] - want[i]) / (1.0 + std::fabs(want[i])));
  return worst;
}

const Case kCases[] = {
    {1, 4, 1, 0.0},     {3, 12, 5, 0.5},    {17, 36, 67, 0.8},
    {64, 64, 64, 0.9},  {65, 40, 130, 0.8}, {130, 68, 33, 1.0},
    {128, 768, 96, 0.8}, {33, 1028, 70, 0.8}, // several K-slabs
    {5, 10, 7, 0.5}, // K not a multiple of 4
    {80, 36, 68, 0.5}, // two token tiles of whole vectors (64 + 16)
    {48, 4104, 12, 0.8}, // two K-slabs of 4x4 blocks
    {320, 72, 136, 0.8}, // five token tiles, three row chunks (one partial)
};

/// Param: the kernel tier (All: the best this machine allows), layout bits (1 transposed input, 2 transposed
/// output), block rows (1: 1x4 blocks; 4: 4x4), loop order and stores: bit
/// 1 the chunk-major tile order (forced for every transposed output over
/// several token tiles, M a multiple of 16, whose sum does not alias it: M
/// = 80 (a partial last tile), 128 and 320 run it; the automatic choice
/// takes it only for large products), bit 2 non-temporal stores (forced
/// wherever the AVX-512 kernels write a transposed output in place, M a
/// multiple of 16: with and without post-ops; automatically only where the
/// chunk-major order runs). Without bit 2, ordinary stores.
using KernelParam = std::tuple<IsaLevel, int, int, int>;

/// Sets the fixture's kernels, tile order and stores; restores the defaults
/// after.
class SparseKernelTest : public ::testing::TestWithParam<KernelParam> {
protected:
  void SetUp() override {
    int order = std::get<3>(GetParam());
    IsaLevel level = std::get<0>(GetParam());
    if (setKernelTier(level) != level && level != IsaLevel::All)
      GTEST_SKIP() << "this CPU (or OPSCOPE_MAX_ISA) has no "
                   << isaLevelName(level);
    setSparseTileOrder(order & 1 ? SparseTileOrder::ChunkMajor
                                 : SparseTileOrder::TokenMajor);
    setSparseStores(order & 2 ? SparseStores::Streamed : SparseStores::Cached);
  }
  void TearDown() override {
    setKernelTier(IsaLevel::All);
    setSparseTileOrder(SparseTileOrder::Auto);
    setSparseStores(SparseStores::Auto);
  }
};

/// Every layout and block shape: the reference and AVX2 kernels in both
/// tile orders, the best ones (AVX-512 where the CPU has it) also with
/// streamed stores (only the AVX-512 kernels stream).
#define SPARSE_KERNEL_SUITES(Suite)                                            \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      Lower, Suite,                                                            \
      ::testing::Combine(::testing::Values(IsaLevel::Sse41, IsaLevel::Avx2),   \
                         ::testing::Values(0, 1, 2, 3),                        \
                         ::testing::Values(1, 4), ::testing::Values(0, 1)),    \
      paramName);                                                              \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      Best, Suite,                                                             \
      ::testing::Combine(::testing::Values(IsaLevel::All),                     \
                         ::testing::Values(0, 1, 2, 3),                        \
                         ::testing::Values(1, 4),                              \
                         ::testing::Values(0, 1, 2, 3)),                       \
      paramName)

/// The block rows a case runs with: 4x4 needs N to be a multiple of 4;
/// Ratio 0 with N a multiple of 4 packs as 4x4 either way (a dense weight
/// lines up in 4x4 blocks).
int64_t caseBlockRows(const Case &tc, int br) {
  if (tc.n % 4)
    return 1;
  return tc.ratio == 0.0 || tc.ratio == 1.0 ? 4 : br;
}

std::string paramName(const ::testing::TestParamInfo<KernelParam> &info) {
  IsaLevel level = std::get<0>(info.param);
  return std::string(level == IsaLevel::All     ? "best"
                     : level == IsaLevel::Sse41 ? "reference"
                                                : isaLevelName(level)) +
         "_in" +
         (std::get<1>(info.param) & 1 ? "T" : "N") + "_out" +
         (std::get<1>(info.param) & 2 ? "T" : "N") + "_" +
         std::to_string(std::get<2>(info.param)) + "x4" +
         (std::get<3>(info.param) & 1 ? "_chunks" : "_tokens") +
         (std::get<3>(info.param) & 2 ? "_streamed" : "");
}

class SparseF32 : public SparseKernelTest {};

TEST_P(SparseF32, MatchesDense) {
  int layoutBits = std::get<1>(GetParam());
  SparseLayout layout{(layoutBits & 1) != 0, (layoutBits & 2) != 0};
  const std::vector<std::vector<PostOp>> postOpSets = {
      {},
      {PostOp::GeluErf},
      {PostOp::Sum},
      {PostOp::Relu, PostOp::Sum, PostOp::Tanh},
      {PostOp::Sigmoid, PostOp::HardSwish, PostOp::GeluTanh},
      {PostOp::Relu6, PostOp::Sum},
      {PostOp(PostOpKind::LeakyRelu, 0.1f), PostOp::Sum},
      {PostOp(PostOpKind::HardSigmoid, 0.2f, 0.5f),
       PostOp(PostOpKind::Clip, -0.5f, 1.5f), PostOp(PostOpKind::Elu, 0.7f)}};
  unsigned seed = 1;
  for (const Case &tc : kCases)
    for (const auto &postOps : postOpSets) {
      SCOPED_TRACE(::testing::Message()
                   << "m=" << tc.m << " k=" << tc.k << " n=" << tc.n
                   << " ratio=" << tc.ratio << " postops=" << postOps.size());
      ++seed;
      int64_t br = caseBlockRows(tc, std::get<2>(GetParam()));
      auto w = prunedWeights(tc.n, tc.k, tc.ratio, seed, br);
      auto x = randomVector(tc.m * tc.k, seed + 1);
      auto b = randomVector(tc.n, seed + 2);
      bool hasSum = std::count(postOps.begin(), postOps.end(), PostOp::Sum);
      std::vector<float> sum = hasSum ? randomVector(tc.m * tc.n, seed + 3)
                                      : std::vector<float>();
      auto want = reference(x, w, b, sum, postOps, tc.m, tc.k, tc.n);
      Aligned blob(packed(w, tc.n, tc.k, sp::ValueType::F32, br));
      SparseInnerProduct ip(tc.m, blob.ptr, b.data(), postOps, layout);
      EXPECT_EQ(ip.implementation(), "opscope:sparse_" + std::to_string(br) +
                                         "x4:" + sparseIsa(sp::ValueType::F32) +
                                         ":f32");
      EXPECT_EQ(sparseIsa(sp::ValueType::F32),
                expectedSparseIsa(sp::ValueType::F32));
      std::vector<float> xin =
          layout.transposedInput ? transpose(x, tc.m, tc.k) : x;
      // The sum, in the output's layout, aliases the output (an in-place
      // residual: the kernel must read it before it writes the tile) except
      // when it is the only post-op (a separate buffer: a transposed output
      // is then accumulated in place).
      std::vector<float> sumIn =
          hasSum ? (layout.transposedOutput ? transpose(sum, tc.m, tc.n) : sum)
                 : std::vector<float>();
      bool alias = hasSum && postOps.size() > 1;
      AlignedFloats out(alias ? sumIn
                              : std::vector<float>(tc.m * tc.n, -7.0f));
      ip.run(xin.data(), out.ptr,
             !hasSum ? nullptr : alias ? out.ptr : sumIn.data());
      EXPECT_LT(worstError(out, want, tc.m, tc.n, layout.transposedOutput),
                2e-5);
    }
}

SPARSE_KERNEL_SUITES(SparseF32);

class SparseBf16 : public SparseKernelTest {};

float roundBf16(float v) { return sp::fromBf16(sp::toBf16(v)); }

/// bf16 weights and activations (the kernel rounds the f32 input to bf16),
/// f32 accumulation: against a double reference on the same rounded values.
TEST_P(SparseBf16, MatchesRoundedReference) {
  int layoutBits = std::get<1>(GetParam());
  SparseLayout layout{(layoutBits & 1) != 0, (layoutBits & 2) != 0};
  unsigned seed = 300;
  for (const Case &tc : kCases) {
    SCOPED_TRACE(::testing::Message() << "m=" << tc.m << " k=" << tc.k
                                      << " n=" << tc.n << " r=" << tc.ratio);
    ++seed;
    int64_t br = caseBlockRows(tc, std::get<2>(GetParam()));
    auto w = prunedWeights(tc.n, tc.k, tc.ratio, seed, br);
    auto x = randomVector(tc.m * tc.k, seed + 1);
    auto b = randomVector(tc.n, seed + 2);
    auto sum = randomVector(tc.m * tc.n, seed + 3);
    std::vector<float> wr(w.size()), xr(x.size());
    std::transform(w.begin(), w.end(), wr.begin(), roundBf16);
    std::transform(x.begin(), x.end(), xr.begin(), roundBf16);
    std::vector<PostOp> postOps = {PostOp::GeluErf, PostOp::Sum};
    auto want = reference(xr, wr, b, sum, postOps, tc.m, tc.k, tc.n);
    Aligned blob(packed(w, tc.n, tc.k, sp::ValueType::BF16, br));
    SparseInnerProduct ip(tc.m, blob.ptr, b.data(), postOps, layout);
    EXPECT_EQ(ip.implementation(),
              "opscope:sparse_" + std::to_string(br) + "x4:" + sparseIsa(sp::ValueType::BF16) + ":bf16");
    // AVX512-BF16, else the f32 AVX-512 kernel on the rounded operands,
    // else AVX2's widening kernel, else the reference.
    EXPECT_EQ(sparseIsa(sp::ValueType::BF16),
              expectedSparseIsa(sp::ValueType::BF16));
    std::vector<float> xin =
        layout.transposedInput ? transpose(x, tc.m, tc.k) : x;
    std::vector<float> sumIn =
        layout.transposedOutput ? transpose(sum, tc.m, tc.n) : sum;
    bool alias = seed % 2;
    AlignedFloats out(alias ? sumIn : std::vector<float>(tc.m * tc.n, -7.0f));
    ip.run(xin.data(), out.ptr, alias ? out.ptr : sumIn.data());
    EXPECT_LT(worstError(out, want, tc.m, tc.n, layout.transposedOutput),
              1e-4);

    // The plain product too (no post-op, a separate output), as in SparseS8.
    SparseInnerProduct plain(tc.m, blob.ptr, b.data(), {}, layout);
    auto wantPlain = reference(xr, wr, b, {}, {}, tc.m, tc.k, tc.n);
    AlignedFloats outPlain(std::vector<float>(tc.m * tc.n, -7.0f));
    plain.run(xin.data(), outPlain.ptr);
    EXPECT_LT(worstError(outPlain, wantPlain, tc.m, tc.n, layout.transposedOutput),
              1e-4);
  }
}

SPARSE_KERNEL_SUITES(SparseBf16);

class SparseS8 : public SparseKernelTest {};

/// Exact in integers: the reference dequantizes the same s8 weights and u8
/// activations, so only the f32 epilogue rounds.
TEST_P(SparseS8, MatchesIntegerReference) {
  int layoutBits = std::get<1>(GetParam());
  SparseLayout layout{(layoutBits & 1) != 0, (layoutBits & 2) != 0};
  unsigned seed = 100;
  for (const Case &tc : kCases) {
    if (tc.k % 4)
      continue;
    SCOPED_TRACE(::testing::Message() << "m=" << tc.m << " k=" << tc.k
                                      << " n=" << tc.n << " r=" << tc.ratio);
    ++seed;
    int64_t br = caseBlockRows(tc, std::get<2>(GetParam()));
    auto w = prunedWeights(tc.n, tc.k, tc.ratio, seed, br);
    auto raw = packed(w, tc.n, tc.k, sp::ValueType::S8, br);
    Aligned blob(raw);
    sp::Header h;
    std::memcpy(&h, raw.data(), sizeof(h));
    // Decode the quantized weights back to N x K.
    std::vector<float> wq(tc.n * tc.k, 0.0f);
    auto *rowStart = reinterpret_cast<const int32_t *>(raw.data() + h.rowStartOffset);
    auto *cols = reinterpret_cast<const int32_t *>(raw.data() + h.colsOffset);
    auto *vals = reinterpret_cast<const int8_t *>(raw.data() + h.valuesOffset);
    auto *scale = reinterpret_cast<const float *>(raw.data() + h.scaleOffset);
    auto *rowIndex =
        reinterpret_cast<const int32_t *>(raw.data() + h.rowIndexOffset);
    ASSERT_EQ(h.blockRows, br);
    for (int64_t i = 0; i < h.slabs() * tc.n / br; ++i) {
      int64_t r0 = rowIndex[i];
      for (int32_t bl = rowStart[i]; bl < rowStart[i + 1]; ++bl)
        for (int64_t q = 0; q < br; ++q)
          for (int j = 0; j < 4; ++j)
            wq[(r0 + q) * tc.k + cols[bl] + j] =
                vals[4 * (bl * br + q) + j] * scale[r0 + q];
    }
    // The quantized weights stay within half a step of the originals.
    for (int64_t r = 0; r < tc.n; ++r)
      for (int64_t c = 0; c < tc.k; ++c)
        ASSERT_LE(std::fabs(wq[r * tc.k + c] - w[r * tc.k + c]),
                  0.5001 * scale[r]);
    std::mt19937 rng(seed);
    std::vector<uint8_t> xq(tc.m * tc.k);
    for (auto &v : xq)
      v = static_cast<uint8_t>(rng() & 0xff);
    const float xScale = 0.02f;
    const int32_t xZero = 128;
    std::vector<float> xd(xq.size());
    for (size_t i = 0; i < xq.size(); ++i)
      xd[i] = xScale * (int32_t(xq[i]) - xZero);
    auto b = randomVector(tc.n, seed + 2);
    auto sum = randomVector(tc.m * tc.n, seed + 3);
    std::vector<PostOp> postOps = {PostOp::Sum, PostOp::Relu};
    auto want = reference(xd, wq, b, sum, postOps, tc.m, tc.k, tc.n);

    SparseInnerProductS8 ip(tc.m, blob.ptr, b.data(), postOps, layout);
    EXPECT_EQ(ip.implementation(), "opscope:sparse_" + std::to_string(br) +
                                       "x4:" + sparseIsa(sp::ValueType::S8) +
                                       ":s8");
    EXPECT_EQ(sparseIsa(sp::ValueType::S8),
              expectedSparseIsa(sp::ValueType::S8));
    std::vector<uint8_t> xin = xq;
    if (layout.transposedInput) {
      // K/4 rows of M dwords: four consecutive k of a token per dword.
      std::vector<uint32_t> d(tc.m * tc.k / 4);
      std::memcpy(d.data(), xq.data(), xq.size());
      d = transpose(d, tc.m, tc.k / 4);
      std::memcpy(xin.data(), d.data(), xin.size());
    }
    // The sum aliases the output on every other case, a separate buffer
    // (a transposed output accumulated in place) on the others.
    std::vector<float> sumIn =
        layout.transposedOutput ? transpose(sum, tc.m, tc.n) : sum;
    bool alias = seed % 2;
    AlignedFloats out(alias ? sumIn : std::vector<float>(tc.m * tc.n, -7.0f));
    ip.run(xin.data(), xScale, xZero, out.ptr, alias ? out.ptr : sumIn.data());
    EXPECT_LT(worstError(out, want, tc.m, tc.n, layout.transposedOutput),
              1e-5);

    // The plain product too (no post-op, a separate output): the kernels'
    // own final stores, streamed where the fixture says so, and the
    // chunk-major order where it can run.
    SparseInnerProductS8 plain(tc.m, blob.ptr, b.data(), {}, layout);
    auto wantPlain = reference(xd, wq, b, {}, {}, tc.m, tc.k, tc.n);
    AlignedFloats outPlain(std::vector<float>(tc.m * tc.n, -7.0f));
    plain.run(xin.data(), xScale, xZero, outPlain.ptr);
    EXPECT_LT(worstError(outPlain, wantPlain, tc.m, tc.n, layout.transposedOutput),
              1e-5);
  }
}

SPARSE_KERNEL_SUITES(SparseS8);
// The s8 rows' AVX-VNNI form (skipped where the CPU has no AVX-VNNI or a
// cap excludes it): an AVX-512 CPU's Best runs AVX-512 VNNI's instead.
INSTANTIATE_TEST_SUITE_P(
    AvxVnni, SparseS8,
    ::testing::Combine(::testing::Values(IsaLevel::Avx2Vnni),
                       ::testing::Values(0, 1, 2, 3), ::testing::Values(1, 4),
                       ::testing::Values(0, 1)),
    paramName);

TEST(SparseFormat, MeasureAndBlockShapes) {
  // 2 x 8: row 0 has blocks [nz, 0], row 1 [0, 0] -> 3 of 4 1x4 blocks zero.
  std::vector<float> w = {1, 0, 0, 0, 0, 0, 0, 0, //
                          0, 0, 0, 0, 0, 0, 0, 0};
  auto s = sp::measure(w.data(), 2, 8, {1, 4});
  EXPECT_EQ(s.blocks, 4);
  EXPECT_EQ(s.zeroBlocks, 3);
  EXPECT_DOUBLE_EQ(s.ratio(), 0.75);
  // 2x4 blocks: the first (rows 0-1, cols 0-3) holds the 1.
  s = sp::measure(w.data(), 2, 8, {2, 4});
  EXPECT_EQ(s.blocks, 2);
  EXPECT_EQ(s.zeroBlocks, 1);
  // Edge blocks are partial: 2 x 6 in 1x4 -> 2 blocks per row.
  s = sp::measure(w.data(), 2, 6, {1, 4});
  EXPECT_EQ(s.blocks, 4);
  sp::BlockShape b;
  EXPECT_TRUE(sp::parseBlockShape("1x4", b));
  EXPECT_EQ(b.rows, 1);
  EXPECT_EQ(b.cols, 4);
  EXPECT_TRUE(sp::parseBlockShape("4x16", b));
  EXPECT_EQ(b.str(), "4x16");
  for (const char *bad : {"", "x4", "1x", "0x4", "1x-4", "1x4x2", "ax4",
                          "1 x4", "9999999x1"})
    EXPECT_FALSE(sp::parseBlockShape(bad, b)) << bad;
}

TEST(SparseFormat, ValidateRejectsCorruption) {
  auto w = prunedWeights(8, 16, 0.5, 3);
  auto blob = packed(w, 8, 16, sp::ValueType::F32);
  EXPECT_EQ(sp::validate(blob.data(), blob.size()), "");
  EXPECT_NE(sp::validate(blob.data(), blob.size() - 1), "");
  EXPECT_NE(sp::validate(blob.data(), 10), "");
  auto bad = blob;
  bad[0] = 'X';
  EXPECT_NE(sp::validate(bad.data(), bad.size()), "");
  sp::Header h;
  std::memcpy(&h, blob.data(), sizeof(h));
  if (h.nnz > 0) {
    bad = blob;
    int32_t col = 16; // out of range
    std::memcpy(bad.data() + h.colsOffset, &col, 4);
    EXPECT_NE(sp::validate(bad.data(), bad.size()).find("out of range"),
              std::string::npos);
    bad = blob;
    int32_t start = h.nnz + 1;
    std::memcpy(bad.data() + h.rowStartOffset + 4, &start, 4);
    EXPECT_NE(sp::validate(bad.data(), bad.size()), "");
  }
}

TEST(SparseFormat, Bf16RoundsToNearestEven) {
  EXPECT_EQ(sp::toBf16(1.0f), 0x3f80);
  EXPECT_EQ(sp::fromBf16(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
  EXPECT_EQ(sp::toBf16(1.00390625f), 0x3f80);
  EXPECT_EQ(sp::toBf16(1.01171875f), 0x3f82); // 1 + 3*2^-8 -> up to even
  EXPECT_TRUE(std::isnan(sp::fromBf16(sp::toBf16(NAN))));
}

/// unpack gives back the weight a blob holds: f32 exactly, bf16 rounded,
/// s8 dequantized within half a step; both block shapes.
TEST(SparseFormat, UnpackRoundTrips) {
  const int64_t n = 8, k = 37;
  std::mt19937 rng(11);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> w(n * k);
  for (float &v : w)
    v = rng() % 3 ? 0.0f : dist(rng); // about two thirds zero
  for (int64_t br : {1, 4})
    for (sp::ValueType t : {sp::ValueType::F32, sp::ValueType::BF16,
                            sp::ValueType::S8}) {
      SCOPED_TRACE(::testing::Message() << br << "x4 " << sp::valueTypeName(t));
      sp::Header h = sp::layout(t, n, k, sp::countNonZeroBlocks(w.data(), n, k, br), br);
      std::vector<uint64_t> blob((h.totalBytes + 7) / 8);
      sp::pack(w.data(), n, k, t, blob.data(), br);
      std::vector<float> back(n * k, -1.0f);
      sp::unpack(blob.data(), back.data());
      for (int64_t r = 0; r < n; ++r) {
        float step = sp::symmetricScale(w.data() + r * k, k);
        for (int64_t c = 0; c < k; ++c) {
          float v = w[r * k + c], got = back[r * k + c];
          if (t == sp::ValueType::F32)
            EXPECT_EQ(got, v);
          else if (t == sp::ValueType::BF16)
            EXPECT_EQ(got, sp::fromBf16(sp::toBf16(v)));
          else
            EXPECT_NEAR(got, v, 0.5f * step + 1e-6f);
        }
      }
    }
}

/// roundToBf16AsF32 (bf16 products on f32 units) rounds exactly as
/// roundToBf16 does, on both paths: ties, tails, infinities, NaN, subnormals.
TEST(SparseFormat, Bf16AsF32MatchesBf16Rounding) {
  std::vector<float> x = {1.0f, 1.00390625f, 1.01171875f, -1.00390625f,
                          INFINITY, -INFINITY, NAN, 1e-40f, -3.4e38f,
                          65504.0f, 0.0f, -0.0f};
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 100.0f);
  while (x.size() < 101) // not a multiple of 16: a masked tail
    x.push_back(dist(rng));
  std::vector<uint16_t> want(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    want[i] = sp::toBf16(x[i]);
  opscope::rt::tiers::forEachTier([&](IsaLevel) {
    std::vector<float> y(x.size(), -7.0f);
    roundToBf16AsF32(x.data(), y.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, &y[i], 4);
      EXPECT_EQ(u & 0xffffu, 0u) << i;
      EXPECT_EQ(uint16_t(u >> 16), want[i]) << "x[" << i << "] = " << x[i];
    }
    std::vector<float> back(x.size());
    bf16ToF32(want.data(), back.data(), int64_t(want.size()));
    for (size_t i = 0; i < x.size(); ++i)
      if (!std::isnan(x[i])) {
        EXPECT_EQ(back[i], y[i]) << i;
      }
  });
}
} // namespace

namespace {
/// u8 quantization (int8 inner products), both layouts, against the
/// scalar formula; the AVX-512 and portable paths agree bit for bit.
TEST(Quantize, U8AndTransposedVnniLayout) {
  const int64_t k = 12, m = 37; // tails in both directions
  std::vector<float> x(k * m);
  std::mt19937 rng(3);
  for (auto &v : x)
    v = (static_cast<int>(rng() % 2001) - 1000) / 100.0f;
  x[5] = 1e9f;  // saturates at 255
  x[6] = -1e9f; // clamps at 0
  x[7] = 0.25f; // a tie: round half to even of 0.25 / 0.5 = 0.5 -> 0
  // Beyond int32 once scaled, infinities and NaN: the vector forms'
  // conversion (INT_MIN there) must not show: 255, 0, 255, 0, 0.
  x[8] = 3e9f;
  x[9] = -3e9f;
  x[10] = INFINITY;
  x[11] = -INFINITY;
  x[12] = NAN;
  const float scale = 0.5f;
  const int32_t zero = 20;
  auto want = [&](float v) {
    float q = std::nearbyint(v * (1.0f / scale)) + zero;
    return static_cast<uint8_t>(std::fmin(std::fmax(q, 0.0f), 255.0f));
  };
  opscope::rt::tiers::forEachTier([&](IsaLevel) {
    std::vector<uint8_t> q(k * m), qt(k * m);
    quantizeU8(x.data(), q.data(), k * m, scale, zero);
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(q[i], want(x[i])) << "element " << i;
    EXPECT_EQ(q[5], 255);
    EXPECT_EQ(q[6], 0);
    EXPECT_EQ(q[7], zero);
    EXPECT_EQ(q[10], 255);
    EXPECT_EQ(q[11], 0);
    EXPECT_EQ(q[12], 0);
    // x as K x M: dword (r/4, t) holds k = r..r+3 of token t.
    quantizeU8Transposed(x.data(), qt.data(), k, m, scale, zero);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t t = 0; t < m; ++t)
        ASSERT_EQ(qt[((r / 4) * m + t) * 4 + r % 4], want(x[r * m + t]))
            << "k " << r << " token " << t;
  });
  std::vector<uint8_t> bad(3 * m);
  EXPECT_THROW(quantizeU8Transposed(x.data(), bad.data(), 3, m, scale, zero),
               std::invalid_argument);
}

/// s8 quantization and the largest magnitude (int8 matmuls' dynamic
/// ranges), portable and AVX-512, odd lengths (masked tails), saturation,
/// a tie and NaN skipped by maxAbs.
TEST(Quantize, S8AndMaxAbs) {
  for (int64_t n : {1, 15, 64, 101}) {
    SCOPED_TRACE(n);
    std::vector<float> x(n);
    std::mt19937 rng(5 + n);
    for (auto &v : x)
      v = (static_cast<int>(rng() % 1001) - 500) / 100.0f;
    x[0] = -12.5f; // the largest magnitude
    if (n > 3) {
      x[1] = 1e9f;  // saturates at 127
      x[2] = -1e9f; // saturates at -128
      x[3] = 0.75f; // a tie: 0.75 / 0.5 = 1.5 -> 2
    }
    if (n > 7) {
      // Beyond int32 once scaled, and infinities: 127, -128, 127, -128
      // (the vector forms' conversion gave INT_MIN, -128, for the first
      // and third); NaN gives -128 at every tier.
      x[4] = 3e9f;
      x[5] = -3e9f;
      x[6] = INFINITY;
      x[7] = -INFINITY;
    }
    if (n > 8)
      x[8] = NAN;
    const float scale = 0.5f;
    auto want = [&](float v) {
      // fmax(NaN, -128) is -128.
      return static_cast<int8_t>(
          std::fmin(std::fmax(std::nearbyint(v / scale), -128.0f), 127.0f));
    };
    opscope::rt::tiers::forEachTier([&](IsaLevel) {
      std::vector<int8_t> q(n, 99);
      quantizeS8(x.data(), q.data(), n, scale);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(q[i], want(x[i])) << "element " << i;
      std::vector<float> y = x;
      if (n > 3) {
        y[1] = std::nanf("");
        y[2] = 3.0f;
      }
      for (int64_t i = 4; i < std::min<int64_t>(n, 9); ++i)
        y[i] = 1.0f; // maxAbs of finite values only here
      EXPECT_EQ(maxAbs(y.data(), n), 12.5f);
    });
  }
}
} // namespace
