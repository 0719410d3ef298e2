//===- Profiler.cpp - probe timestamps and the per-session event buffer ---===//
//
// Part of opscope's runtime. Timestamps come from the TSC when the CPU
// declares it invariant (constant_tsc and nonstop_tsc: it ticks at a fixed
// rate in every P/C-state and is synchronised across cores), scaled to ns by
// a calibration against CLOCK_MONOTONIC at first use; otherwise from
// CLOCK_MONOTONIC itself (vDSO, ~20 ns). A probe is a timestamp into a
// per-probe slot on begin and a push into a preallocated vector on end: no
// locks, no allocation, overflow counted.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/model.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <string>

using namespace opscope;

namespace {
int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// The time-stamp counter: GCC's and clang's builtin for rdtsc, so that no
/// intrinsics header is needed outside kernels/x86_64/. Called only where
/// cpu.h found an invariant TSC, which it never does off x86.
uint64_t readTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

struct Clock {
  bool tsc = false;
  double nsPerTick = 1.0;
  uint64_t tsc0 = 0;
  int64_t mono0 = 0;

  Clock() {
    mono0 = monotonicNs();
    tsc = rt::hostCpu().invariantTsc;
    if (!tsc)
      return;
    // Calibrate over ~20 ms; the rate is then accurate to ~1e-5.
    uint64_t t0 = readTsc();
    int64_t m0 = monotonicNs();
    int64_t m1;
    do {
      m1 = monotonicNs();
    } while (m1 - m0 < 20000000);
    uint64_t t1 = readTsc();
    nsPerTick = double(m1 - m0) / double(t1 - t0);
    tsc0 = t0 - uint64_t((m0 - mono0) / nsPerTick);
  }
};

const Clock &probeClock() {
  static const Clock c;
  return c;
}
} // namespace

int64_t Profiler::now() {
  const Clock &c = probeClock();
  if (c.tsc)
    return int64_t(double(readTsc() - c.tsc0) * c.nsPerTick);
  return monotonicNs() - c.mono0;
}

const char *Profiler::clockName() {
  return probeClock().tsc ? "tsc" : "clock_monotonic";
}

double Profiler::probeCostNs() {
  // Time batches of begin/end pairs on a scratch profiler; report the median
  // per-pair cost of several batches.
  Profiler p;
  p.reset(1, 4096);
  p.enable(true);
  std::vector<double> samples;
  for (int rep = 0; rep < 15; ++rep) {
    p.buffer.clear();
    int64_t t0 = now();
    for (int i = 0; i < 4096; ++i) {
      p.begin(0);
      p.end(0);
    }
    int64_t t1 = now();
    samples.push_back(double(t1 - t0) / 4096.0);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

void Profiler::reset(size_t numProbes, size_t capacity) {
  starts.assign(std::max<size_t>(numProbes, 1), 0);
  extents.assign(starts.size(), nullptr);
  buffer.clear();
  buffer.reserve(capacity);
  droppedCount = 0;
}

void Profiler::enable(bool value) {
  if (value)
    (void)probeClock(); // calibrate before the first timed run
  on = value;
}

void Profiler::clear() {
  buffer.clear();
  labelNames.clear();
  droppedCount = 0;
  label = -1;
}

Profiler::Span::Span(Profiler &p, const std::string &name)
    : p(p), label(-1), outer(p.label), begin(0) {
  if (!p.on)
    return;
  auto it = std::find(p.labelNames.begin(), p.labelNames.end(), name);
  label = static_cast<int32_t>(it - p.labelNames.begin());
  if (it == p.labelNames.end())
    p.labelNames.push_back(name);
  p.label = label;
  begin = now();
}

Profiler::Span::~Span() {
  if (label < 0)
    return;
  int64_t t = now();
  p.label = label;
  p.push(begin, t, ProbeEvent::kLabelSpan);
  p.label = outer;
}
