//===- WinogradConv.cpp - 3x3 convolutions as Winograd F(m x m, 3x3) ------===//
//
// Part of opscope's runtime: the weight transform and the tile loop around
// the kernel table's Winograd steps (WinogradConv.h).
//
//===----------------------------------------------------------------------===//

#include "WinogradConv.h"

#include "DnnlCommon.h"
#include "KernelTable.h"

#include "opscope/runtime/packed_weights.h"

#include <algorithm>
#include <cstring>
#include <omp.h>
#include <stdexcept>

using namespace opscope::rt;

bool WinogradConv::applies(const ConvParams &p) {
  if (p.transposed || p.groups != 1 || p.input.size() != 4 ||
      p.weight.size() != 4 || p.output.size() != 4 || !p.inputNhwc ||
      p.inputU8 || p.outputU8 || p.bf16.input || p.bf16.output)
    return false;
  if (p.weight[2] != 3 || p.weight[3] != 3 || p.weight[1] != p.input[1] ||
      p.weight[0] != p.output[1] || p.input[0] != p.output[0])
    return false;
  for (int i = 0; i < 2; ++i) {
    if (p.strides[i] != 1 || p.dilations[i] < 1)
      return false;
    if (p.output[2 + i] !=
            p.input[2 + i] + p.pads[i] + p.pads[2 + i] - 2 * p.dilations[i] ||
        p.output[2 + i] < 1)
      return false;
  }
  return true;
}

int64_t WinogradConv::blockTilesFor(int planes, int64_t inC, int64_t kp) {
  // A block's transformed inputs and products within about 192 KiB, in a
  // multiple of 24 tiles, so that every register tile of the GEMM is
  // whole (AVX2: 4, 6 or 8 rows; AVX-512: 8 or 12).
  return std::clamp<int64_t>(192 * 1024 / (planes * 4 * (inC + kp)) / 24 * 24,
                             24, 96);
}

int WinogradConv::tileFor(const ConvParams &p) {
  // F(4x4, 3x3) needs a quarter of the direct form's multiplications,
  // F(2x2, 3x3) 4/9, but their transformed weights take 36 and 16 values
  // per channel pair, and a block of tiles reads all of them: within a few
  // MiB they stay in the caches.
  const int64_t budget = 6 << 20;
  int64_t lanes = kernelTable().winogradLanes;
  int64_t inC = p.input[1];
  int64_t kp = (p.output[1] + lanes - 1) / lanes * lanes;
  int64_t pairBytes = inC * kp * int64_t(sizeof(float));
  // A dilated convolution is dilations[0] x dilations[1] undilated ones,
  // each on a sub-lattice of the image (WinogradConv.h): its tiles.
  int64_t dh = p.dilations[0], dw = p.dilations[1];
  int64_t subH = (p.output[2] + dh - 1) / dh, subW = (p.output[3] + dw - 1) / dw;
  bool big = subH >= 4 && subW >= 4;
  bool f4 = big && kernelTable().winogradTile != 2;
  if (f4 && 36 * pairBytes <= budget)
    return 4;
  if (16 * pairBytes <= budget)
    return 2;
  // Past the budget they stream from memory once per block of tiles. That
  // pays where the direct form's work is large against the bytes streamed:
  // at least kStreamFlopsPerByte of its FLOPs per byte. Measured (one
  // thread, docs/runtime-kernels.md): 512 -> 512 over 7x7 is 6 FLOPs a
  // byte with 4x4 tiles, 1.2-1.5x slower than direct, and 14 with 2x2,
  // as fast as direct under the avx2 cap and 1.15x faster at AVX-512
  // (Sapphire Rapids class); 512 -> 512 over 16x16, 32, ran 2.4x faster
  // as Winograd and 1024 -> 256 over 64x64, 46, 4.4x (AMD EPYC Zen 3,
  // AVX2).
  const double kStreamFlopsPerByte = 24;
  double directFlops = 2.0 * 9 * inC * p.output[0] * p.output[1] *
                       p.output[2] * p.output[3];
  for (int tile : {4, 2}) {
    if (tile == 4 && !f4)
      continue;
    int planes = (tile + 2) * (tile + 2);
    int64_t tiles = p.output[0] * dh * dw * ((subH + tile - 1) / tile) *
                    ((subW + tile - 1) / tile);
    int64_t per = blockTilesFor(planes, inC, kp);
    double streamed =
        double((tiles + per - 1) / per) * planes * double(pairBytes);
    if (directFlops >= kStreamFlopsPerByte * streamed)
      return tile;
  }
  return 0;
}

namespace {
/// G for F(2x2, 3x3) and F(4x4, 3x3) (Lavin and Gray), alpha x 3.
const double kG2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
const double kG4[6][3] = {{1 / 4., 0, 0},
                          {-1 / 6., -1 / 6., -1 / 6.},
                          {-1 / 6., 1 / 6., -1 / 6.},
                          {1 / 24., 1 / 12., 1 / 6.},
                          {1 / 24., -1 / 12., 1 / 6.},
                          {0, 0, 1}};
} // namespace

WinogradConv::WinogradConv(const ConvParams &p, const float *weights,
                           const float *biasData, int tileSize)
    : batch(p.input[0]), inH(p.input[2]), inW(p.input[3]), inC(p.input[1]),
      outH(p.output[2]), outW(p.output[3]), outC(p.output[1]), padT(p.pads[0]),
      padL(p.pads[1]), dilH(p.dilations[0]), dilW(p.dilations[1]),
      outNhwc(p.outputNhwc), postOps(p.postOps) {
  if (!applies(p))
    throw std::invalid_argument("Winograd needs a 2-D 3x3 stride-1 ungrouped "
                                "f32 convolution of a channels-last input");
  if (!weights)
    throw std::invalid_argument("Winograd needs constant weights");
  const KernelTable &kt = kernelTable();
  tile = tileSize;
  if (tile != 2 && tile != 4)
    throw std::invalid_argument("Winograd tiles are 2x2 or 4x4");
  alpha = tile + 2;
  planes = alpha * alpha;
  tilesH = ((outH + dilH - 1) / dilH + tile - 1) / tile;
  tilesW = ((outW + dilW - 1) / dilW + tile - 1) / tile;
  input = tile == 2 ? kt.winogradInput : kt.winograd4Input;
  gemm = kt.winogradGemm;
  output = tile == 2 ? kt.winogradOutput : kt.winograd4Output;
  arithRow = kt.arithRow;
  kernelName =
      std::string(tile == 2 ? "winograd_f2x3:" : "winograd_f4x3:") + kt.name;
  // Panels of two or three vectors where they divide the (padded) count,
  // else of one: as many accumulators in each (Avx2Winograd.cpp).
  int64_t lanes = kt.winogradLanes;
  kp = (outC + lanes - 1) / lanes * lanes;
  panel = lanes * (kp % (2 * lanes) == 0 ? 2 : kp % (3 * lanes) == 0 ? 3 : 1);
  blockTiles = blockTilesFor(planes, inC, kp);
  // U = G g G^T per (output, input) channel pair, in double, into plane
  // xi's panel-packed inC x kp matrix: made once per model for weights in
  // its mapping (the sessions share it, as oneDNN's packed weights).
  auto make = [&] {
    auto packed = std::make_shared<AlignedBuffer<float>>();
    packed->resize(planes * inC * kp); // zeroed: the padded channels
    float *uf = packed->data;
    const double *g = tile == 2 ? &kG2[0][0] : &kG4[0][0];
    for (int64_t k = 0; k < outC; ++k)
      for (int64_t c = 0; c < inC; ++c) {
        const float *w = weights + (k * inC + c) * 9;
        double gw[6][3] = {}; // G w: alpha x 3
        for (int i = 0; i < alpha; ++i)
          for (int j = 0; j < 3; ++j)
            for (int a = 0; a < 3; ++a)
              gw[i][j] += g[3 * i + a] * w[3 * a + j];
        for (int i = 0; i < alpha; ++i)
          for (int j = 0; j < alpha; ++j) {
            double acc = 0;
            for (int b = 0; b < 3; ++b)
              acc += gw[i][b] * g[3 * j + b];
            uf[(alpha * i + j) * inC * kp + (k / panel) * inC * panel +
               c * panel + k % panel] = static_cast<float>(acc);
          }
      }
    return packed;
  };
  PackedWeightCache *cache = currentPackedWeights();
  if (cache && cache->covers(weights)) {
    std::string key = "winograd:" + std::to_string(tile) + ":" +
                      std::to_string(inC) + "x" + std::to_string(outC) + ":kp" +
                      std::to_string(kp) + ":panel" + std::to_string(panel);
    u = std::static_pointer_cast<AlignedBuffer<float>>(cache->get(
        weights, key, [&] { return std::shared_ptr<void>(make()); }));
  } else {
    u = make();
  }
  if (biasData)
    bias.assign(biasData, biasData + outC);
  zeros.assign(inC, 0.0f);
}

WinogradConv::TileAt WinogradConv::tileAt(int64_t at) const {
  int64_t lattice = at / (tilesH * tilesW);
  return {lattice / (dilH * dilW), lattice / dilW % dilH, lattice % dilW,
          at / tilesW % tilesH, at % tilesW};
}

void WinogradConv::run(const float *x, float *y, const float *sum) const {
  int64_t tiles = batch * dilH * dilW * tilesH * tilesW, area = tile * tile;
  // Blocks of blockTiles tiles; where that leaves a thread without one
  // (a small image: the corpus CNN's 8x64x8x8 is 32 tiles, one block),
  // smaller blocks, a multiple of 4 tiles (AVX2's shortest register tile),
  // one per thread at least.
  int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int64_t perBlock = blockTiles;
  if (threads > 1 && tiles < threads * blockTiles)
    perBlock = std::clamp<int64_t>(
        ((tiles + threads - 1) / threads + 3) / 4 * 4, 4, blockTiles);
  int64_t blocks = (tiles + perBlock - 1) / perBlock;
  const float *biasPtr = bias.empty() ? nullptr : bias.data();
  int64_t ldv = perBlock * inC, ldm = perBlock * kp;
  size_t floats = planes * (ldv + ldm) + perBlock * area * outC;
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    auto *v =
        static_cast<float *>(dnnlx::threadScratch(0, floats * sizeof(float)));
    float *m = v + planes * ldv, *out = m + planes * ldm;
    int64_t t0 = b * perBlock, count = std::min(perBlock, tiles - t0);
    const float *px[36];
    for (int64_t t = 0; t < count; ++t) {
      // Patch position (i, j) of tile (ty, tx) of sub-lattice (a, b) is
      // input (a + dilH * (tile * ty + i) - padT, ...).
      TileAt p = tileAt(t0 + t);
      const float *image = x + p.n * inH * inW * inC;
      for (int i = 0; i < alpha; ++i)
        for (int j = 0; j < alpha; ++j) {
          int64_t iy = p.a + dilH * (tile * p.ty + i) - padT,
                  ix = p.b + dilW * (tile * p.tx + j) - padL;
          bool inside = iy >= 0 && iy < inH && ix >= 0 && ix < inW;
          px[alpha * i + j] =
              inside ? image + (iy * inW + ix) * inC : zeros.data();
        }
      input(px, inC, v + t * inC, ldv);
    }
    for (int xi = 0; xi < planes; ++xi)
      gemm(v + xi * ldv, u->data + xi * inC * kp, m + xi * ldm, count, inC, kp,
           panel);
    for (int64_t t = 0; t < count; ++t)
      output(m + t * kp, ldm, biasPtr, out + t * area * outC, outC);
    // The post-ops on the block, then its outputs into place: tile x tile
    // pixels, fewer at an edge. A Sum reads its values before any of them
    // is written, so the residual may be y itself. Channels-last, a tile's
    // row is contiguous; channels-first, a pixel's channels are a plane
    // apart.
    auto eachPart = [&](auto f) {
      for (int64_t t = 0; t < count; ++t) {
        TileAt p = tileAt(t0 + t);
        for (int64_t r = 0; r < tile; ++r) {
          int64_t oy = p.a + dilH * (tile * p.ty + r);
          if (oy >= outH)
            break;
          float *o = out + (t * area + tile * r) * outC;
          int64_t ox = p.b + dilW * tile * p.tx;
          int64_t cols = std::min<int64_t>(tile, (outW - ox + dilW - 1) / dilW);
          if (outNhwc && dilW == 1) {
            f(o, ((p.n * outH + oy) * outW + ox) * outC, cols * outC, 1);
            continue;
          }
          for (int64_t c = 0; c < cols; ++c) {
            int64_t col = ox + dilW * c;
            if (outNhwc)
              f(o + c * outC, ((p.n * outH + oy) * outW + col) * outC, outC, 1);
            else
              f(o + c * outC, (p.n * outC * outH + oy) * outW + col, outC,
                outH * outW);
          }
        }
      }
    };
    for (PostOp op : postOps) {
      if (op != PostOp::Sum) {
        applyActivation(op, out, count * area * outC);
        continue;
      }
      eachPart([&](float *o, int64_t at, int64_t len, int64_t stride) {
        arithRow(BinaryKind::Add, o, 1, sum + at, stride, o, len);
      });
    }
    eachPart([&](float *o, int64_t at, int64_t len, int64_t stride) {
      if (stride == 1) {
        std::memcpy(y + at, o, len * sizeof(float));
        return;
      }
      for (int64_t k = 0; k < len; ++k)
        y[at + k * stride] = o[k];
    });
  }
}

std::string WinogradConv::name() const { return kernelName; }
