//===- DequantizeEpilogueTest.cpp - conv/matmul_integer's epilogue --------===//
//
// Part of opscope. The dequantizing epilogue of conv_integer and
// matmul_integer's fused form (dequantizeSums, the kernel table's
// dequantizeRow) against the unfused ops' operations written plainly:
// Cast (float(i32)), Mul by the scale, Add the bias, relu as kinds.def's
// `x > 0 ? x : 0`. The fusion's claim is that nothing changes by a bit, so
// the comparison is bitwise, at every tier, on odd sizes (1, 3, 17, tails
// that are not multiples of any vector width), per tensor and per channel,
// planes (conv, NCHW) and rows (matmul), with and without bias and relu.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/quantize.h"

#include "Tiers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
/// The unfused graph's three or four passes.
std::vector<float> plain(const std::vector<int32_t> &sums, int64_t outer,
                         int64_t channels, int64_t inner,
                         const std::vector<float> &scale,
                         const std::vector<float> &bias, bool relu) {
  std::vector<float> y(sums.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (o * channels + c) * inner + i;
        volatile float cast = static_cast<float>(sums[at]);
        volatile float mul = cast * scale[scale.size() > 1 ? c : 0];
        float v = mul;
        if (!bias.empty()) {
          volatile float add = v + bias[bias.size() > 1 ? c : 0];
          v = add;
        }
        y[at] = relu ? (v > 0.0f ? v : 0.0f) : v;
      }
  return y;
}

TEST(DequantizeEpilogue, BitwiseTheUnfusedOpsAtEveryTier) {
  std::mt19937 rng(53);
  // Sums as an int8 product makes them: up to about 2^24 in magnitude (so
  // the conversion to float rounds), with exact zeros.
  std::uniform_int_distribution<int32_t> sum(-(1 << 25), 1 << 25);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  struct Case {
    int64_t outer, channels, inner;
  };
  // Planes of 1, 3, 17 and 100 (10 x 10) elements; rows of 1, 3, 17, 33
  // and 768 channels.
  const Case cases[] = {{1, 3, 17},  {2, 5, 1},   {1, 1, 1},   {3, 4, 100},
                        {2, 7, 3},   {5, 17, 1},  {4, 33, 1},  {2, 768, 1},
                        {1, 16, 1025}};
  opscope::rt::tiers::forEachTier([&](IsaLevel) {
    for (const Case &k : cases)
      for (bool perChannel : {false, true})
        for (bool withBias : {false, true})
          for (bool relu : {false, true}) {
            int64_t n = k.outer * k.channels * k.inner;
            std::vector<int32_t> sums(n);
            for (auto &s : sums)
              s = rng() % 5 == 0 ? 0 : sum(rng);
            std::vector<float> scale(perChannel ? k.channels : 1), bias;
            for (auto &s : scale)
              s = 1e-4f * (1.5f + unit(rng));
            if (withBias) {
              bias.resize(perChannel ? k.channels : 1);
              for (auto &b : bias)
                b = unit(rng);
            }
            std::vector<float> want =
                plain(sums, k.outer, k.channels, k.inner, scale, bias, relu);
            // In place, as the binding runs it: i32 in, f32 out.
            std::vector<float> y(n);
            std::memcpy(y.data(), sums.data(), 4 * n);
            dequantizeSums(y.data(), k.outer, k.channels, k.inner,
                           scale.data(), scale.size(),
                           bias.empty() ? nullptr : bias.data(), bias.size(),
                           relu);
            SCOPED_TRACE(testing::Message()
                         << k.outer << "x" << k.channels << "x" << k.inner
                         << (perChannel ? " per channel" : " per tensor")
                         << (withBias ? " bias" : "") << (relu ? " relu" : ""));
            ASSERT_EQ(0, std::memcmp(y.data(), want.data(), 4 * n));
          }
  });
}
} // namespace
