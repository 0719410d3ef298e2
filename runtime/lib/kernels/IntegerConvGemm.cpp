//===- IntegerConvGemm.cpp - exact conv_integer on the s16 GEMM tile ------===//
//
// Part of opscope's runtime: IntegerConvGemm (IntegerConvGemm.h).
//
//===----------------------------------------------------------------------===//

#include "IntegerConvGemm.h"

#include "DnnlCommon.h"
#include "PackedGemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <omp.h>
#include <stdexcept>

using namespace opscope::rt;

namespace {
/// K steps (s16 pairs) per block, the packed GEMM's: a 16-pixel panel's
/// block is 8 KiB and stays in L1 while every row tile of the task passes
/// over it.
constexpr int64_t kKBlock = PackedPanels::kKBlock;
/// Output channels per task at most: a task's partial sums (these rows by
/// its pixels, 144 KiB at most) stay in L2 across the K blocks, beside the
/// K block's weights (as many rows by kKBlock steps) and pixels.
constexpr int64_t kGroupRows = 192;
/// Pixels per task at most (whole panels).
constexpr int64_t kMaxBlockPixels = 192;

} // namespace

bool IntegerConvGemm::applies(const ConvParams &p, const int32_t *centered) {
  const KernelTable &kt = kernelTable();
  if (!kt.gemmTileInt8 || kt.gemmInt8Quads || p.transposed || p.groups != 1 ||
      p.input.size() != 4 || p.weight.size() != 4 || p.output.size() != 4 ||
      p.inputNhwc || p.outputNhwc || !p.postOps.empty())
    return false;
  const int64_t n = p.weight[0] * p.weight[1] * p.weight[2] * p.weight[3];
  int32_t widest = 0;
  for (int64_t i = 0; i < n; ++i)
    widest = std::max(widest, std::abs(centered[i]));
  // Exact: s16 weights, and no s32 sum can overflow (u8 inputs).
  const int64_t depth = p.weight[1] * p.weight[2] * p.weight[3];
  return widest <= 255 &&
         depth * 255 * int64_t(std::max(widest, 1)) <=
             std::numeric_limits<int32_t>::max();
}

IntegerConvGemm::IntegerConvGemm(const ConvParams &p, bool srcSigned,
                                 const int32_t *centered)
    : flipSign(srcSigned) {
  if (!applies(p, centered))
    throw std::invalid_argument(
        "IntegerConvGemm: not a 2-D single-group convolution with exact "
        "s16 sums on this tier");
  const KernelTable &kt = kernelTable();
  batch = p.input[0];
  channels = p.input[1];
  height = p.input[2];
  width = p.input[3];
  outChannels = p.weight[0];
  kh = p.weight[2];
  kw = p.weight[3];
  outHeight = p.output[2];
  outWidth = p.output[3];
  strideH = p.strides[0];
  strideW = p.strides[1];
  dilH = p.dilations[0];
  dilW = p.dilations[1];
  padT = p.pads[0];
  padL = p.pads[1];
  depth = channels * kh * kw;
  steps = (depth + 1) / 2;
  rows = kt.gemmRows;
  cols = kt.gemmCols;
  tile = kt.gemmTileInt8;
  pairBytes = kt.pairBytes;
  tileName = kt.gemmInt8Name;
  rowTiles = (outChannels + rows - 1) / rows;

  // Row tiles per task, evened out over the tasks a pixel block needs.
  const int64_t groups = (rowTiles * rows + kGroupRows - 1) / kGroupRows;
  groupTiles = (rowTiles + groups - 1) / groups;
  // Pixels per task: whole panels, at most kMaxBlockPixels, preferring a
  // block that tiles an output row (then packing reads most of the
  // window's rows from the input itself), else whole rows (fewer runs of
  // pixels to gather); then fewer pixels, down to one panel, until every
  // thread has a task.
  const int64_t pixels = outHeight * outWidth;
  const int64_t widest = kMaxBlockPixels / cols * cols;
  blockPixels = 0;
  for (int64_t b = widest; b >= cols && !blockPixels; b -= cols)
    if (outWidth % b == 0)
      blockPixels = b;
  for (int64_t b = widest; b >= cols && !blockPixels; b -= cols)
    if (b % outWidth == 0)
      blockPixels = b;
  if (!blockPixels)
    blockPixels = widest;
  blockPixels = std::min(blockPixels, (pixels + cols - 1) / cols * cols);
  const int threads = omp_get_max_threads();
  while (blockPixels > cols &&
         batch * groups * ((pixels + blockPixels - 1) / blockPixels) < threads)
    blockPixels = std::max(cols, (blockPixels / 2 + cols - 1) / cols * cols);

  // The weight as the tile's rows: K block by K block, each row tile
  // [kb][mr] (mr = its rows), s16 pairs with the earlier K step in the
  // lower half and a zero past K.
  packed.resize(size_t(rowTiles * rows * steps));
  weightSums.assign(outChannels, 0);
  for (int64_t o = 0; o < outChannels; ++o)
    for (int64_t k = 0; k < depth; ++k)
      weightSums[o] += centered[o * depth + k];
  for (int64_t k0 = 0; k0 < steps; k0 += kKBlock) {
    const int64_t kb = std::min(kKBlock, steps - k0);
    for (int64_t t = 0; t < rowTiles; ++t) {
      const int64_t mr = std::min(rows, outChannels - t * rows);
      uint32_t *dst = packed.data + k0 * rowTiles * rows + t * rows * kb;
      for (int64_t s = 0; s < kb; ++s)
        for (int64_t r = 0; r < mr; ++r) {
          const int32_t *w = centered + (t * rows + r) * depth;
          const int64_t k = 2 * (k0 + s);
          dst[s * mr + r] = s16Pair(w[k], k + 1 < depth ? w[k + 1] : 0);
        }
    }
  }
}

void IntegerConvGemm::packBlock(const uint8_t *x, int64_t p0, int64_t count,
                                int64_t ld, int64_t k0, int64_t kb,
                                uint8_t pad, uint8_t flip, uint8_t *bytes,
                                uint32_t *panels) const {
  const int64_t kBegin = 2 * k0, kEnd = std::min(depth, 2 * (k0 + kb));
  const int64_t oy0 = p0 / outWidth, ox00 = p0 % outWidth;
  // One run of pixels along an output row, read where it lies inside the
  // input row at stride 1 (most of a large image's blocks).
  const bool direct = strideW == 1 && !flip && ox00 + count <= outWidth;
  // Row k of the window's bytes over the block's ld pixels: in the input
  // itself, or gathered into `tmp` run by run (the zero point outside).
  auto row = [&](int64_t c, int64_t ky, int64_t kx,
                 uint8_t *tmp) -> const uint8_t * {
    if (direct) {
      const int64_t iy = oy0 * strideH - padT + ky * dilH;
      const int64_t ix0 = ox00 - padL + kx * dilW;
      if (iy >= 0 && iy < height && ix0 >= 0 && ix0 + ld <= width)
        return x + (c * height + iy) * width + ix0;
    }
    for (int64_t q0 = 0; q0 < count;) {
      const int64_t oy = (p0 + q0) / outWidth, ox0 = (p0 + q0) % outWidth;
      const int64_t len = std::min(count - q0, outWidth - ox0);
      uint8_t *dst = tmp + q0;
      const int64_t iy = oy * strideH - padT + ky * dilH;
      const int64_t ix0 = ox0 * strideW - padL + kx * dilW;
      q0 += len;
      if (iy < 0 || iy >= height) {
        std::memset(dst, pad, len);
        continue;
      }
      const uint8_t *src = x + (c * height + iy) * width;
      // The pixels whose column lies inside the row: [lo, hi).
      int64_t lo, hi;
      if (strideW == 1) {
        lo = std::clamp<int64_t>(-ix0, 0, len);
        hi = std::clamp<int64_t>(width - ix0, lo, len);
      } else {
        lo = ix0 >= 0 ? 0 : (-ix0 + strideW - 1) / strideW;
        hi = ix0 < width ? (width - ix0 + strideW - 1) / strideW : 0;
        lo = std::min(lo, len);
        hi = std::clamp(hi, lo, len);
      }
      std::memset(dst, pad, lo);
      if (strideW == 1 && !flip)
        std::memcpy(dst + lo, src + ix0 + lo, hi - lo);
      else
        for (int64_t i = lo; i < hi; ++i)
          dst[i] = src[ix0 + i * strideW] ^ flip;
      std::memset(dst + hi, pad, len - hi);
    }
    std::memset(tmp + count, pad, ld - count);
    return tmp;
  };
  // Into panels [kb][cols] of s16 pairs: a K step pairs rows k and k + 1
  // (zeros past K).
  int64_t c = kBegin / (kh * kw), ky = kBegin / kw % kh, kx = kBegin % kw;
  auto next = [&] {
    if (++kx == kw) {
      kx = 0;
      if (++ky == kh)
        ky = 0, ++c;
    }
  };
  for (int64_t s = 0; s < kb; ++s) {
    const uint8_t *a = row(c, ky, kx, bytes);
    next();
    const uint8_t *b = nullptr;
    if (kBegin + 2 * s + 1 < kEnd) {
      b = row(c, ky, kx, bytes + ld);
      next();
    }
    pairBytes(a, b, ld, cols, panels + s * cols, kb * cols);
  }
}

void IntegerConvGemm::run(const void *xv, int32_t xZero, int32_t *y) const {
  const auto *x = static_cast<const uint8_t *>(xv);
  // An s8 input as u8: the sign bit flipped, the zero point moved with it.
  const int32_t zero = flipSign ? xZero + 128 : xZero;
  const uint8_t pad = static_cast<uint8_t>(zero);
  const uint8_t flip = flipSign ? 0x80 : 0;
  const int64_t pixels = outHeight * outWidth;
  const int64_t blocks = (pixels + blockPixels - 1) / blockPixels;
  const int64_t groups = (rowTiles + groupTiles - 1) / groupTiles;
  const int64_t tasks = batch * blocks * groups;
  const int64_t ldMax = blockPixels;

#pragma omp parallel for schedule(dynamic, 1) if (tasks > 1)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t img = task / (blocks * groups);
    const int64_t b = task / groups % blocks, g = task % groups;
    const int64_t p0 = b * blockPixels;
    const int64_t count = std::min(blockPixels, pixels - p0);
    const int64_t ld = (count + cols - 1) / cols * cols;
    auto *bytes = static_cast<uint8_t *>(
        dnnlx::threadScratch(0, size_t(2 * ldMax)));
    auto *panels = static_cast<uint32_t *>(
        dnnlx::threadScratch(1, size_t(kKBlock * ldMax) * sizeof(uint32_t)));
    auto *out = static_cast<int32_t *>(dnnlx::threadScratch(
        3, size_t(groupTiles * rows * ldMax) * sizeof(int32_t)));
    const uint8_t *image = x + img * channels * height * width;
    const int64_t t0 = g * groupTiles,
                  t1 = std::min(rowTiles, t0 + groupTiles);
    // K block by K block: its pixels packed (in L2 with the block's
    // weights), then each panel against every row tile of the task.
    for (int64_t k0 = 0; k0 < steps; k0 += kKBlock) {
      const int64_t kb = std::min(kKBlock, steps - k0);
      packBlock(image, p0, count, ld, k0, kb, pad, flip, bytes, panels);
      for (int64_t q = 0; q < ld; q += cols)
        for (int64_t t = t0; t < t1; ++t) {
          GemmTileCallInt8 call;
          call.a = packed.data + k0 * rowTiles * rows + t * rows * kb;
          call.b = panels + q * kb;
          call.kb = kb;
          call.mr = std::min(rows, outChannels - t * rows);
          call.accumulate = k0 > 0;
          call.c = out + (t - t0) * rows * ld + q;
          call.ldc = ld;
          call.prefetch = nullptr;
          call.prefetchElems = 0;
          tile(call);
        }
    }
    // The zero point's share off each channel, into y (NCHW), in u32
    // where the wrap is defined (the true sums fit s32).
    for (int64_t o = t0 * rows; o < std::min(outChannels, t1 * rows); ++o) {
      const auto *acc =
          reinterpret_cast<const uint32_t *>(out) + (o - t0 * rows) * ld;
      auto *dst = reinterpret_cast<uint32_t *>(y) +
                  (img * outChannels + o) * pixels + p0;
      const uint32_t share = uint32_t(zero) * uint32_t(weightSums[o]);
      for (int64_t q = 0; q < count; ++q)
        dst[q] = acc[q] - share;
    }
  }
}

std::string IntegerConvGemm::implementation() const {
  return "gemm:" + tileName;
}
