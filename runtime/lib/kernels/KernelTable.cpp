//===- KernelTable.cpp - the ladder that fills the kernel table -----------===//
//
// Part of opscope's runtime. The one place that turns the CPU's tier
// (cpu.h: detected once, capped once by OPSCOPE_MAX_ISA) into the kernels
// opscope's own code runs: the reference forms, then every tier up to the
// one in force, each overwriting the entries it implements.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <string>

using namespace opscope::rt;

namespace {
/// Which of `values` environment variable `name` holds (its index), the
/// first ("auto") when unset or empty; any other value is reported once
/// and ignored.
size_t envSetting(const char *name,
                  std::initializer_list<const char *> values) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return 0;
  std::string list;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::string(v) == values.begin()[i])
      return i;
    list += (i ? ", " : "") + std::string(values.begin()[i]);
  }
  std::fprintf(stderr, "opscope: warning: %s=%s is not one of %s; ignored\n",
               name, v, list.c_str());
  return 0;
}

/// OPSCOPE_WINOGRAD, read once: auto (the default: the table's choice),
/// f2x3 (2x2 tiles only, the direct form's accuracy) or off (oneDNN's
/// direct convolutions).
enum class WinogradSetting { Auto, F2x3, Off };
WinogradSetting winogradSetting() {
  static const auto setting = static_cast<WinogradSetting>(
      envSetting("OPSCOPE_WINOGRAD", {"auto", "f2x3", "off"}));
  return setting;
}

/// OPSCOPE_GEMM, read once: auto (the default: the table's packed GEMM
/// where the tier has one) or onednn (oneDNN's inner products everywhere).
bool ownGemmAllowed() {
  static const bool allowed =
      envSetting("OPSCOPE_GEMM", {"auto", "onednn"}) == 0;
  return allowed;
}

KernelTable build(IsaLevel level) {
  KernelTable t;
  t.level = level;
  t.name = ownKernelTierName(level);
  fillReferenceKernels(t);
  fillReferenceWinogradKernels(t);
#if defined(__x86_64__)
  if (level >= IsaLevel::Avx2) {
    fillAvx2Kernels(t);
    fillAvx2SparseKernels(t);
    fillAvx2WinogradKernels(t);
    fillAvx2PackKernels(t);
    // The packed GEMM only on this tier: from AVX-512 up oneDNN's brgemm
    // inner products are the faster ones. Its s16 int8 tile avx2_vnni
    // overwrites with a vpdpbusd one (below).
    if (level < IsaLevel::Avx512Core && ownGemmAllowed())
      fillAvx2GemmKernels(t);
  }
  // AVX2 with AVX-VNNI: the sparse s8 rows and the int8 GEMM's tile take
  // vpdpbusd.
  if (level == IsaLevel::Avx2Vnni) {
    fillAvxVnniKernels(t);
    if (ownGemmAllowed())
      fillAvxVnniGemmKernels(t);
  }
  if (level >= IsaLevel::Avx512Core) {
    fillAvx512Kernels(t);
    fillAvx512SparseKernels(t);
    fillAvx512WinogradKernels(t);
    // Below VNNI oneDNN's int8 kernels saturate 8-bit weights: the exact
    // s16 GEMM takes them (PackedGemmInt8).
    if (level < IsaLevel::Avx512CoreVnni && ownGemmAllowed())
      fillAvx512GemmKernels(t);
  }
  if (level >= IsaLevel::Avx512CoreVnni)
    fillAvx512VnniKernels(t);
  if (level >= IsaLevel::Avx512CoreBf16)
    fillAvx512Bf16Kernels(t);
  t.innerProductOnMatMul = level >= IsaLevel::Avx512CoreAmx;
#endif
  if (winogradSetting() == WinogradSetting::Off)
    t.winogradPreferred = false;
  if (winogradSetting() == WinogradSetting::F2x3)
    t.winogradTile = 2;
  return t;
}

/// Two tables and an index: setKernelTier rebuilds the idle one and
/// switches, so a reader never sees a half-filled table. (Tests and
/// benchmarks switch between runs, not during one.)
struct Tables {
  KernelTable slot[2];
  std::atomic<int> current{0};
  std::mutex rebuild;
  Tables() { slot[0] = build(cpuTier()); }
};

Tables &tables() {
  static Tables t;
  return t;
}
} // namespace

const KernelTable &opscope::rt::kernelTable() {
  Tables &t = tables();
  return t.slot[t.current.load(std::memory_order_acquire)];
}

IsaLevel opscope::rt::kernelTier() { return kernelTable().level; }

const char *opscope::rt::kernelTierName() { return kernelTable().name; }

IsaLevel opscope::rt::setKernelTier(IsaLevel level) {
  Tables &t = tables();
  std::lock_guard<std::mutex> lock(t.rebuild);
  level = levelWithin(level, maxIsa());
  int next = 1 - t.current.load();
  t.slot[next] = build(level);
  t.current.store(next, std::memory_order_release);
  return level;
}

const char *opscope::rt::isaLevelName(IsaLevel level) {
  return kIsaLevelNames[static_cast<int>(level)];
}

IsaLevel opscope::rt::maxIsa() {
  static const IsaLevel cap = [] {
    IsaCap c = isaCapFromEnvironment();
    if (!c.unknownVariable.empty()) {
      std::string names;
      for (const char *n : kIsaLevelNames)
        names += (names.empty() ? "" : ", ") + std::string(n);
      std::fprintf(
          stderr, "opscope: warning: %s=%s is not one of %s; ignored\n",
          c.unknownVariable.c_str(), c.unknownValue.c_str(), names.c_str());
    }
    return c.level;
  }();
  return cap;
}

bool opscope::rt::nativeBf16() {
  return cpuTier() >= IsaLevel::Avx512CoreBf16;
}
