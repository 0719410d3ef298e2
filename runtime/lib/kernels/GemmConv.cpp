//===- GemmConv.cpp - small-image convolutions on the packed GEMM ---------===//
//
// Part of opscope's runtime.
//
//===----------------------------------------------------------------------===//

#include "GemmConv.h"

#include "DnnlCommon.h"

#include "opscope/runtime/generic.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace opscope::rt;

bool GemmConv::applies(const ConvParams &p) {
  if (p.transposed || p.groups != 1 || p.input.size() != 4 ||
      p.weight.size() != 4 || p.output.size() != 4 || p.inputU8 ||
      p.outputU8 || p.bf16.input || p.bf16.output)
    return false;
  if (p.weight[1] != p.input[1] || p.weight[0] != p.output[1] ||
      p.input[0] != p.output[0] || p.weight[2] * p.weight[3] < 2)
    return false;
  bool sum = std::find(p.postOps.begin(), p.postOps.end(), PostOp::Sum) !=
             p.postOps.end();
  return !sum || p.outputNhwc;
}

bool GemmConv::pays(const ConvParams &p) {
  // Measured against oneDNN 2.6's jit:avx2 direct form (one thread, AMD
  // EPYC Zen 3, leaky_relu post-op; docs/runtime-kernels.md): 0.78-0.83x
  // for 256 -> 512 over 13x13, 0.81x for 512 -> 512 over 7x7, 0.99x for
  // 512 -> 1024 over 13x13; but 1.13-1.41x for 64 -> 64 over 19x19,
  // 128 -> 128 over 16x16, 1024 -> 256 over 16x16 and a 5x5 64 -> 128
  // over 8x8. So: at most 200 output pixels and 256 input channels.
  int64_t m = p.output[0] * p.output[2] * p.output[3];
  return innerProductOnOwnGemm(m) && m <= 200 && p.input[1] >= 256;
}

GemmConv::GemmConv(const ConvParams &p, const float *weights,
                   const float *bias)
    : batch(p.input[0]), inH(p.input[2]), inW(p.input[3]), inC(p.input[1]),
      outH(p.output[2]), outW(p.output[3]), outC(p.output[1]),
      kH(p.weight[2]), kW(p.weight[3]), strideH(p.strides[0]),
      strideW(p.strides[1]), dilH(p.dilations[0]), dilW(p.dilations[1]),
      padT(p.pads[0]), padL(p.pads[1]), inNhwc(p.inputNhwc),
      outNhwc(p.outputNhwc) {
  // O x I x KH x KW -> O x (KH x KW x I): a row's K order.
  const int64_t k = kH * kW * inC;
  std::vector<float> w(outC * k);
  transposeMatrices32(weights, outC, inC, kH * kW, w.data());
  gemm = std::make_unique<InnerProduct>(batch * outH * outW, k, outC,
                                        w.data(), bias, p.postOps);
}

GemmConv::~GemmConv() = default;

void GemmConv::run(const float *x, float *y, const float *sum) const {
  const int64_t m = batch * outH * outW, k = kH * kW * inC;
  if (!inNhwc) {
    // A channels-first input: its pixels' channels made contiguous first
    // (slot 4), so that each tap below is one copy.
    auto *t = static_cast<float *>(
        dnnlx::threadScratch(4, size_t(batch * inH * inW * inC) * 4));
    transposeMatrices32(x, batch, inC, inH * inW, t);
    x = t;
  }
  // The patches (slot 0: PackedGemm packs them again into slot 1), with
  // zeros where a tap falls in the padding.
  auto *cols =
      static_cast<float *>(dnnlx::threadScratch(0, size_t(m * k) * 4));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t oy = 0; oy < outH; ++oy)
      for (int64_t ox = 0; ox < outW; ++ox) {
        float *row = cols + ((n * outH + oy) * outW + ox) * k;
        for (int64_t ky = 0; ky < kH; ++ky) {
          const int64_t iy = oy * strideH - padT + ky * dilH;
          for (int64_t kx = 0; kx < kW; ++kx) {
            const int64_t ix = ox * strideW - padL + kx * dilW;
            float *dst = row + (ky * kW + kx) * inC;
            if (iy < 0 || iy >= inH || ix < 0 || ix >= inW)
              std::memset(dst, 0, inC * sizeof(float));
            else
              std::memcpy(dst, x + ((n * inH + iy) * inW + ix) * inC,
                          inC * sizeof(float));
          }
        }
      }
  if (outNhwc) {
    gemm->run(cols, y, sum);
    return;
  }
  // Channels-first: the rows (pixel x channel) into the planes (no sum
  // here: applies() keeps a sum to channels-last outputs).
  auto *rows =
      static_cast<float *>(dnnlx::threadScratch(2, size_t(m * outC) * 4));
  gemm->run(cols, rows, nullptr);
  transposeMatrices32(rows, batch, outH * outW, outC, y);
}

std::string GemmConv::name() const {
  return "im2col_gemm:" + gemm->implementation();
}
