//===- WhatIfTest.cpp - the what-if's helpers -----------------------------===//
//
// Part of opscope. kernelPrecision (whatif.h). The perf-ratio lookup and
// the kernel choice the projection shares with the compiler are tested in
// KernelChoiceTest.cpp; the projection itself end to end on golden traces
// (test/Tools/opscope-analyze/whatif.test).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/whatif.h"

#include <gtest/gtest.h>

using namespace opscope::analysis;

TEST(WhatIf, PrecisionFromKernelName) {
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core"), "fp32");
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core_bf16:bf16"), "bf16");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512_bf16:bf16"), "bf16");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512:f32"), "fp32");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512_vnni:s8"), "int8");
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core_vnni:int8"), "int8");
}
