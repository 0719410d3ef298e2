//===- quantize.h - ONNX quantization kernels -------------------*- C++ -*-===//
//
// Part of opscope's runtime. The kernels of quantize_linear,
// dequantize_linear, dynamic_quantize_linear and matmul_integer, with
// ONNX's semantics (round half to even, saturation to the 8-bit range).
// Per-axis parameters: the data is `outer x channels x inner` and channel c
// uses scale[c] and zero[c] (channels = 1: per tensor).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_QUANTIZE_H
#define OPSCOPE_RUNTIME_QUANTIZE_H

#include "opscope/runtime/generic.h"

#include <cstdint>

namespace opscope::rt {

/// y (u8 or i8, `type`) = saturate(round(x / scale) + zero); `zero` may be
/// null (0).
void quantizeLinear(const float *x, const float *scale, const void *zero,
                    DType type, int64_t outer, int64_t channels, int64_t inner,
                    void *y);

/// y = (x - zero) * scale for x of `type` u8, i8 or i32; `zero` may be null.
void dequantizeLinear(const void *x, DType type, const float *scale,
                      const void *zero, int64_t outer, int64_t channels,
                      int64_t inner, float *y);

/// DynamicQuantizeLinear's scale and zero point alone.
void dynamicQuantizeParams(const float *x, int64_t n, float *scale,
                           uint8_t *zero);

/// ONNX DynamicQuantizeLinear over n elements.
void dynamicQuantizeLinear(const float *x, int64_t n, uint8_t *y,
                           float *scale, uint8_t *zero);

/// i32 y = (a - aZero) x (b - bZero), a: [..., M, K], b: [..., K, N], batch
/// dimensions broadcast; aZero has 1 or M values, bZero 1 or N (null: 0).
void matmulInteger(const void *a, DType aType, const Shape &aShape,
                   const void *b, DType bType, const Shape &bShape,
                   const void *aZero, int64_t aZeroCount, const void *bZero,
                   int64_t bZeroCount, int32_t *y, const Shape &yShape);

/// DynamicQuantizeLinear of n values into the calling thread's scratch
/// buffer, valid until its next call on this thread: the quantized input
/// of conv_integer / matmul_integer's dequantizing form.
const uint8_t *dynamicQuantizeToScratch(const float *x, int64_t n,
                                        float *scale, uint8_t *zero);

/// The dequantizing epilogue of conv_integer / matmul_integer, in place:
/// `y` holds the i32 sums of an `outer x channels x inner` result and
/// receives y = float(sums) * scale[c] (+ bias[c]), then relu, in f32 (the
/// unfused Cast, Mul, Add and Relu bit for bit). scale and bias have 1 or
/// `channels` values; bias may be null.
void dequantizeSums(void *y, int64_t outer, int64_t channels, int64_t inner,
                    const float *scale, int64_t scaleCount, const float *bias,
                    int64_t biasCount, bool relu);

/// Element i of u8, i8 or i32 data as i32 (throws on any other type).
int32_t quantizedValue(const void *p, DType t, int64_t i);

/// The window of conv_integer: per spatial dimension (1 to 3) the stride,
/// dilation and begin/end pads (pads: begin pads, then end pads).
struct ConvIntegerWindow {
  std::vector<int64_t> strides, dilations, pads;
  int64_t groups = 1;
};

/// w - wZero as i32: w [OC, ...] u8/i8, wZero one value or one per OC
/// (null: 0). What convInteger takes; constant weights are centered once.
std::vector<int32_t> centerWeights(const void *w, DType wType,
                                   const Shape &wShape, const void *wZero,
                                   int64_t wZeroCount);

/// i32 y = conv(x - xZero, wCentered): x [N, C, spatial...] u8/i8, the
/// weight [OC, C/groups, kernel...] already centered (centerWeights), xZero
/// per tensor (null: 0). Padding contributes nothing (it reads the zero
/// point).
void convInteger(const void *x, DType xType, const Shape &xShape,
                 const int32_t *wCentered, const Shape &wShape,
                 const void *xZero, const ConvIntegerWindow &window,
                 int32_t *y, const Shape &yShape);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_QUANTIZE_H
