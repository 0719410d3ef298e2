//===- cpu.h - the CPU's instruction-set tier, and its cap -------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM), header-only so that the
// compiler, which does not link the runtime, reads the CPU the same way:
// the ISA levels in oneDNN's names, the best one this CPU has, and the
// `OPSCOPE_MAX_ISA` (else `DNNL_MAX_CPU_ISA`) cap. The runtime's maxIsa()
// (kernels.h) parses the cap with parseIsaLevel, once per process.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_CPU_H
#define OPSCOPE_RUNTIME_CPU_H

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

namespace opscope::rt {

/// Instruction-set levels in oneDNN's names, in order.
enum class IsaLevel {
  Sse41,
  Avx2,
  Avx512Core,
  Avx512CoreVnni,
  Avx512CoreBf16,
  Avx512CoreAmx,
  All
};

inline constexpr const char *kIsaLevelNames[] = {
    "sse41",           "avx2",           "avx512_core",     "avx512_core_vnni",
    "avx512_core_bf16", "avx512_core_amx", "all"};

/// A level from its name (any case); nullopt when it is none of them.
inline std::optional<IsaLevel> parseIsaLevel(std::string name) {
  for (char &c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i <= static_cast<int>(IsaLevel::All); ++i)
    if (name == kIsaLevelNames[i])
      return static_cast<IsaLevel>(i);
  return std::nullopt;
}

/// The best level this CPU has, ignoring any cap: the only place opscope
/// reads the CPU's features, once per process (per library).
inline IsaLevel hostIsaLevel() {
  static const IsaLevel level = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    bool core = __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512dq");
    if (core && __builtin_cpu_supports("amx-tile") &&
        __builtin_cpu_supports("amx-bf16") &&
        __builtin_cpu_supports("avx512bf16"))
      return IsaLevel::Avx512CoreAmx;
    if (core && __builtin_cpu_supports("avx512bf16") &&
        __builtin_cpu_supports("avx512vnni"))
      return IsaLevel::Avx512CoreBf16;
    if (core && __builtin_cpu_supports("avx512vnni"))
      return IsaLevel::Avx512CoreVnni;
    if (core)
      return IsaLevel::Avx512Core;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return IsaLevel::Avx2;
#endif
    return IsaLevel::Sse41;
  }();
  return level;
}

/// The cap the environment sets (`OPSCOPE_MAX_ISA`, else
/// `DNNL_MAX_CPU_ISA`), and the variable's name and value when it is set
/// but unknown (the caller reports it); All when unset.
struct IsaCap {
  IsaLevel level = IsaLevel::All;
  std::string unknownVariable, unknownValue;
};
inline IsaCap isaCapFromEnvironment() {
  IsaCap cap;
  const char *var = "OPSCOPE_MAX_ISA";
  const char *v = std::getenv(var);
  if (!v || !*v) {
    var = "DNNL_MAX_CPU_ISA";
    v = std::getenv(var);
  }
  if (!v || !*v)
    return cap;
  if (std::optional<IsaLevel> level = parseIsaLevel(v))
    cap.level = *level;
  else
    cap.unknownVariable = var, cap.unknownValue = v;
  return cap;
}

/// The tier in force: this CPU's best level within the environment's cap.
inline IsaLevel tierInForce() {
  return std::min(hostIsaLevel(), isaCapFromEnvironment().level);
}

/// The name of the form opscope's own f32 kernels take at `level` (the
/// kernel table's tiers: plain C++ below AVX2, then AVX2 + FMA, then
/// AVX-512), as kernel names carry it.
inline const char *ownKernelTierName(IsaLevel level) {
  return level >= IsaLevel::Avx512Core ? "avx512"
         : level >= IsaLevel::Avx2     ? "avx2"
                                       : "reference";
}

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_CPU_H
