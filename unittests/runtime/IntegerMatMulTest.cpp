//===- IntegerMatMulTest.cpp - MatMulInteger on the int8 GEMM ------------===//
//
// Part of opscope. ONNX MatMulInteger with a constant weight
// (IntegerMatMul, dense.h) against the integer loop of its definition, at
// every tier.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"

#include "Tiers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

using namespace opscope::rt;

/// ONNX MatMulInteger on a constant b (quantize_dynamic's linear layers) at
/// every tier, against the plain integer loop of its definition: u8 and s8
/// a and b over their whole ranges, zero points absent, per tensor (random,
/// and 0) and per row / column; rows past the tiles and past
/// the 384-row blocks, one row, odd K and N. Results must match exactly.
TEST(IntegerMatMul, ExactAtEveryTier) {
  tiers::forEachTier([&](IsaLevel level) {
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 5, 3},
                           {2, 17, 33},
                           {7, 601, 80},
                           {130, 64, 19},
                           {401, 33, 17}}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
      std::mt19937 rng(static_cast<unsigned>(m * 131 + k * 7 + n));
      std::vector<uint8_t> a(m * k), b(k * n), az(m), bz(n);
      for (auto *v : {&a, &b, &az, &bz})
        for (auto &e : *v)
          e = static_cast<uint8_t>(rng() & 0xff);
      a[0] = 0;
      b[0] = 0x80; // -128 as s8: a saturating pair for vpmaddubsw
      for (bool aSigned : {false, true})
        for (bool bSigned : {false, true})
          for (int aZeros : {0, 1, 2, 3}) // none, per tensor, per row, 0
            for (int bZeros : {0, 1, 2}) { // none, per tensor, per column
              SCOPED_TRACE(::testing::Message()
                           << (aSigned ? "s8" : "u8") << " a, "
                           << (bSigned ? "s8" : "u8") << " b, a zeros "
                           << aZeros << ", b zeros " << bZeros);
              auto val = [](uint8_t v, bool s) {
                return s ? int32_t(int8_t(v)) : int32_t(v);
              };
              std::vector<uint8_t> azv = az;
              if (aZeros == 3)
                azv[0] = 0;
              const uint8_t *azp = aZeros ? azv.data() : nullptr;
              int64_t azn = aZeros == 2 ? m : 1;
              const uint8_t *bzp = bZeros ? bz.data() : nullptr;
              int64_t bzn = bZeros == 2 ? n : 1;
              IntegerMatMul mm(m, k, n, aSigned, b.data(), bSigned, bzp, bzn);
              if ((level == IsaLevel::Avx2 || level == IsaLevel::Avx2Vnni ||
                   level == IsaLevel::Avx512Core) &&
                  !tiers::gemmsOnOneDnn()) {
                EXPECT_TRUE(mm.ownKernel()) << mm.implementation();
              }
              EXPECT_FALSE(mm.implementation().empty());
              std::vector<int32_t> y(m * n, 12345);
              mm.run(a.data(), azp, azn, y.data());
              int64_t bad = 0;
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                  int32_t za = azp ? val(azp[azn == 1 ? 0 : i], aSigned) : 0;
                  int32_t zb = bzp ? val(bzp[bzn == 1 ? 0 : j], bSigned) : 0;
                  int64_t acc = 0;
                  for (int64_t c = 0; c < k; ++c)
                    acc += int64_t(val(a[i * k + c], aSigned) - za) *
                           (val(b[c * n + j], bSigned) - zb);
                  if (y[i * n + j] != int32_t(acc) && bad++ < 3)
                    ADD_FAILURE() << "y[" << i << "][" << j << "] = "
                                  << y[i * n + j] << ", want " << acc << " ("
                                  << mm.implementation() << ")";
                }
              EXPECT_EQ(bad, 0);
            }
    }
  });
}
