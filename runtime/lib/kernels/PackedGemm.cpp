//===- PackedGemm.cpp - the packing and block loops around the GEMM tile --===//
//
// Part of opscope's runtime: PackedGemm and PackedGemmInt8 (PackedGemm.h).
//
//===----------------------------------------------------------------------===//

#include "PackedGemm.h"

#include "DnnlCommon.h"

#include "opscope/runtime/dense.h"
#include "opscope/runtime/packed_weights.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <omp.h>
#include <stdexcept>

using namespace opscope::rt;

namespace {
/// Panels per column chunk at most (128 columns: a row block's partial
/// sums in a chunk, at most 96 KiB, stay in L2 across the K blocks).
/// The blocking below was chosen on the DistilBERT-shaped model under the
/// avx2 cap (Sapphire Rapids class Xeon, one thread; before the weights
/// moved to huge pages): its 36 products took 98-102 ms at 8 panels and
/// 128-step K blocks, 101-104 at 4, 16 or 48 panels, 103-108 with 256- or
/// 384-step blocks.
constexpr int64_t kChunkPanels = 8;
/// Row tiles per row block: 32 (192 rows), whose partial sums in a chunk
/// (96 KiB) stay in L2 across the K blocks. Without row blocks, and with the
/// partial sums in y, at M = 256 and 512 a chunk's outputs (128 and 256
/// KiB at a stride of N floats, 12 KiB at N = 3072: few L2 sets) were
/// evicted between K blocks: 256 x 768 -> 3072 took 13.05 ms against 11.39
/// with row blocks (oneDNN 12.78), 512 rows 29.45 against 23.63 (oneDNN
/// 22.15), AVX2 tier, warm weights.
constexpr int64_t kRowTiles = 32;
/// How many panels ahead the tiles prefetch: the next one (against 102 ms,
/// without the prefetch the products took 115 ms, two or four ahead
/// 110-112).
constexpr int64_t kAhead = 1;

/// The widest tile this loop packs for (PackedGemmInt8 keeps a chunk's row
/// on the stack).
constexpr int64_t kMaxCols = 64;

/// The deepest K whose s32 sums of u8 x s8 products cannot overflow:
/// K x 255 x 128 < 2^31 (65793).
constexpr int64_t kMaxInt8Depth =
    std::numeric_limits<int32_t>::max() / (255 * 128);

bool rowsSuit(int64_t m) { return m >= 2 && m <= PackedPanels::kMaxRows; }

/// The packed weights' cache key: layout and shape.
std::string panelKey(const char *kind, int64_t n, int64_t k, int64_t cols) {
  return std::string(kind) + ":" + std::to_string(n) + "x" + std::to_string(k) +
         ":cols" + std::to_string(cols) + ":kblock" +
         std::to_string(PackedPanels::kKBlock);
}
} // namespace

template <typename Element>
PackedPanels::PackedPanels(bool hasTile, int64_t m, int64_t steps, int64_t n,
                           const void *source, const std::string &key,
                           std::vector<PostOp> postOps, Element element)
    : m(m), steps(steps), n(n), postOps(std::move(postOps)) {
  const KernelTable &kt = kernelTable();
  if (!hasTile)
    throw std::logic_error(std::string("PackedGemm: the kernel tier ") +
                           kt.name + " has no tile for this GEMM");
  if (m < 1 || steps < 1 || n < 1)
    throw std::invalid_argument("PackedGemm: M, K and N must be positive");
  rows = kt.gemmRows;
  cols = kt.gemmCols;
  // The tile's panels are 64-byte aligned (KernelTable.h): whole lines.
  if (cols % 16 != 0 || cols > kMaxCols)
    throw std::logic_error("PackedGemm: the tier's tile is not one this "
                           "loop packs for");
  arithRow = kt.arithRow;
  transpose = kt.transpose32;
  tierName = kt.name;
  panels = (n + cols - 1) / cols;
  auto make = [&] {
    auto packed = std::make_shared<AlignedBuffer<uint32_t>>();
    packed->resize(panels * cols * steps, /*hugePages=*/true); // zeroed
    for (int64_t k0 = 0; k0 < steps; k0 += kKBlock) {
      int64_t kb = std::min(kKBlock, steps - k0);
      uint32_t *block = packed->data + k0 * panels * cols;
      for (int64_t j = 0; j < n; ++j) {
        uint32_t *dst = block + (j / cols) * kb * cols + j % cols;
        for (int64_t s = 0; s < kb; ++s)
          dst[s * cols] = element(j, k0 + s);
      }
    }
    return packed;
  };
  PackedWeightCache *cache = currentPackedWeights();
  if (cache && cache->covers(source))
    w = std::static_pointer_cast<AlignedBuffer<uint32_t>>(
        cache->get(source, key, [&] { return std::shared_ptr<void>(make()); }));
  else
    w = make();
}

template <typename In, typename Acc, typename RowsOf, typename Finish>
void PackedPanels::walk(void (*tile)(const GemmTileArgs<In, Acc> &),
                        const Acc *init, RowsOf rowsOf, Finish finish) const {
  const int64_t k = steps;
  auto *xp = static_cast<In *>(dnnlx::threadScratch(1, m * k * 4));
  const int64_t mBlocks = (m + rows - 1) / rows;
  const int threads = omp_get_max_threads();
  // Chunks of at most kChunkPanels panels, their count first rounded up to
  // a multiple of the threads (where there are enough panels), then
  // evened out.
  int64_t chunks = (panels + kChunkPanels - 1) / kChunkPanels;
  chunks = std::min(panels, (chunks + threads - 1) / threads * threads);
  const int64_t perChunk = (panels + chunks - 1) / chunks;
  chunks = (panels + perChunk - 1) / perChunk;
  const auto *wp = reinterpret_cast<const In *>(w->data);
  // A row block's outputs in a chunk: kRowTiles tiles of rows by the
  // chunk's panels, contiguous.
  const int64_t ldo = perChunk * cols;
  const size_t outBytes = size_t(kRowTiles * rows * ldo) * sizeof(Acc);

#pragma omp parallel if (threads > 1 && chunks > 1)
  {
    // The input into the tiles' order: K block by K block, each row block
    // [kb][mr] (a block of all M rows is contiguous).
#pragma omp for schedule(static)
    for (int64_t mb = 0; mb < mBlocks; ++mb) {
      int64_t r0 = mb * rows, mr = std::min(rows, m - r0);
      auto [src, lds] = rowsOf(r0, mr);
      for (int64_t k0 = 0; k0 < k; k0 += kKBlock) {
        int64_t kb = std::min(kKBlock, k - k0);
        transpose(src + k0, lds, mr, kb, xp + k0 * m + r0 * kb, mr);
      }
    }
    // Chunks go to whichever thread is free: on a shared host one core
    // often runs slower than the other, and with the chunks split evenly
    // the faster one waited (a tenth of the samples in libgomp at two
    // threads, 128 x 768 -> 3072 on a Zen 3, which took 6% less time so:
    // docs/runtime-kernels.md).
#pragma omp for schedule(dynamic, 1)
    for (int64_t ch = 0; ch < chunks; ++ch) {
      const int64_t p0 = ch * perChunk, p1 = std::min(panels, p0 + perChunk);
      const int64_t span = p1 - p0, kBlocks = (k + kKBlock - 1) / kKBlock;
      const int64_t c0 = p0 * cols, width = std::min(p1 * cols, n) - c0;
      auto *out = static_cast<Acc *>(dnnlx::threadScratch(3, outBytes));
      // Row blocks of kRowTiles tiles: the products accumulate in `out`
      // (in L2, away from y's stride) across the K blocks, from zero.
      for (int64_t mb0 = 0; mb0 < mBlocks; mb0 += kRowTiles) {
        const int64_t mb1 = std::min(mBlocks, mb0 + kRowTiles),
                      tiles = mb1 - mb0;
        for (int64_t k0 = 0; k0 < k; k0 += kKBlock) {
          const int64_t kb = std::min(kKBlock, k - k0);
          const In *block = wp + k0 * panels * cols, *xb = xp + k0 * m;
          for (int64_t p = p0; p < p1; ++p) {
            const In *b = block + p * kb * cols;
            // The panel kAhead after this one in the row block's order (K
            // block by K block, the chunk's panels in order; after the last,
            // the first again for the next row block): each tile
            // prefetches its share of it.
            int64_t ahead = (k0 / kKBlock) * span + (p - p0) + kAhead;
            if (ahead >= kBlocks * span && mb1 < mBlocks)
              ahead -= kBlocks * span;
            const int64_t nk0 = ahead / span * kKBlock;
            const In *next = nullptr;
            int64_t nextElems = 0;
            if (nk0 < k) {
              int64_t nkb = std::min(kKBlock, k - nk0);
              next =
                  wp + nk0 * panels * cols + (p0 + ahead % span) * nkb * cols;
              nextElems = nkb * cols;
            }
            const int64_t share =
                ((nextElems + tiles - 1) / tiles + 15) / 16 * 16;
            for (int64_t mb = mb0; mb < mb1; ++mb) {
              int64_t from = std::min((mb - mb0) * share, nextElems);
              GemmTileArgs<In, Acc> t;
              t.a = xb + mb * rows * kb;
              t.b = b;
              t.kb = kb;
              t.mr = std::min(rows, m - mb * rows);
              t.accumulate = k0 > 0;
              t.c = out + (mb - mb0) * rows * ldo + (p - p0) * cols;
              t.ldc = ldo;
              t.prefetch = next ? next + from : nullptr;
              t.prefetchElems = std::min(share, nextElems - from);
              t.init = init && k0 == 0 ? init + p * cols : nullptr;
              tile(t);
            }
          }
        }
        finish(mb0 * rows, std::min(m, mb1 * rows), out, ldo, c0, width);
      }
    }
  }
}

void PackedPanels::postOpsRow(float *row, int64_t r, int64_t c0, int64_t width,
                              const float *sum) const {
  for (PostOp op : postOps) {
    if (op == PostOp::Sum)
      arithRow(BinaryKind::Add, row, 1, sum + r * n + c0, 1, row, width);
    else
      applyActivation(op, row, width);
  }
}

//===----------------------------------------------------------------------===//
// PackedGemm: f32
//===----------------------------------------------------------------------===//

bool PackedGemm::applies(int64_t m) {
  return kernelTable().gemmTile != nullptr && rowsSuit(m);
}

PackedGemm::PackedGemm(int64_t m, int64_t k, int64_t n, const float *weights,
                       const float *biasData, std::vector<PostOp> postOps)
    : PackedPanels(kernelTable().gemmTile != nullptr, m, k, n, weights,
                   panelKey("gemm", n, k, kernelTable().gemmCols),
                   std::move(postOps),
                   [&](int64_t j, int64_t s) {
                     uint32_t u;
                     std::memcpy(&u, weights + j * k + s, 4);
                     return u;
                   }),
      tile(kernelTable().gemmTile) {
  if (biasData) {
    bias.assign(panels * cols, 0.0f);
    std::copy(biasData, biasData + n, bias.begin());
  }
}

std::string PackedGemm::name() const { return "gemm:" + tierName; }

void PackedGemm::run(const float *x, float *y, const float *sum) const {
  walk(
      tile, bias.empty() ? nullptr : bias.data(),
      [&](int64_t r0, int64_t) {
        return std::pair{x + r0 * steps, steps};
      },
      // The post-ops in order (the sums hold the bias), row by row while
      // the block is in L2, and the row into y: each row of `sum` is read
      // before the same row of y is written, so the sum may be y itself.
      [&](int64_t r0, int64_t r1, float *out, int64_t ldo, int64_t c0,
          int64_t width) {
        for (int64_t r = r0; r < r1; ++r) {
          float *row = out + (r - r0) * ldo;
          postOpsRow(row, r, c0, width, sum);
          std::memcpy(y + r * n + c0, row, width * sizeof(float));
        }
      });
}

double opscope::rt::gemmTileGflops(double seconds) {
  const KernelTable &kt = kernelTable();
  if (!kt.gemmTile)
    return 0.0;
  const int64_t kb = PackedPanels::kKBlock, rows = kt.gemmRows,
                cols = kt.gemmCols;
  AlignedBuffer<float> a, b, c;
  a.resize(kb * rows);
  b.resize(kb * cols);
  c.resize(rows * cols);
  // Small values: the sums grow by about 1e-4 a call and stay normal.
  std::fill(a.data, a.data + kb * rows, 1e-3f);
  std::fill(b.data, b.data + kb * cols, 1e-3f);
  GemmTileCall t;
  t.a = a.data;
  t.b = b.data;
  t.kb = kb;
  t.mr = rows;
  t.accumulate = true;
  t.c = c.data;
  t.ldc = cols;
  t.prefetch = nullptr;
  t.prefetchElems = 0;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  int64_t calls = 0;
  double elapsed = 0.0;
  do {
    for (int i = 0; i < 256; ++i)
      kt.gemmTile(t);
    calls += 256;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return 2.0 * double(rows * cols * kb) * double(calls) / elapsed * 1e-9;
}

//===----------------------------------------------------------------------===//
// PackedGemmInt8: exact int8
//===----------------------------------------------------------------------===//

namespace {
/// Element `s` of a weight row of `k` int8 values, as the table's tile
/// takes it: four K steps as bytes (`quads`, vpdpbusd), else two as s16
/// (vpmaddwd); the earlier step in the lower bits, zeros past K.
uint32_t int8Element(const int8_t *row, int64_t k, int64_t s, bool quads) {
  if (!quads)
    return s16Pair(row[2 * s], 2 * s + 1 < k ? row[2 * s + 1] : 0);
  uint32_t e = 0;
  for (int i = 0; i < 4 && 4 * s + i < k; ++i)
    e |= uint32_t(uint8_t(row[4 * s + i])) << (8 * i);
  return e;
}
} // namespace

bool PackedGemmInt8::applies(int64_t m, int64_t k) {
  return kernelTable().gemmTileInt8 != nullptr && rowsSuit(m) &&
         k <= kMaxInt8Depth;
}

/// PackedGemmInt8's post-ops, once its arguments are checked: before
/// anything is packed (into the model's shared cache, which would keep
/// it). Throws where K could overflow the sums or a u8 output is invalid.
static std::vector<PostOp> int8PostOps(int64_t k, std::vector<PostOp> postOps,
                                       const dnnlx::U8Output &u8Output) {
  if (k > kMaxInt8Depth)
    throw std::invalid_argument("PackedGemmInt8: K = " + std::to_string(k) +
                                " could overflow the s32 sums");
  dnnlx::checkU8Output(u8Output, postOps);
  return postOps;
}

PackedGemmInt8::PackedGemmInt8(
    int64_t m, int64_t k, int64_t n, const int8_t *weights,
    std::vector<PostOp> postOps,
    std::optional<std::pair<float, int32_t>> u8Output)
    : PackedPanels(
          kernelTable().gemmTileInt8 != nullptr, m,
          kernelTable().gemmInt8Quads ? (k + 3) / 4 : (k + 1) / 2, n, weights,
          panelKey(kernelTable().gemmInt8Quads ? "gemm:u8s8" : "gemm:s16", n, k,
                   kernelTable().gemmCols),
          int8PostOps(k, std::move(postOps), u8Output),
          [&](int64_t j, int64_t s) {
            return int8Element(weights + j * k, k, s,
                               kernelTable().gemmInt8Quads);
          }),
      tile(kernelTable().gemmTileInt8), quads(kernelTable().gemmInt8Quads),
      tileName(kernelTable().gemmInt8Name),
      quantizeU8(kernelTable().quantizeU8), k(k), u8Output(u8Output) {}

std::string PackedGemmInt8::name() const { return "gemm:" + tileName; }

/// The input rows as the int8 tile takes them (PackedGemmInt8::run and
/// runS32): u8 quads, the rows themselves where K is a multiple of 4, else
/// copied with zeros past K; or widened to s16, in pairs (a zero past an
/// odd K). Copies go to a per-thread buffer.
static std::pair<const uint32_t *, int64_t>
int8Rows(const uint8_t *x, int64_t k, int64_t steps, bool quads, int64_t r0,
         int64_t mr) {
  if (quads) {
    if (k % 4 == 0)
      return {reinterpret_cast<const uint32_t *>(x + r0 * k), steps};
    auto *q = static_cast<uint8_t *>(
        dnnlx::threadScratch(4, size_t(mr * steps) * 4));
    for (int64_t r = 0; r < mr; ++r) {
      std::memcpy(q + r * 4 * steps, x + (r0 + r) * k, k);
      std::memset(q + r * 4 * steps + k, 0, 4 * steps - k);
    }
    return {reinterpret_cast<const uint32_t *>(q), steps};
  }
  auto *pairs = static_cast<int16_t *>(
      dnnlx::threadScratch(4, size_t(mr * steps) * 4));
  for (int64_t r = 0; r < mr; ++r) {
    const uint8_t *src = x + (r0 + r) * k;
    int16_t *dst = pairs + r * 2 * steps;
    for (int64_t c = 0; c < k; ++c)
      dst[c] = src[c];
    if (k % 2)
      dst[k] = 0;
  }
  return {reinterpret_cast<const uint32_t *>(pairs), steps};
}

void PackedGemmInt8::runS32(const uint8_t *x, int32_t *y, const int32_t *rowA,
                            const int32_t *colA, const int32_t *rowB,
                            const int32_t *colB) const {
  if (!postOps.empty() || u8Output)
    throw std::logic_error("PackedGemmInt8::runS32: built with post-ops");
  walk(
      tile, static_cast<const int32_t *>(nullptr),
      [&](int64_t r0, int64_t mr) {
        return int8Rows(x, k, steps, quads, r0, mr);
      },
      // In u32, where the wrap is defined; the true results fit s32.
      [&](int64_t r0, int64_t r1, int32_t *out, int64_t ldo, int64_t c0,
          int64_t width) {
        const auto *ca = reinterpret_cast<const uint32_t *>(colA + c0);
        const auto *cb = reinterpret_cast<const uint32_t *>(colB + c0);
        for (int64_t r = r0; r < r1; ++r) {
          const auto *acc = reinterpret_cast<const uint32_t *>(out) +
                            (r - r0) * ldo;
          auto *dst = reinterpret_cast<uint32_t *>(y + r * n + c0);
          const uint32_t a = uint32_t(rowA[r]);
          if (rowB) {
            const uint32_t b = uint32_t(rowB[r]);
            for (int64_t c = 0; c < width; ++c)
              dst[c] = acc[c] + a * ca[c] + b * cb[c];
          } else {
            for (int64_t c = 0; c < width; ++c)
              dst[c] = acc[c] + a * ca[c];
          }
        }
      });
}

void PackedGemmInt8::run(const uint8_t *x, const float *scale,
                         const float *bias, void *y, const float *sum) const {
  walk(
      tile, static_cast<const int32_t *>(nullptr),
      [&](int64_t r0, int64_t mr) {
        return int8Rows(x, k, steps, quads, r0, mr);
      },
      // The sums plus the bias, scaled, then the post-ops in order, row by
      // row; written as f32, or quantized to u8.
      [&](int64_t r0, int64_t r1, int32_t *out, int64_t ldo, int64_t c0,
          int64_t width) {
        float row[kChunkPanels * kMaxCols];
        for (int64_t r = r0; r < r1; ++r) {
          const int32_t *acc = out + (r - r0) * ldo;
          for (int64_t c = 0; c < width; ++c)
            row[c] = (float(acc[c]) + bias[c0 + c]) * scale[c0 + c];
          postOpsRow(row, r, c0, width, sum);
          if (u8Output) {
            // oneDNN's order: y / scale + zero point in f32, then rounded
            // to nearest even and saturated, so that an odd zero point's
            // ties round as oneDNN's do.
            const float inv = 1.0f / u8Output->first,
                        zero = static_cast<float>(u8Output->second);
            for (int64_t c = 0; c < width; ++c)
              row[c] = row[c] * inv + zero;
            quantizeU8(row, static_cast<uint8_t *>(y) + r * n + c0, width, 1.0f,
                       0);
          } else
            std::memcpy(static_cast<float *>(y) + r * n + c0, row,
                        width * sizeof(float));
        }
      });
}
