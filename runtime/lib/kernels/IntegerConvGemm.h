//===- IntegerConvGemm.h - exact conv_integer on the s16 GEMM tile -*- C++ -*-===//
//
// Part of opscope's runtime (internal). conv_integer with a constant weight
// on the kernel table's exact int8 tile in its s16 form (KernelTable::
// gemmTileInt8 without gemmInt8Quads: the AVX2 tier, AVX-512 below VNNI):
// one pass of vpmaddwd over s16 pairs, exact for a centered weight of up
// to 9 bits (w - w_zero_point of a u8 weight with its own zero point, as
// ONNX Runtime's quantize_dynamic writes CNN weights), where oneDNN's int8
// convolution (vpmaddubsw, saturating) takes only 7-bit weights and so ran
// each convolution as two (IntegerConv's parts).
//
// The GEMM is the convolution's, turned: the weight's output channels are
// the tile's rows (packed once, [K block][row tile][kb][rows]) and each
// block of output pixels is packed per run into panels of the tile's
// columns (im2col's columns, K in s16 pairs), so a panel of 16 pixels is 16
// contiguous input bytes per K step wherever the stride is 1, and the
// sums land in the output's own NCHW order. Padding is the input's zero
// point; the zero point's share, z * sum_k w, is taken off each channel.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_INTEGERCONVGEMM_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_INTEGERCONVGEMM_H

#include "AlignedBuffer.h"
#include "KernelTable.h"

#include "opscope/runtime/dense.h"

#include <string>
#include <vector>

namespace opscope::rt {

class IntegerConvGemm {
public:
  /// Whether it takes `p` with this centered weight: the table has the s16
  /// tile, a 2-D convolution of one group, every |w| <= 255 and K short
  /// enough for exact s32 sums (K x 255 x max|w| < 2^31).
  static bool applies(const ConvParams &p, const int32_t *centered);
  /// `centered`: OC x C x KH x KW, w - w_zero_point (packed, not kept).
  /// `srcSigned`: the input is s8 (run as u8 with its sign bit flipped).
  IntegerConvGemm(const ConvParams &p, bool srcSigned, const int32_t *centered);
  /// y (N x OC x OH x OW, s32) = sum (x - xZero) w, exactly.
  void run(const void *x, int32_t xZero, int32_t *y) const;
  /// "gemm:" and the table's name of its int8 tile ("gemm:s16:avx2").
  std::string implementation() const;

private:
  /// Packs K steps [k0, k0 + kb) of the pixels [p0, p0 + count) of one
  /// image into panels of [kb][cols] (`ld` pixels, a multiple of cols; the
  /// zero point `pad` where the window leaves the input), reading the
  /// input's rows where they hold a run of the block's pixels, else
  /// gathering them into `bytes` (two rows of ld).
  void packBlock(const uint8_t *x, int64_t p0, int64_t count, int64_t ld,
                 int64_t k0, int64_t kb, uint8_t pad, uint8_t flip,
                 uint8_t *bytes, uint32_t *panels) const;

  int64_t batch, channels, height, width;
  int64_t outChannels, outHeight, outWidth;
  int64_t kh, kw, strideH, strideW, dilH, dilW, padT, padL;
  int64_t depth, steps; ///< K = C x KH x KW, and K / 2 rounded up (pairs)
  int64_t rows, cols;   ///< the tile's shape
  int64_t rowTiles;     ///< ceil(OC / rows)
  int64_t blockPixels;  ///< pixels per task (a multiple of cols)
  int64_t groupTiles;   ///< row tiles per task (the last may have fewer)
  bool flipSign;
  void (*tile)(const GemmTileCallInt8 &);
  decltype(KernelTable::pairBytes) pairBytes;
  std::string tileName;
  /// The weight, K block by K block, each as rowTiles tiles of [kb][rows].
  AlignedBuffer<uint32_t> packed;
  std::vector<int32_t> weightSums; ///< sum over K of each channel's weight
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_INTEGERCONVGEMM_H
