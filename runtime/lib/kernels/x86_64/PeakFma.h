//===- PeakFma.h - one core's FMA peak, per vector width ------*- C++ -*-===//
//
// Part of opscope's analysis library (internal; x86-64 only): GFLOP/s of
// one core running FMAs for `seconds`, on 512- or 256-bit vectors. Call
// only where the CPU has the instructions (cpu.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_PEAKFMA_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_PEAKFMA_H

namespace opscope::peak {
double fmaGflopsAvx512(double seconds);
double fmaGflopsAvx2(double seconds);
/// 128-bit multiply + add (SSE, every x86-64): the tier below AVX2.
double mulAddGflopsSse(double seconds);
} // namespace opscope::peak

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_PEAKFMA_H
