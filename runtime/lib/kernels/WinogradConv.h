//===- WinogradConv.h - 3x3 convolutions as Winograd ------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). A 2-D, 3x3, stride-1, ungrouped f32
// convolution of a channels-last input, computed as Lavin and Gray's
// F(4x4, 3x3) or F(2x2, 3x3): each tile of 4x4 (2x2) outputs from a 6x6
// (4x4) input patch, transformed (B^T d B), multiplied channel by channel
// with the transformed weights (G g G^T, once at construction) in 36 (16)
// GEMMs, and transformed back (A^T m A): 36 multiplications per 16 outputs
// and channel pair (16 per 4) instead of 144 (36). The steps are the
// kernel table's (KernelTable.h); Conv takes this form where the table
// prefers it (ConvAlgorithm). A dilated one (U-Net and IS-Net's dilation
// 2, 4 and 8) is d_h x d_w undilated ones: output (a + d_h * y, b + d_w *
// x) reads only input rows a + d_h * k - pad and columns b + d_w * k - pad,
// so each sub-lattice (a, b) is tiled as an image of its own.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_WINOGRADCONV_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_WINOGRADCONV_H

#include "AlignedBuffer.h"
#include "KernelTable.h"

#include "opscope/runtime/dense.h"

#include <memory>
#include <string>
#include <vector>

namespace opscope::rt {

class WinogradConv {
public:
  /// Whether `p`'s geometry is one this form computes: 2-D, 3x3, stride
  /// 1, any dilation, one group, not transposed, f32, a channels-last
  /// input (the output either), and an output of the size those give.
  static bool applies(const ConvParams &p);
  /// The tile Auto takes: 4 where the output is at least 4x4 and the
  /// transformed weights take at most 6 MiB, else 2 within the same
  /// budget (only 2 under OPSCOPE_WINOGRAD=f2x3); past it, 4 or 2 where
  /// the direct form's FLOPs are at least 24 per byte of transformed
  /// weights streamed (once per block of tiles); else 0: oneDNN's direct
  /// form.
  static int tileFor(const ConvParams &p);
  /// Tiles per block for `planes` transformed positions, inC input and kp
  /// (padded) output channels.
  static int64_t blockTilesFor(int planes, int64_t inC, int64_t kp);
  /// `weights` O x I x 3 x 3 and `bias` (or null) are copied; `tile` is
  /// 2 or 4.
  WinogradConv(const ConvParams &p, const float *weights, const float *bias,
               int tile);
  /// y = conv(x) + bias, then the post-ops in order; a Sum reads `sum`
  /// (in y's layout; it may be y itself).
  void run(const float *x, float *y, const float *sum) const;
  /// "winograd_f4x3:" or "winograd_f2x3:", and the tier of the table's
  /// Winograd kernels.
  std::string name() const;

private:
  int64_t batch, inH, inW, inC, outH, outW, outC;
  int64_t padT, padL;
  /// Dilations: dilH x dilW sub-lattices (rows a, a + dilH, ...; columns
  /// likewise), each an undilated 3x3 convolution of the input's same
  /// sub-lattice, tiled alike (tilesH x tilesW tiles each, the last ones
  /// partly outside).
  int64_t dilH, dilW;
  /// Tile `at` of a run (in run order: image n, sub-lattice (a, b), then
  /// tile row ty and column tx of it); its outputs are (a + dilH * (tile *
  /// ty + r), b + dilW * (tile * tx + c)).
  struct TileAt {
    int64_t n, a, b, ty, tx;
  };
  TileAt tileAt(int64_t at) const;
  bool outNhwc;
  /// Outputs per tile side (2, 4), input patch side (4, 6), and the
  /// transformed values per tile (16, 36).
  int tile, alpha, planes;
  int64_t tilesH, tilesW;
  /// Output channels rounded up to the kernels' vector width, and the
  /// GEMM's panel (1 to 3 vectors).
  int64_t kp, panel;
  /// Tiles per block: a block's transformed inputs and products stay in
  /// L2 (about 192 KiB together).
  int64_t blockTiles;
  std::vector<PostOp> postOps;
  /// The table's kernels at construction (u is packed for its GEMM).
  decltype(KernelTable::winogradInput) input;
  decltype(KernelTable::winogradGemm) gemm;
  decltype(KernelTable::winogradOutput) output;
  decltype(KernelTable::arithRow) arithRow;
  std::string kernelName;
  /// `planes` planes of inC x kp, panel-packed (shared by the sessions
  /// of a model, packed_weights.h).
  std::shared_ptr<const AlignedBuffer<float>> u;
  std::vector<float> bias;
  std::vector<float> zeros; ///< inC zeros: the pixels outside the image
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_WINOGRADCONV_H
