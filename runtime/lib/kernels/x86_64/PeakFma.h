//===- PeakFma.h - one core's FMA and int8 peaks, per tier -----*- C++ -*-===//
//
// Part of opscope's analysis library (internal; x86-64 only): GFLOP/s of
// one core running FMAs for `seconds`, on 512- or 256-bit vectors, and
// GOP/s (two per u8 x s8 multiply-add) of its int8 multiply-adds. Call
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

/// int8: `vpdpbusd` on 512 bits (AVX-512 VNNI) or 256 (AVX-VNNI); below
/// VNNI, `vpmaddubsw` + `vpmaddwd` (by ones) + `vpaddd` on 512, 256 or
/// 128 bits: what oneDNN's int8 kernels run there.
double int8GopsAvx512Vnni(double seconds);
double int8GopsAvxVnni(double seconds);
double int8GopsAvx512(double seconds);
double int8GopsAvx2(double seconds);
double int8GopsSsse3(double seconds);
} // namespace opscope::peak

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_PEAKFMA_H
