//===- Sparse.cpp - block-sparse inner products ---------------------------===//
//
// Part of opscope's runtime. See sparse.h for the scheme. This file holds
// the CPU dispatch, the activation-tile packing, the tile loop and the
// epilogue; the row kernels (AVX-512 with target attributes, chosen at run
// time, and their portable twins) are in SparseRows.cpp.
//
// Shapes of the work: an activation tile of kTile (64) tokens is packed as
// K rows of 64 (f32) or K/4 rows of 64 dwords (u8, four consecutive k of a
// token per dword, the VNNI operand). For every chunk of kChunk (64) output
// rows the kernel computes a 64 x 64 tile of Y^T in registers, two rows at a
// time with four zmm accumulators each, then applies bias and post-ops to the
// tile and stores it in the output layout.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/sparse.h"

#include "AlignedBuffer.h"
#include "KernelTable.h"
#include "SparseRows.h"
#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <omp.h>
#include <stdexcept>
#include <unistd.h>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;
using sparse::Header;
using sparse::ValueType;

namespace {
std::atomic<SparseStores> &storeMode() {
  static std::atomic<SparseStores> mode{SparseStores::Auto};
  return mode;
}

std::atomic<SparseTileOrder> &tileOrder() {
  static std::atomic<SparseTileOrder> order{SparseTileOrder::Auto};
  return order;
}

/// Whether a product whose output is transposed (N x M) runs chunk-major:
/// every token tile packed once, then for each chunk of output rows all of
/// them, instead of every chunk for each tile. Tile by tile streams the
/// whole weight once per tile, and each tile also writes N x 64 outputs;
/// once weight and that output overflow three quarters of L2 together,
/// the weight comes from L3 every tile (a 3072x768 s8 weight at 80%, 0.5
/// MB, plus 0.8 MB of outputs per tile at M=1024). Chunk-major keeps a
/// chunk's weight rows in L1 and re-reads the packed activations from L2
/// instead, so those must fit three quarters of it; with fewer than four
/// tiles there is little weight traffic to save. Measured in one process,
/// alternating (Ice Lake Xeon, L2 1.25 MB): 3072x768 s8 4x4 at M=1024
/// 1.37-1.43x faster at 80-90%; groups of tiles where all do not fit
/// (768x3072, K=3072) lost (0.86-0.88x), so there are none.
/// `tileBytes`: one packed tile; `perTileBytes`: packed weight + one
/// tile's outputs.
bool useChunkMajor(int64_t tiles, int64_t tileBytes, int64_t perTileBytes) {
  switch (tileOrder().load()) {
  case SparseTileOrder::TokenMajor:
    return false;
  case SparseTileOrder::ChunkMajor:
    return tiles > 1;
  case SparseTileOrder::Auto:
    break;
  }
  static const int64_t l2 = [] {
    long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? int64_t(v) : int64_t(1) << 20;
  }();
  return tiles >= 4 && 4 * tiles * tileBytes <= 3 * l2 &&
         4 * perTileBytes > 3 * l2;
}

//===----------------------------------------------------------------------===//
// Epilogue: post-ops on a Y^T tile (rows = outputs, columns = tokens), then
// the store into the output layout.
//===----------------------------------------------------------------------===//


/// `yt` holds rows [n0, n0 + nc) x tokens [m0, m0 + mc) with leading
/// dimension `ldy`: a scratch tile (kTile), or the transposed output itself
/// (ldy = M). Post-ops run on it; the Sum post-op reads `sum` (in the
/// output layout; transposed into `scratch` when the output is not) before
/// the store can overwrite it, since the sum may alias the output. Then,
/// unless `direct` (the tile is the output itself), the tile is stored in
/// the output layout, a transposed one non-temporally when `stream`.
void epilogue(float *yt, int64_t ldy, bool direct, bool stream, float *scratch,
              int64_t n0,
              int64_t nc, int64_t m0, int64_t mc, int64_t m, int64_t n,
              const std::vector<PostOp> &postOps, const float *sum, float *y,
              bool transposedOutput, const KernelTable &kt) {
  auto transpose = kt.transpose32;
  for (PostOp p : postOps) {
    if (p != PostOp::Sum) {
      for (int64_t r = 0; r < nc; ++r)
        applyActivation(p, yt + r * ldy, mc);
      continue;
    }
    const float *s = scratch;
    int64_t lds = kTile;
    if (transposedOutput) {
      s = sum + n0 * m + m0;
      lds = m;
    } else {
      // sum[m0 + i, n0 + r] -> scratch[r, i]
      transpose(sum + m0 * n + n0, n, mc, nc, scratch, kTile);
    }
    for (int64_t r = 0; r < nc; ++r) {
      float *row = yt + r * ldy;
      const float *srow = s + r * lds;
      for (int64_t i = 0; i < mc; ++i)
        row[i] += srow[i];
    }
  }
  if (direct)
    return;
  if (transposedOutput) {
    if (stream)
      return kt.streamRows(yt, kTile, nc, mc, y + n0 * m + m0, m);
    for (int64_t r = 0; r < nc; ++r)
      std::memcpy(y + (n0 + r) * m + m0, yt + r * kTile, mc * sizeof(float));
    return;
  }
  // yt[r, i] -> y[m0 + i, n0 + r]
  transpose(yt, kTile, nc, mc, y + m0 * n + n0, n);
}

/// What the two classes share: shapes, the packed weight, scratch, and the
/// tile loop. `Elem` is the activation element (float or uint8_t); a packed
/// activation row holds kTile 32-bit lanes (one float, or four u8).
struct Common {
  Packed p;
  int64_t m, n, k, kRows; // kRows: packed activation rows (K or K/4, padded)
  std::vector<float> bias;
  std::vector<PostOp> postOps;
  SparseLayout layout;
  KernelTable kt;        // the tier's kernels when the layer was built
  SparseRowsEntry rows;  // the row kernel of the weights' element type
  AlignedBuffer<uint32_t> xt;            // kRows x kTile lanes
  AlignedBuffer<uint32_t> xtAll;         // every tile, for chunk-major
  std::vector<AlignedBuffer<float>> yt;  // per thread, 2 x kChunk x kTile:
                                         // the output tile, the sum's

  Common(int64_t m, const void *blob, const float *b, std::vector<PostOp> post,
         SparseLayout layout, int64_t lanesPerRow, const KernelTable &kt,
         SparseRowsEntry rows)
      : p(blob), m(m), n(p.h.n), k(p.h.k), postOps(std::move(post)),
        layout(layout), kt(kt), rows(rows) {
    if (m <= 0)
      throw std::invalid_argument("sparse inner product: M must be positive");
    int64_t k4 = (k + 3) / 4 * 4;
    kRows = k4 / lanesPerRow;
    if (b)
      bias.assign(b, b + n);
    xt.resize(size_t(kRows) * kTile);
    ensureThreads();
  }

  void ensureThreads() {
    size_t threads = std::max(1, omp_get_max_threads());
    if (yt.size() < threads)
      yt.resize(threads);
    for (auto &buf : yt)
      buf.resize(2 * size_t(kChunk) * kTile);
  }

  /// Packs tokens [m0, m0+mc) of x (32-bit lanes: `lanes` per token row when
  /// untransposed) into `dst` (kRows rows of kTile lanes). Transposed input
  /// is copied too: a 64-token tile of contiguous rows keeps half the cache
  /// footprint of the same rows read in place with a stride of M (measured
  /// 1.4x faster at M=128).
  void packTile(const uint32_t *x, int64_t lanes, int64_t m0, int64_t mc,
                uint32_t *dst) {
    if (bf16)
      packTileBf16(reinterpret_cast<const float *>(x), m0, mc, dst);
    else if (layout.transposedInput)
      copy32(x + m0, m, lanes, mc, dst, kTile);
    else
      kt.transpose32(x + m0 * lanes, lanes, mc, lanes, dst, kTile);
  }

  /// f32 activations to bf16 pairs: kRows rows of kTile dwords.
  bool bf16 = false;
  AlignedBuffer<uint16_t> rowsBf16; // kTile x 2*kRows, row-major input
  void packTileBf16(const float *x, int64_t m0, int64_t mc, uint32_t *dst) {
    int64_t k2 = 2 * kRows; // K padded to a multiple of 4
    if (!layout.transposedInput) {
      rowsBf16.resize(size_t(kTile) * k2);
      for (int64_t i = 0; i < mc; ++i) {
        uint16_t *row = rowsBf16.data + i * k2;
        const float *src = x + (m0 + i) * k;
        kt.toBf16(src, row, k);
        std::fill(row + k, row + k2, uint16_t(0));
      }
      kt.transpose32(rowsBf16.data, kRows, mc, kRows, dst, kTile);
      return;
    }
    for (int64_t q = 0; q < kRows; ++q) {
      const float *a = 2 * q < k ? x + 2 * q * m + m0 : nullptr;
      const float *b = 2 * q + 1 < k ? x + (2 * q + 1) * m + m0 : nullptr;
      uint32_t *out = dst + q * kTile;
      if (!a)
        std::fill(out, out + mc, 0u);
      else
        kt.pairRowBf16(a, b, mc, out);
    }
  }

  /// Runs the row kernel (`call` carries its run-time arguments) over
  /// every output tile, slab by slab. A transposed output whose tile is whole
  /// vectors (mc a multiple of 16) is accumulated in place, which saves
  /// copying every output once (measured 11% of an int8 4x4 run at M=1024);
  /// otherwise, and when the Sum post-op's input overlaps the output (its
  /// values must be read before the tile overwrites them), the tile goes
  /// through per-thread scratch. Token tiles are the outer loop, or, where
  /// useChunkMajor says so, chunks of output rows are.
  ///
  /// Where the chunk-major order runs (an output several times L2), it is
  /// written past the caches (non-temporal stores): an ordinary store first
  /// reads the line it fills, and this loop's 256-byte pieces of rows 4 KiB
  /// or more apart defeat the prefetchers that would hide that read (a 3072
  /// x 1024 f32 output written in this order: 3.0 ms with ordinary stores,
  /// 0.55 ms non-temporal, Ice Lake Xeon). The kernels stream their final
  /// values where no post-op follows; otherwise the tile is finished in L1
  /// scratch and streamed out from there. Token-major outputs stay cached:
  /// streaming those over L2 too cost 3-8% end to end at batch 1 (the next
  /// op reads them from cache); those over 4x L2 gained 10-25% for f32 4x4
  /// blocks but lost 2-6% for 1x4 (3072x768, M=1024), so neither is done.
  void forEachTile(const uint32_t *x, int64_t lanes, float *y,
                   const float *sum, SparseRowsCall call) {
    ensureThreads();
    int64_t chunks = (n + kChunk - 1) / kChunk;
    int64_t slabs = p.h.slabs();
    bool sumOverlaps = sum && sum < y + m * n && y < sum + m * n;
    size_t tileLanes = size_t(kRows) * kTile;
    int64_t tiles = (m + kTile - 1) / kTile;
    bool inPlace = layout.transposedOutput && !sumOverlaps;
    bool chunkMajor = inPlace && m % 16 == 0 &&
                      useChunkMajor(tiles, int64_t(tileLanes) * 4,
                                    int64_t(p.h.totalBytes) + n * kTile * 4);
    SparseStores stores = storeMode();
    bool stream = inPlace && rows.streams && kt.streamRows && m % 16 == 0 &&
                  reinterpret_cast<uintptr_t>(y) % 64 == 0 &&
                  (stores == SparseStores::Streamed ||
                   (stores == SparseStores::Auto && chunkMajor));
    bool viaScratch = stream && !postOps.empty();
    // Tile [m0, m0 + mc) x chunk [n0, n0 + nc) from the packed tile `xtile`.
    auto tile = [&](float *buf, int64_t n0, int64_t nc, int64_t m0, int64_t mc,
                    const uint32_t *xtile) {
      bool direct = inPlace && mc % 16 == 0 && !viaScratch;
      float *out = direct ? y + n0 * m + m0 : buf;
      int64_t ldy = direct ? m : kTile;
      SparseRowsCall c = call;
      c.p = &p;
      c.n0 = n0, c.nc = nc, c.xt = xtile, c.ldx = kTile, c.mc = mc;
      c.yt = out, c.ldy = ldy, c.bias = biasPtr();
      for (int64_t s = 0; s < slabs; ++s) {
        c.s = s, c.first = s == 0, c.last = s + 1 == slabs;
        c.stream = stream && direct && c.last;
        rows.run(c);
      }
      epilogue(out, ldy, direct, stream, buf + kChunk * kTile, n0, nc, m0, mc,
               m, n, postOps, sum, y, layout.transposedOutput, kt);
    };
    if (chunkMajor) {
      // Chunk-major: every tile packed, then each chunk of output rows over
      // all of them.
      xtAll.resize(tiles * tileLanes);
      for (int64_t t = 0; t < tiles; ++t)
        packTile(x, lanes, t * kTile, std::min(kTile, m - t * kTile),
                 xtAll.data + t * tileLanes);
#pragma omp parallel
      {
#pragma omp for schedule(static) nowait
        for (int64_t c = 0; c < chunks; ++c) {
          float *buf = yt[omp_get_thread_num()].data;
          int64_t n0 = c * kChunk, nc = std::min(kChunk, n - n0);
          for (int64_t t = 0; t < tiles; ++t)
            tile(buf, n0, nc, t * kTile, std::min(kTile, m - t * kTile),
                 xtAll.data + t * tileLanes);
        }
        if (stream) // this thread's streamed stores, before they are read
          std::atomic_thread_fence(std::memory_order_seq_cst);
      }
      return;
    }
    for (int64_t m0 = 0; m0 < m; m0 += kTile) {
      int64_t mc = std::min(kTile, m - m0);
      packTile(x, lanes, m0, mc, xt.data);
#pragma omp parallel
      {
#pragma omp for schedule(static) nowait
        for (int64_t c = 0; c < chunks; ++c) {
          int64_t n0 = c * kChunk;
          tile(yt[omp_get_thread_num()].data, n0, std::min(kChunk, n - n0), m0,
               mc, xt.data);
        }
        if (stream)
          std::atomic_thread_fence(std::memory_order_seq_cst);
      }
    }
  }

  const float *biasPtr() const { return bias.empty() ? nullptr : bias.data(); }
};
} // namespace

//===----------------------------------------------------------------------===//
// SparseInnerProduct (f32)
//===----------------------------------------------------------------------===//

struct SparseInnerProduct::Impl : Common {
  using Common::Common;
  /// bf16 weights without AVX512-BF16: the f32 kernel on the weights
  /// widened into `widened` (an f32 blob) and the input rounded to bf16
  /// (kept in f32) into `xr` on every run.
  bool bf16AsF32 = false;
  AlignedBuffer<uint8_t> widened;
  AlignedBuffer<float> xr;
};

SparseInnerProduct::SparseInnerProduct(int64_t m, const void *packed,
                                       const float *bias,
                                       std::vector<PostOp> postOps,
                                       SparseLayout layout) {
  Header h;
  std::memcpy(&h, packed, sizeof(h));
  bool bf16 = h.valueType == static_cast<uint8_t>(ValueType::BF16);
  if (h.valueType != static_cast<uint8_t>(ValueType::F32) && !bf16)
    throw std::invalid_argument(
        "SparseInnerProduct needs f32 or bf16 packed weights");
  AlignedBuffer<uint8_t> widened;
  const KernelTable &kt = kernelTable();
  bool asF32 = bf16 && kt.bf16OnF32;
  if (asF32) {
    // Repacked once as f32 (the f32 kernel's slab width).
    std::vector<float> w(size_t(h.n) * h.k);
    sparse::unpack(packed, w.data());
    int64_t br = h.blockRows;
    Header fh = sparse::layout(ValueType::F32, h.n, h.k,
                               sparse::countNonZeroBlocks(w.data(), h.n, h.k, br),
                               br);
    widened.resize(fh.totalBytes);
    sparse::pack(w.data(), h.n, h.k, ValueType::F32, widened.data, br);
    packed = widened.data;
    bf16 = false;
  }
  impl = std::make_unique<Impl>(m, packed, bias, std::move(postOps), layout,
                                bf16 ? 2 : 1, kt,
                                bf16 ? kt.sparseBf16 : kt.sparseF32);
  impl->bf16 = bf16;
  impl->bf16AsF32 = asF32;
  if (asF32) {
    impl->widened = std::move(widened); // the same bytes: Packed stays valid
    impl->xr.resize(size_t(m) * h.k);
  }
}

SparseInnerProduct::~SparseInnerProduct() = default;

void SparseInnerProduct::run(const float *x, float *y, const float *sum) {
  Impl &c = *impl;
  if (c.bf16AsF32) {
    roundToBf16AsF32(x, c.xr.data, c.m * c.k);
    x = c.xr.data;
  }
  c.forEachTile(reinterpret_cast<const uint32_t *>(x), c.bf16 ? c.kRows : c.k,
                y, sum, SparseRowsCall{});
}

namespace {
/// "opscope:sparse_1x4:" or "opscope:sparse_4x4:", by the blob's blocks.
std::string family(const Packed &p) {
  return "opscope:sparse_" + std::to_string(p.h.blockRows) + "x4:";
}
} // namespace

std::string SparseInnerProduct::implementation() const {
  if (impl->bf16AsF32)
    return family(impl->p) + impl->kt.sparseBf16.name + ":bf16";
  return family(impl->p) + impl->rows.name + (impl->bf16 ? ":bf16" : ":f32");
}

//===----------------------------------------------------------------------===//
// SparseInnerProductS8
//===----------------------------------------------------------------------===//

struct SparseInnerProductS8::Impl : Common {
  using Common::Common;
};

SparseInnerProductS8::SparseInnerProductS8(int64_t m, const void *packed,
                                           const float *bias,
                                           std::vector<PostOp> postOps,
                                           SparseLayout layout) {
  Header h;
  std::memcpy(&h, packed, sizeof(h));
  if (h.valueType != static_cast<uint8_t>(ValueType::S8))
    throw std::invalid_argument("SparseInnerProductS8 needs s8 packed weights");
  if (h.k % 4)
    throw std::invalid_argument(
        "SparseInnerProductS8 needs K to be a multiple of 4");
  const KernelTable &kt = kernelTable();
  impl = std::make_unique<Impl>(m, packed, bias, std::move(postOps), layout, 4,
                                kt, kt.sparseS8);
}

SparseInnerProductS8::~SparseInnerProductS8() = default;

void SparseInnerProductS8::run(const uint8_t *x, float xScale, int32_t xZero,
                               float *y, const float *sum) {
  SparseRowsCall call{};
  call.xScale = xScale;
  call.xZero = xZero;
  impl->forEachTile(reinterpret_cast<const uint32_t *>(x), impl->kRows, y, sum,
                    call);
}

std::string SparseInnerProductS8::implementation() const {
  return family(impl->p) + impl->rows.name + ":s8";
}

std::string opscope::rt::sparseIsa(ValueType t) {
  const KernelTable &kt = kernelTable();
  return t == ValueType::S8     ? kt.sparseS8.name
         : t == ValueType::BF16 ? kt.sparseBf16.name
                                : kt.sparseF32.name;
}

void opscope::rt::setSparseTileOrder(SparseTileOrder order) {
  tileOrder() = order;
}

void opscope::rt::setSparseStores(SparseStores stores) { storeMode() = stores; }

SparseStores opscope::rt::sparseStores() { return storeMode(); }

void opscope::rt::quantizeU8Transposed(const float *x, uint8_t *q, int64_t k,
                                       int64_t m, float scale,
                                       int32_t zeroPoint) {
  if (k % 4)
    throw std::invalid_argument("quantizeU8Transposed needs K to be a "
                                "multiple of 4");
  kernelTable().quantizeU8Transposed(x, q, k, m, 1.0f / scale, zeroPoint);
}

void opscope::rt::applyActivation(PostOp p, float *row, int64_t len) {
  switch (p.kind) {
  case PostOpKind::Relu:
    for (int64_t i = 0; i < len; ++i)
      row[i] = std::max(row[i], 0.0f);
    break;
  case PostOpKind::GeluErf:
  case PostOpKind::GeluTanh:
    gelu(row, row, len, p.kind == PostOpKind::GeluTanh);
    break;
  case PostOpKind::Sigmoid:
    transcendental(Transcendental::Sigmoid, row, row, len);
    break;
  case PostOpKind::Tanh:
    transcendental(Transcendental::Tanh, row, row, len);
    break;
  case PostOpKind::HardSwish:
    for (int64_t i = 0; i < len; ++i) {
      float v = row[i];
      row[i] = v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
    break;
  case PostOpKind::Relu6:
    for (int64_t i = 0; i < len; ++i)
      row[i] = std::min(std::max(row[i], 0.0f), 6.0f);
    break;
  case PostOpKind::Swish:
    swishRow(row, row, len);
    break;
  case PostOpKind::Mish:
    kernelTable().mishRow(row, row, len);
    break;
  case PostOpKind::LeakyRelu:
    kernelTable().unaryRow(UnaryKind::LeakyRelu, row, row, len, p.alpha, 0.0f);
    break;
  case PostOpKind::Elu:
    kernelTable().eluRow(row, row, len, p.alpha);
    break;
  case PostOpKind::HardSigmoid:
    kernelTable().unaryRow(UnaryKind::HardSigmoid, row, row, len, p.alpha,
                           p.beta);
    break;
  case PostOpKind::Clip:
    kernelTable().unaryRow(UnaryKind::Clip, row, row, len, p.alpha, p.beta);
    break;
  case PostOpKind::Sum:
    break;
  }
}

void opscope::rt::eluRow(const float *x, float *y, int64_t n, float alpha) {
  // exp on the table's kernel a chunk at a time (on the stack), as
  // swishRow; each x is read before its y is written.
  constexpr int64_t kChunk = 512;
  float e[kChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t len = std::min(kChunk, n - i0);
    transcendental(Transcendental::Exp, x + i0, e, len);
    // Both sides computed, then selected on the bits: x keeps its value
    // unless it is below zero (its bits above -0's as unsigned: -0 stays
    // -0; a NaN gives a NaN either way). GCC vectorises this integer
    // select; written `v >= 0.0f ? v : neg` it kept a scalar loop with a
    // branch (30% of memcpy's bandwidth on a 64 MiB tensor, Zen 3).
    for (int64_t i = 0; i < len; ++i) {
      const float v = x[i0 + i], neg = alpha * (e[i] - 1.0f);
      uint32_t vb, nb;
      std::memcpy(&vb, &v, 4);
      std::memcpy(&nb, &neg, 4);
      const uint32_t below = 0u - uint32_t(vb > 0x80000000u);
      const uint32_t r = (nb & below) | (vb & ~below);
      std::memcpy(y + i0 + i, &r, 4);
    }
  }
}

void opscope::rt::swishRow(const float *x, float *y, int64_t n) {
  // Sigmoid on the table's kernel a chunk at a time (on the stack), then
  // the product; x may be y: each x is read before its y is written.
  constexpr int64_t kChunk = 512;
  float s[kChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t len = std::min(kChunk, n - i0);
    transcendental(Transcendental::Sigmoid, x + i0, s, len);
    for (int64_t i = 0; i < len; ++i)
      y[i0 + i] = x[i0 + i] * s[i];
  }
}
