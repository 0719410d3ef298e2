//===- cpu.h - the CPU's instruction-set tier, and its cap -------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM), header-only so that the
// compiler, which does not link the runtime, reads the CPU the same way:
// the ISA levels in oneDNN's names, the best one this CPU has, its name and
// whether its TSC is invariant (CPUID, read once), and the
// `OPSCOPE_MAX_ISA` (else `DNNL_MAX_CPU_ISA`) cap. The runtime's maxIsa()
// (kernels.h) parses the cap with parseIsaLevel, once per process.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_CPU_H
#define OPSCOPE_RUNTIME_CPU_H

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace opscope::rt {

/// Instruction-set levels in oneDNN's names, in oneDNN's order. One level
/// is off the line, as in oneDNN: avx2_vnni is AVX2 with AVX-VNNI (the
/// VEX-encoded vpdpbusd of Alder Lake, Sierra Forest and Zen 5), which the
/// AVX-512 levels do not include (oneDNN's avx512_core mask has no
/// avx2_vnni bit) and which an AVX-512 VNNI CPU need not have (Cascade
/// Lake, Ice Lake): levelWithin() lowers it to avx2 where the CPU lacks it,
/// and hasVnni() says where int8 dot products are exact.
enum class IsaLevel {
  Sse41,
  Avx2,
  Avx2Vnni,
  Avx512Core,
  Avx512CoreVnni,
  Avx512CoreBf16,
  Avx512CoreAmx,
  All
};

inline constexpr const char *kIsaLevelNames[] = {"sse41",
                                                 "avx2",
                                                 "avx2_vnni",
                                                 "avx512_core",
                                                 "avx512_core_vnni",
                                                 "avx512_core_bf16",
                                                 "avx512_core_amx",
                                                 "all"};
static_assert(std::size(kIsaLevelNames) ==
                  static_cast<size_t>(IsaLevel::All) + 1,
              "a name for every level");

/// Whether u8 x s8 dot products accumulate in int32 without a 16-bit
/// intermediate at `level`: AVX-VNNI's or AVX-512 VNNI's vpdpbusd (and AMX).
/// Below, oneDNN's int8 kernels multiply with vpmaddubsw, which saturates.
inline bool hasVnni(IsaLevel level) {
  return level == IsaLevel::Avx2Vnni || level >= IsaLevel::Avx512CoreVnni;
}

/// A level from its name (any case); nullopt when it is none of them.
inline std::optional<IsaLevel> parseIsaLevel(std::string name) {
  for (char &c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i <= static_cast<int>(IsaLevel::All); ++i)
    if (name == kIsaLevelNames[i])
      return static_cast<IsaLevel>(i);
  return std::nullopt;
}

/// What this CPU has, ignoring any cap: the only place opscope reads the
/// CPU's features and name, once per process (per library). `best` is its
/// highest level; `avxVnni` whether it has AVX-VNNI besides (an AVX-512
/// CPU's best level does not say); `model` its name, as /proc/cpuinfo's
/// "model name" gives it (on x86 both are CPUID's brand string, which an
/// emulator such as qemu-x86_64 -cpu EPYC-Milan sets with the features).
/// `invariantTsc`: the time-stamp counter ticks at one rate in every power
/// state (CPUID 0x80000007 EDX bit 8, Linux's constant_tsc and
/// nonstop_tsc), so the probes may time with rdtsc.
struct HostCpu {
  IsaLevel best = IsaLevel::Sse41;
  bool avxVnni = false;
  bool invariantTsc = false;
  std::string model;
};
namespace detail {
inline std::string trimmed(std::string s) {
  const char *space = " \t\n";
  s.erase(0, s.find_first_not_of(space));
  s.erase(s.find_last_not_of(space) + 1);
  return s;
}
inline std::string cpuModelFromCpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      return trimmed(colon == std::string::npos ? "" : line.substr(colon + 1));
    }
  return "";
}
} // namespace detail
inline const HostCpu &hostCpu() {
  static const HostCpu host = [] {
    HostCpu h;
#if defined(__x86_64__) || defined(__i386__)
    unsigned brand[12] = {}, top = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0x80000000u, &top, &b, &c, &d) && top >= 0x80000004u)
      for (unsigned i = 0; i < 3; ++i)
        __get_cpuid(0x80000002u + i, &brand[4 * i], &brand[4 * i + 1],
                    &brand[4 * i + 2], &brand[4 * i + 3]);
    unsigned a = 0;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d))
      h.invariantTsc = (d >> 8) & 1u;
    const char *text = reinterpret_cast<const char *>(brand);
    h.model = detail::trimmed(std::string(text, strnlen(text, sizeof brand)));
    __builtin_cpu_init();
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    h.avxVnni = avx2 && __builtin_cpu_supports("avxvnni");
    bool core = __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512dq");
    if (core && __builtin_cpu_supports("amx-tile") &&
        __builtin_cpu_supports("amx-bf16") &&
        __builtin_cpu_supports("avx512bf16"))
      h.best = IsaLevel::Avx512CoreAmx;
    else if (core && __builtin_cpu_supports("avx512bf16") &&
             __builtin_cpu_supports("avx512vnni"))
      h.best = IsaLevel::Avx512CoreBf16;
    else if (core && __builtin_cpu_supports("avx512vnni"))
      h.best = IsaLevel::Avx512CoreVnni;
    else if (core)
      h.best = IsaLevel::Avx512Core;
    else if (h.avxVnni)
      h.best = IsaLevel::Avx2Vnni;
    else if (avx2)
      h.best = IsaLevel::Avx2;
#endif
    if (h.model.empty())
      h.model = detail::cpuModelFromCpuinfo();
    if (h.model.empty())
      h.model = "unknown";
    return h;
  }();
  return host;
}

/// The best level this CPU has, ignoring any cap.
inline IsaLevel hostIsaLevel() { return hostCpu().best; }

/// The level this CPU runs under the caps `cap` and `also` (a level a test
/// asks for is a cap too): its best within both. As in oneDNN, avx2_vnni
/// is in force only where the CPU has AVX-VNNI and each cap is avx2_vnni
/// or none: oneDNN's AVX-512 caps hold no avx2_vnni bit, so an AVX2 CPU
/// with AVX-VNNI runs avx2 under them.
inline IsaLevel levelWithin(IsaLevel cap, IsaLevel also = IsaLevel::All) {
  auto admitsAvxVnni = [](IsaLevel c) {
    return c == IsaLevel::Avx2Vnni || c == IsaLevel::All;
  };
  IsaLevel level = std::min({hostIsaLevel(), cap, also});
  if (level == IsaLevel::Avx2Vnni &&
      !(hostCpu().avxVnni && admitsAvxVnni(cap) && admitsAvxVnni(also)))
    level = IsaLevel::Avx2;
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
  return levelWithin(isaCapFromEnvironment().level);
}

/// The name of the form opscope's own f32 kernels take at `level` (the
/// kernel table's tiers: plain C++ below AVX2, then AVX2 + FMA, avx2_vnni
/// included, then AVX-512), as kernel names carry it.
inline const char *ownKernelTierName(IsaLevel level) {
  return level >= IsaLevel::Avx512Core ? "avx512"
         : level >= IsaLevel::Avx2     ? "avx2"
                                       : "reference";
}

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_CPU_H
