//===- GemmConv.h - small-image convolutions on the packed GEMM -*- C++ -*-===//
//
// Part of opscope's runtime (internal). A 2-D, ungrouped f32 convolution of
// a channels-last input as one GEMM: the input's patches gathered into rows
// (im2col: a row per output pixel, K = kernel area x input channels in
// (ky, kx, c) order), times the weights reordered to match (N x K), on the
// InnerProduct that runs opscope's packed GEMM, bias and post-ops in its
// epilogue. Conv takes it where few output pixels and many channels make
// oneDNN 2.6's direct AVX2 kernel slow: YOLOv3-tiny's 256 -> 512 3x3 over
// 13x13 ran 8.2 ms on `jit:avx2`, 6.4 as this (docs/runtime-kernels.md).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_GEMMCONV_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_GEMMCONV_H

#include "opscope/runtime/dense.h"

#include <memory>
#include <string>

namespace opscope::rt {

class GemmConv {
public:
  /// Whether this form computes `p`: f32, 2-D, one group, not transposed,
  /// either input layout, a kernel larger than 1x1 (1x1 is oneDNN's
  /// `jit_1x1`, a GEMM already), and with a sum post-op a channels-last
  /// output (the residual is read in the GEMM's row order).
  static bool applies(const ConvParams &p);
  /// Whether ConvAlgorithm::Auto takes it where it applies: where the f32
  /// inner product of its rows runs on opscope's packed GEMM
  /// (innerProductOnOwnGemm: the AVX2 tier), for at most 200 output pixels
  /// and at least 256 input channels (the shapes where it measured
  /// faster than oneDNN's direct form).
  static bool pays(const ConvParams &p);
  /// `weights` O x I x KH x KW and `bias` (or null) are copied.
  GemmConv(const ConvParams &p, const float *weights, const float *bias);
  ~GemmConv();
  /// y = conv(x) + bias, then the post-ops in order; a Sum reads `sum`
  /// (in y's layout; it may be y itself).
  void run(const float *x, float *y, const float *sum) const;
  /// "im2col_gemm:" and the GEMM's implementation.
  std::string name() const;

private:
  int64_t batch, inH, inW, inC, outH, outW, outC, kH, kW;
  int64_t strideH, strideW, dilH, dilW, padT, padL;
  bool inNhwc, outNhwc;
  std::unique_ptr<InnerProduct> gemm;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_GEMMCONV_H
