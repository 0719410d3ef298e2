//===- Avx512Sparse.h - what the AVX-512 sparse row kernels share -*- C++ -*-===//
//
// Part of opscope's runtime (internal, AVX-512 tier). The store and the
// compile-time tile count the f32, VNNI and BF16 row kernels share.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512SPARSE_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512SPARSE_H

#include "../../KernelTable.h"

#include <immintrin.h>
#include <type_traits>

#define OPSCOPE_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))
#define OPSCOPE_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,avx512vnni")))
#define OPSCOPE_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,avx512bf16")))

namespace opscope::rt::sparse_rows::avx512 {
#define AVX512 OPSCOPE_AVX512

/// A row's final f32 values: non-temporal where the caller says the output
/// will not be read again soon (it goes past the caches; `p` 64-byte
/// aligned), an ordinary store otherwise.
/// (A template parameter of the kernels, not a run-time branch in them: a
/// branch there made GCC 12 shuffle the accumulators through extra registers
/// in the 4x4 s8 block loop, 1.7x slower.)
template <bool Stream> AVX512 inline void storeOut(float *p, __m512 v) {
  if constexpr (Stream)
    _mm512_stream_ps(p, v);
  else
    _mm512_storeu_ps(p, v);
}

/// Calls f(tiles, stream) with both as compile-time constants.
template <typename F> void withTiles(int tiles, bool stream, F f) {
  auto go = [&](auto t) {
    if (stream)
      f(t, std::true_type());
    else
      f(t, std::false_type());
  };
  switch (tiles) {
  case 1:
    return go(std::integral_constant<int, 1>());
  case 2:
    return go(std::integral_constant<int, 2>());
  case 3:
    return go(std::integral_constant<int, 3>());
  default:
    return go(std::integral_constant<int, 4>());
  }
}



#undef AVX512
} // namespace opscope::rt::sparse_rows::avx512

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX512_AVX512SPARSE_H
