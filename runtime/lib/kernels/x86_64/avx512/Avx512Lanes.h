//===- Avx512Lanes.h - the AVX-512 tier's tail masks ------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). What every file of the AVX-512
// tier uses for a vector's tail; included only by x86_64/avx512/ sources,
// whose functions carry the same target attribute.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512LANES_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512LANES_H

#include <cstdint>
#include <immintrin.h>

namespace opscope::rt::avx512_tier {

/// Lanes [0, min(16, remaining)) set.
__attribute__((target("avx512f"))) inline __mmask16
tailMask(int64_t remaining) {
  return remaining >= 16 ? __mmask16(0xFFFF)
                         : static_cast<__mmask16>((1u << remaining) - 1);
}

} // namespace opscope::rt::avx512_tier

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512LANES_H
