// Transposed convolutions under --precision (issue 12): bf16 rounds the
// weight at compile time (oneDNN's bf16 deconvolution, or its f32 one on
// the rounded operands); int8 has no kernel for them, so they stay fp32
// and the report says so (no calibration statistics are needed for them).
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=BF16
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/conv-calibration.json report}))' -mlir-print-debuginfo=false 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 keep-fp32=^up report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=KEEP

// The weight 1 x 2 x 2 x 2: 0.28 rounds to 0x3E8F, 0.71 up to 0x3F36,
// -0.7 to 0xBF33 (little-endian in the blob).
// BF16: osc-precision: bf16, 0 of 0 inner products and 1 of 1 transposed convolutions in bf16, their weights 0.0 -> 0.0 MiB; 1 f32-to-bf16 conversion
// BF16: %[[W:.*]] = osc.constant dense_resource<up_w.bf16> : tensor<1x2x2x2xbf16>
// BF16: osc.conv_transpose %arg0, %[[W]] bias(%{{.*}}) {{.*}} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xbf16>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// BF16: up_w.bf16: "0x{{[0-9A-F]*}}8F3E363F33BF
// INT8-NOT: warning
// INT8: osc-precision: int8 (calibration {{.*}}), 0 of 0 inner products and 0 of 1 transposed convolutions in int8 (transposed convolutions stay fp32: no int8 kernel)
// INT8: osc.conv_transpose %arg0, %{{.*}} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// KEEP: 0 of 1 transposed convolutions in bf16 (1 kept in fp32 by keep-fp32)
func.func @deconv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %w = osc.constant dense<[[[[0.28, 0.71], [-0.7, 0.5]], [[1.0, 0.28], [0.71, -0.7]]]]> : tensor<1x2x2x2xf32> loc("up_w")
  %b = osc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %y = osc.conv_transpose %x, %w bias(%b) {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32> loc(fused["up", "upr"])
  return %y : tensor<1x2x8x8xf32>
}
