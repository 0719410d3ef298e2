//===- Tiers.h - running a test at every kernel tier -------------*- C++ -*-===//
//
// Part of opscope's tests. The kernel table's levels (KernelTable.h) a
// test compares; setKernelTier lowers a request to what the CPU and
// OPSCOPE_MAX_ISA allow, so a level the machine lacks is skipped, never
// assumed.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_UNITTESTS_RUNTIME_TIERS_H
#define OPSCOPE_UNITTESTS_RUNTIME_TIERS_H

#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace opscope::rt::tiers {

/// Whether OPSCOPE_GEMM=onednn sends the GEMMs to oneDNN (the tests that
/// expect opscope's own GEMM tile skip that expectation then).
inline bool gemmsOnOneDnn() {
  const char *v = std::getenv("OPSCOPE_GEMM");
  return v && std::string(v) == "onednn";
}

/// Every level the table has forms for, lowest first (kernels.h).
inline const std::vector<IsaLevel> &kernelLevels() {
  return kernelTableLevels();
}

/// A level's name in test names: the reference tier is "reference".
inline std::string levelName(IsaLevel level) {
  return level == IsaLevel::Sse41 ? "reference" : isaLevelName(level);
}

/// Runs f(level) at every level this machine allows (SCOPED_TRACE names
/// it), then restores the table to the best one.
template <typename F> void forEachTier(F f) {
  for (IsaLevel level : kernelLevels()) {
    if (setKernelTier(level) != level)
      continue;
    SCOPED_TRACE("kernel tier " + levelName(level));
    f(level);
  }
  setKernelTier(IsaLevel::All);
}

/// A fixture parameterised by level: skips the levels the machine lacks,
/// restores the best after.
class TierTest : public ::testing::TestWithParam<IsaLevel> {
protected:
  void SetUp() override {
    if (setKernelTier(GetParam()) != GetParam())
      GTEST_SKIP() << "this CPU (or OPSCOPE_MAX_ISA) has no "
                   << levelName(GetParam());
  }
  void TearDown() override { setKernelTier(IsaLevel::All); }
};

inline std::string levelParamName(const ::testing::TestParamInfo<IsaLevel> &i) {
  return levelName(i.param);
}

} // namespace opscope::rt::tiers

namespace opscope::rt {
/// gtest prints a level parameter by name ("avx2"), not as "4-byte object".
inline void PrintTo(IsaLevel level, std::ostream *os) {
  *os << tiers::levelName(level);
}
} // namespace opscope::rt

#endif // OPSCOPE_UNITTESTS_RUNTIME_TIERS_H
