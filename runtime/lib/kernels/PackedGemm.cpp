//===- PackedGemm.cpp - the packing and block loops around the GEMM tile --===//
//
// Part of opscope's runtime: PackedGemm (PackedGemm.h).
//
//===----------------------------------------------------------------------===//

#include "PackedGemm.h"

#include "DnnlCommon.h"

#include "opscope/runtime/packed_weights.h"

#include <algorithm>
#include <cstring>
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
} // namespace

bool PackedGemm::applies(int64_t m) {
  return kernelTable().gemmTile != nullptr && m >= 2 && m <= kMaxRows;
}

PackedGemm::PackedGemm(int64_t m, int64_t k, int64_t n, const float *weights,
                       const float *biasData, std::vector<PostOp> postOps)
    : m(m), k(k), n(n), postOps(std::move(postOps)) {
  const KernelTable &kt = kernelTable();
  if (!kt.gemmTile)
    throw std::logic_error(std::string("PackedGemm: the kernel tier ") +
                           kt.name + " has no GEMM tile");
  if (m < 1 || k < 1 || n < 1)
    throw std::invalid_argument("PackedGemm: M, K and N must be positive");
  tile = kt.gemmTile;
  rows = kt.gemmRows;
  cols = kt.gemmCols;
  // The tile's panels are 64-byte aligned (KernelTable.h): whole lines.
  if (cols % 16 != 0)
    throw std::logic_error("PackedGemm: the tier's tile is not one this "
                           "loop packs for");
  arithRow = kt.arithRow;
  transpose = kt.transpose32;
  tierName = kt.name;
  panels = (n + cols - 1) / cols;
  auto make = [&] {
    auto packed = std::make_shared<AlignedBuffer<float>>();
    packed->resize(panels * cols * k, /*hugePages=*/true); // zeroed: past N
    for (int64_t k0 = 0; k0 < k; k0 += kKBlock) {
      int64_t kb = std::min(kKBlock, k - k0);
      float *block = packed->data + k0 * panels * cols;
      for (int64_t j = 0; j < n; ++j) {
        const float *src = weights + j * k + k0;
        float *dst = block + (j / cols) * kb * cols + j % cols;
        for (int64_t s = 0; s < kb; ++s)
          dst[s * cols] = src[s];
      }
    }
    return packed;
  };
  PackedWeightCache *cache = currentPackedWeights();
  if (cache && cache->covers(weights)) {
    std::string key = "gemm:" + std::to_string(n) + "x" + std::to_string(k) +
                      ":cols" + std::to_string(cols) + ":kblock" +
                      std::to_string(kKBlock);
    w = std::static_pointer_cast<AlignedBuffer<float>>(cache->get(
        weights, key, [&] { return std::shared_ptr<void>(make()); }));
  } else {
    w = make();
  }
  if (biasData)
    bias.assign(biasData, biasData + n);
}

std::string PackedGemm::name() const { return "gemm:" + tierName; }

void PackedGemm::run(const float *x, float *y, const float *sum) const {
  auto *xp = static_cast<float *>(dnnlx::threadScratch(1, m * k * 4));
  const int64_t mBlocks = (m + rows - 1) / rows;
  const int threads = omp_get_max_threads();
  // Chunks of at most kChunkPanels panels, their count first rounded up to
  // a multiple of the threads (where there are enough panels), then
  // evened out.
  int64_t chunks = (panels + kChunkPanels - 1) / kChunkPanels;
  chunks = std::min(panels, (chunks + threads - 1) / threads * threads);
  const int64_t perChunk = (panels + chunks - 1) / chunks;
  chunks = (panels + perChunk - 1) / perChunk;
  const float *wp = w->data;
  // A row block's outputs in a chunk: kRowTiles tiles of rows by the
  // chunk's panels, contiguous.
  const int64_t ldo = perChunk * cols;
  const size_t outBytes = size_t(kRowTiles * rows * ldo) * sizeof(float);

#pragma omp parallel if (threads > 1 && chunks > 1)
  {
    // The input into the tiles' order: K block by K block, each row block
    // [kb][mr] (a block of all M rows is contiguous).
#pragma omp for schedule(static)
    for (int64_t mb = 0; mb < mBlocks; ++mb) {
      int64_t r0 = mb * rows, mr = std::min(rows, m - r0);
      for (int64_t k0 = 0; k0 < k; k0 += kKBlock) {
        int64_t kb = std::min(kKBlock, k - k0);
        transpose(x + r0 * k + k0, k, mr, kb, xp + k0 * m + r0 * kb, mr);
      }
    }
#pragma omp for schedule(static)
    for (int64_t ch = 0; ch < chunks; ++ch) {
      const int64_t p0 = ch * perChunk, p1 = std::min(panels, p0 + perChunk);
      const int64_t span = p1 - p0, kBlocks = (k + kKBlock - 1) / kKBlock;
      const int64_t c0 = p0 * cols, width = std::min(p1 * cols, n) - c0;
      auto *out = static_cast<float *>(dnnlx::threadScratch(3, outBytes));
      // Row blocks of kRowTiles tiles: the products accumulate in `out`
      // (in L2, away from y's stride) across the K blocks, from zero.
      for (int64_t mb0 = 0; mb0 < mBlocks; mb0 += kRowTiles) {
        const int64_t mb1 = std::min(mBlocks, mb0 + kRowTiles),
                      tiles = mb1 - mb0;
        for (int64_t k0 = 0; k0 < k; k0 += kKBlock) {
          const int64_t kb = std::min(kKBlock, k - k0);
          const float *block = wp + k0 * panels * cols, *xb = xp + k0 * m;
          for (int64_t p = p0; p < p1; ++p) {
            const float *b = block + p * kb * cols;
            // The panel kAhead after this one in the row block's order (K
            // block by K block, the chunk's panels in order; after the last,
            // the first again for the next row block): each tile
            // prefetches its share of it.
            int64_t ahead = (k0 / kKBlock) * span + (p - p0) + kAhead;
            if (ahead >= kBlocks * span && mb1 < mBlocks)
              ahead -= kBlocks * span;
            const int64_t nk0 = ahead / span * kKBlock;
            const float *next = nullptr;
            int64_t nextFloats = 0;
            if (nk0 < k) {
              int64_t nkb = std::min(kKBlock, k - nk0);
              next =
                  wp + nk0 * panels * cols + (p0 + ahead % span) * nkb * cols;
              nextFloats = nkb * cols;
            }
            const int64_t share =
                ((nextFloats + tiles - 1) / tiles + 15) / 16 * 16;
            for (int64_t mb = mb0; mb < mb1; ++mb) {
              int64_t from = std::min((mb - mb0) * share, nextFloats);
              GemmTileCall t;
              t.a = xb + mb * rows * kb;
              t.b = b;
              t.kb = kb;
              t.mr = std::min(rows, m - mb * rows);
              t.accumulate = k0 > 0;
              t.c = out + (mb - mb0) * rows * ldo + (p - p0) * cols;
              t.ldc = ldo;
              t.prefetch = next ? next + from : nullptr;
              t.prefetchFloats = std::min(share, nextFloats - from);
              tile(t);
            }
          }
        }
        // Then the bias and the post-ops in order, row by row while the
        // block is in L2, and the row into y: each row of `sum` is read
        // before the same row of y is written, so the sum may be y itself.
        for (int64_t r = mb0 * rows; r < std::min(m, mb1 * rows); ++r) {
          float *row = out + (r - mb0 * rows) * ldo;
          if (!bias.empty())
            arithRow(BinaryKind::Add, row, 1, bias.data() + c0, 1, row, width);
          for (PostOp op : postOps) {
            if (op == PostOp::Sum)
              arithRow(BinaryKind::Add, row, 1, sum + r * n + c0, 1, row,
                       width);
            else
              applyActivation(op, row, width);
          }
          std::memcpy(y + r * n + c0, row, width * sizeof(float));
        }
      }
    }
  }
}
