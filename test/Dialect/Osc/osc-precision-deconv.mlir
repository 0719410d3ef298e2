// Transposed convolutions under --precision (issue 12): bf16 rounds the
// weight at compile time (oneDNN's bf16 deconvolution, or its f32 one on
// the rounded operands); int8 quantizes it per output channel, which for
// the C x OC/groups x kernel layout gathers [g * C/groups .. , j, ...] for
// channel g * OC/groups + j, and the input with the calibrated range.
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=BF16
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/deconv-calibration.json report}))' -mlir-print-debuginfo=false 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 keep-fp32=^up report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=KEEP

// The weight 1 x 2 x 2 x 2. bf16: 0.28 rounds to 0x3E8F, 0.71 up to
// 0x3F36, -0.7 to 0xBF33 (little-endian in the blob). int8: output channel
// 0 is (0.28, 0.71, -0.7, 0.5), max |w| 0.71, scale 0.71/127, integers 50,
// 127, -125, 89 (0x32 7F 83 59); channel 1 is (1.0, 0.28, 0.71, -0.7):
// scale 1/127, integers 127, 36, 90, -89 (0x7F 24 5A A7). The input saw
// [-1, 3]: scale 4/255, zero point 64.
// BF16: osc-precision: bf16, 0 of 0 inner products and 1 of 1 transposed convolutions in bf16, their weights 0.0 -> 0.0 MiB; 1 f32-to-bf16 conversion
// BF16: %[[W:.*]] = osc.constant dense_resource<up_w.bf16> : tensor<1x2x2x2xbf16>
// BF16: osc.conv_transpose %arg0, %[[W]] bias(%{{.*}}) {{.*}} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xbf16>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// BF16: up_w.bf16: "0x{{[0-9A-F]*}}8F3E363F33BF
// INT8-NOT: warning
// INT8: osc-precision: int8 (calibration {{.*}}), 0 of 0 inner products and 1 of 1 transposed convolutions in int8
// INT8: %[[W:.*]] = osc.constant dense_resource<up_w.s8> : tensor<1x2x2x2xi8>
// INT8: osc.conv_transpose %arg0, %[[W]] bias(%{{.*}}) {dilations = array<i64: 1, 1>, input_scale = 0.0156862754 : f32, input_zero_point = 64 : i32, {{.*}}weight_scales = array<f32: 0.00559055107, 0.00787401571>} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xi8>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// INT8: up_w.s8: "0x40000000327F83597F245AA7"
// KEEP: 0 of 1 transposed convolutions in bf16 (1 kept in fp32 by keep-fp32)
func.func @deconv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %w = osc.constant dense<[[[[0.28, 0.71], [-0.7, 0.5]], [[1.0, 0.28], [0.71, -0.7]]]]> : tensor<1x2x2x2xf32> loc("up_w")
  %b = osc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %y = osc.conv_transpose %x, %w bias(%b) {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : (tensor<1x1x3x3xf32>, tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32> loc(fused["up", "upr"])
  return %y : tensor<1x2x8x8xf32>
}

// -----

// Two groups: 4 input channels, 1 output channel per group. Channel 0
// gathers input channels 0 and 1 (max |w| 2: scale 2/127), channel 1 input
// channels 2 and 3 (max |w| 0.5: scale 0.5/127). Integers: channel 0
// (1, 2 | -2, 0.5) -> 64, 127, -127, 32; channel 1 (0.5, 0.25 | -0.5, 0)
// -> 127, 64, -127, 0.
// INT8: osc-precision: int8 (calibration {{.*}}), 0 of 0 inner products and 1 of 1 transposed convolutions in int8
// INT8: osc.conv_transpose {{.*}}input_scale = 0.0235294122 : f32, input_zero_point = 0 : i32, {{.*}}weight_scales = array<f32: 0.0157480314, 0.00393700786>} : (tensor<1x4x2x2xf32>, tensor<4x1x1x2xi8>) -> tensor<1x2x2x4xf32>
// INT8: gup_w.s8: "0x40000000407F81207F408100"
func.func @grouped(%x: tensor<1x4x2x2xf32>) -> tensor<1x2x2x4xf32> {
  %w = osc.constant dense<[[[[1.0, 2.0]]], [[[-2.0, 0.5]]], [[[0.5, 0.25]]], [[[-0.5, 0.0]]]]> : tensor<4x1x1x2xf32> loc("gup_w")
  %y = osc.conv_transpose %x, %w {dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : (tensor<1x4x2x2xf32>, tensor<4x1x1x2xf32>) -> tensor<1x2x2x4xf32> loc("gup")
  return %y : tensor<1x2x2x4xf32>
}
