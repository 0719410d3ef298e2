//===- StartupMemory.cpp - start-up times and the arena's peak ------------===//
//
// Part of opscope's runtime. What the trace header, the run summary and the
// analyzer say about start-up (load, weight mapping, kernel creation, first
// run) and memory (the planned arena's high-water mark and the op that sets
// it). Live bytes per op are planned by the compiler (osc-plan-memory), so
// they are exact for every run and cost nothing to record.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/sinks.h"
#include "opscope/runtime/text.h"

#include <iomanip>
#include <sstream>

using namespace opscope;

MemoryPeak opscope::memoryPeak(const Model &m) {
  MemoryPeak peak;
  for (size_t op = 0; op < m.numOps(); ++op)
    if (m.opLiveBytes(op) > peak.bytes) {
      peak.bytes = m.opLiveBytes(op);
      peak.op = static_cast<int64_t>(op);
    }
  if (peak.op < 0)
    return peak;
  peak.name = m.opName(peak.op);
  for (const ProbeInfo &p : m.probes())
    if (p.op == peak.op) {
      peak.probe = p.id;
      peak.name = p.name;
      break;
    }
  return peak;
}

StartupTimes opscope::startupTimes(const Model &m, const Session *s) {
  StartupTimes t;
  auto ms = [](const StartupSpan &sp) { return (sp.end - sp.begin) / 1e6; };
  for (const StartupSpan &sp : m.startup()) {
    if (sp.name == "load")
      t.loadMs = ms(sp);
    else if (sp.name == "map weights")
      t.mapWeightsMs = ms(sp);
  }
  if (!s)
    return t;
  for (const StartupSpan &sp : s->startup()) {
    if (sp.op >= 0) {
      if (ms(sp) > t.slowestKernelMs) {
        t.slowestKernelMs = ms(sp);
        t.slowestKernel = sp.name;
      }
    } else if (sp.name == "create kernels") {
      t.createKernelsMs = ms(sp);
    } else if (sp.name == "first run") {
      t.firstRunMs = ms(sp);
    }
  }
  return t;
}

namespace {
std::string mib(int64_t bytes) { return fixed(bytes / 1048576.0, 2) + " MiB"; }
} // namespace

void opscope::printStartupAndMemory(std::ostream &os, const Model &m,
                                    const Session *s) {
  StartupTimes t = startupTimes(m, s);
  std::string parts;
  auto add = [&](const char *what, double v) {
    if (v < 0)
      return;
    parts += (parts.empty() ? "" : ", ") + std::string(what) + " " +
             fixed(v, 2) + " ms";
  };
  add("load", t.loadMs);
  add("map weights", t.mapWeightsMs);
  add("create kernels", t.createKernelsMs);
  if (t.slowestKernelMs >= 0)
    parts += " (slowest " + shortenMiddle(t.slowestKernel, 48) + " " +
             fixed(t.slowestKernelMs, 2) + " ms)";
  add("first run", t.firstRunMs);
  if (!parts.empty())
    os << "start-up: " << parts << "\n";
  MemoryPeak peak = memoryPeak(m);
  os << "memory: arena " << mib(m.arenaBytes()) << " planned";
  if (peak.bytes >= 0)
    os << ", peak live " << mib(peak.bytes) << " while "
       << (peak.probe >= 0 ? "probe " + std::to_string(peak.probe)
                           : "op #" + std::to_string(peak.op))
       << " '" << shortenMiddle(peak.name, 64) << "' runs";
  os << "; weights " << mib(m.weightBytes()) << " mapped (shared)";
  Model::PackedWeightStats packed = m.packedWeightStats();
  if (packed.tensors > 0)
    os << ", " << packed.tensors << " packed once for all sessions ("
       << packed.reused << " reuse" << (packed.reused == 1 ? "" : "s") << ")";
  os << "\n";
}
