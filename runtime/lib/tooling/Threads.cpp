//===- Threads.cpp - how many kernel threads a run should use -------------===//
//
// Part of opscope's runtime tooling.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tooling/threads.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace opscope::tooling;

namespace {
struct Ticks {
  unsigned long long idle = 0, total = 0;
};

/// Per-CPU jiffies from /proc/stat (`cpuN user nice system idle iowait ...`).
std::map<int, Ticks> readStat() {
  std::map<int, Ticks> out;
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !isdigit(line[3]))
      continue;
    std::istringstream s(line.substr(3));
    int cpu;
    s >> cpu;
    Ticks t;
    unsigned long long v;
    for (int field = 0; s >> v; ++field) {
      t.total += v;
      if (field == 3 || field == 4) // idle, iowait
        t.idle += v;
    }
    out[cpu] = t;
  }
  return out;
}
} // namespace

CoreUsage opscope::tooling::sampleCoreUsage(int windowMs) {
  CoreUsage u;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  bool haveMask = sched_getaffinity(0, sizeof mask, &mask) == 0;
  auto before = readStat();
  std::this_thread::sleep_for(std::chrono::milliseconds(windowMs));
  auto after = readStat();
  int allowed = 0, idle = 0;
  for (const auto &[cpu, a] : after) {
    if (haveMask && !CPU_ISSET(cpu, &mask))
      continue;
    ++allowed;
    auto it = before.find(cpu);
    if (it == before.end())
      continue;
    unsigned long long total = a.total - it->second.total;
    unsigned long long free = a.idle - it->second.idle;
    // No tick in the window (a tickless idle core) counts as idle.
    if (total == 0 || 2 * free >= total)
      ++idle;
  }
  u.allowed = std::max(allowed, 1);
  u.idle = std::clamp(idle, 0, u.allowed);
  return u;
}

int opscope::tooling::defaultThreadCount(const CoreUsage &usage) {
  return std::max(1, std::min(usage.idle, usage.allowed));
}
