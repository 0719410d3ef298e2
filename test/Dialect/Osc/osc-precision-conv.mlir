// Convolutions in bf16 and int8 (issue 12), and a QDQ convolution.
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/conv-calibration.json report},osc-int8-chains{report}))' -mlir-print-debuginfo=false | FileCheck %s
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=BF16
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/conv-calibration.json keep-fp32=^c2 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=KEEP
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=QDQ
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{weight-bits=7 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=QDQ7

// "c1" (source nodes c1, r1: the conv with its fused ReLU) saw [-1, 3]:
// u8 scale 4/255, zero point round(1 / (4/255)) = round(63.75) = 64. Its
// weight's output channel 0 (0.6, -0.25, 1.0, 0) has max |w| 1: scale
// 1/127, integers 76, -32, 127, 0 (0x4C E0 7F 00); channel 1 (-2, 0.9, 0,
// 0.5): scale 2/127, integers -127, 57, 0, 32 (0x81 39 00 20). "c2" saw
// [0, 6]: scale 6/255, zero point 0.
//
// osc-int8-chains: c1's result is read only by c2, another int8
// convolution: it is written in u8 with c2's input quantization
// (output_scale/output_zero_point) and c2 reads it as it is. So one
// quantization (c1's input) is left, and one input is handed over in u8.
// In @fanout, c3's result has two readers and c5 takes a residual sum:
// nothing is carried.
// CHECK: osc-precision: int8 (calibration {{.*}}conv-calibration.json, minmax), 0 of 0 inner products and 2 of 2 convolutions in int8, their weights 0.0 -> 0.0 MiB; 2 f32-to-u8 quantizations (one inside each int8 kernel; osc-int8-chains removes those between int8 ops)
// CHECK-NEXT: osc-int8-chains: 1 of 2 int8 op inputs handed over in u8 by their producer (1 between convolutions, 0 between inner products); 1 f32-to-u8 quantization left at chain boundaries
// CHECK-NEXT: osc-precision: int8 ({{.*}}), 0 of 0 inner products and 3 of 3 convolutions in int8, their weights 0.0 -> 0.0 MiB; 3 f32-to-u8 quantizations
// CHECK-NEXT: osc-int8-chains: 0 of 3 int8 op inputs handed over in u8 by their producer (0 between convolutions, 0 between inner products); 3 f32-to-u8 quantizations left at chain boundaries
// CHECK-LABEL: func.func @convs
// CHECK: %[[W1:.*]] = osc.constant dense_resource<c1_w.s8> : tensor<2x1x2x2xi8>
// CHECK: %[[H:.*]] = osc.conv %arg0, %[[W1]] bias(%{{.*}}) post_ops [relu] {dilations = array<i64: 1, 1>, input_scale = 0.0156862754 : f32, input_zero_point = 64 : i32, output_scale = 0.0235294122 : f32, output_zero_point = 0 : i32, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, weight_scales = array<f32: 0.00787401571, 0.0157480314>} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xi8>, tensor<2xf32>) -> tensor<1x2x3x3xui8>
// CHECK: osc.conv %[[H]], {{.*}}input_scale = 0.0235294122 : f32, input_zero_point = 0 : i32{{.*}} : (tensor<1x2x3x3xui8>, tensor<2x2x1x1xi8>) -> tensor<1x2x3x3xf32>
// CHECK-LABEL: func.func @fanout
// CHECK-NOT: ui8
// CHECK-NOT: output_scale
// CHECK: return
// CHECK: c1_w.s8: "0x400000004CE07F0081390020"

// bf16: the weights rounded to nearest even, the activations f32.
// BF16: 0 of 0 inner products and 2 of 2 convolutions in bf16
// BF16: osc.conv %arg0, %{{.*}} bias(%{{.*}}) post_ops [relu] {{.*}} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xbf16>, tensor<2xf32>) -> tensor<1x2x3x3xf32>

// KEEP: 1 of 2 convolutions in int8 (1 kept in fp32 by keep-fp32)
// KEEP: osc.conv {{.*}}tensor<2x2x1x1xf32>

// The model's own QuantizeLinear/DequantizeLinear pair in front of "q" (i8,
// zero point -8: the u8 zero point 120) runs it in int8 on %x with the
// model's scale, in any precision; the pair is gone.
// QDQ: osc-precision: 1 inner products or convolutions of the model's QuantizeLinear/DequantizeLinear pairs run in int8 with the model's activation scales
// For a target without VNNI the model's 8-bit weights stay 8-bit
// (the same integers, weight scales unchanged), and the report says the
// runtime computes that convolution in f32.
// QDQ7: osc-precision: 1 inner products or convolutions of the model's QuantizeLinear/DequantizeLinear pairs run in int8 with the model's activation scales
// QDQ7-NEXT: osc-precision: int8 without VNNI on the target (8-bit weights would saturate): 1 convolutions with the model's 8-bit weights computed in f32 (:f32){{$}}
// QDQ7: osc.conv %arg0, {{.*}}weight_scales = array<f32: 0.00787401571, 0.0157480314>{{.*}}tensor<2x1x2x2xi8>
// QDQ: func.func @qdq
// QDQ-NOT: quantize_linear
// QDQ: osc.conv %arg0, {{.*}}input_scale = 5.000000e-02 : f32, input_zero_point = 120 : i32{{.*}}weight_scales = array<f32: 0.00787401571, 0.0157480314>{{.*}}tensor<2x1x2x2xi8>

func.func @convs(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w1 = osc.constant dense<[[[[0.6, -0.25], [1.0, 0.0]]], [[[-2.0, 0.9], [0.0, 0.5]]]]> : tensor<2x1x2x2xf32> loc("c1_w")
  %b1 = osc.constant dense<0.5> : tensor<2xf32>
  %w2 = osc.constant dense<0.25> : tensor<2x2x1x1xf32>
  %h = osc.conv %x, %w1 bias(%b1) post_ops [relu] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc(fused["c1", "r1"])
  %y = osc.conv %h, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> loc("c2")
  return %y : tensor<1x2x3x3xf32>
}

func.func @fanout(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w1 = osc.constant dense<0.5> : tensor<2x1x2x2xf32>
  %w2 = osc.constant dense<0.25> : tensor<2x2x1x1xf32>
  %h = osc.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x3x3xf32> loc("c3")
  %a = osc.conv %h, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> loc("c4")
  %y = osc.conv %h, %w2 sum(%a) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> loc("c5")
  return %y : tensor<1x2x3x3xf32>
}

func.func @qdq(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %s = osc.constant dense<0.05> : tensor<f32>
  %z = osc.constant dense<-8> : tensor<i8>
  %q = osc.quantize_linear %x, %s, %z : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xi8>
  %d = osc.dequantize_linear %q, %s, %z : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  %w = osc.constant dense<[[[[0.6, -0.25], [1.0, 0.0]]], [[[-2.0, 0.9], [0.0, 0.5]]]]> : tensor<2x1x2x2xf32>
  %y = osc.conv %d, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x3x3xf32> loc("q")
  return %y : tensor<1x2x3x3xf32>
}

// A QDQ convolution whose bias is a model input stays f32 (the int8
// kernels pack their bias once), its QuantizeLinear/DequantizeLinear pair
// kept; bf16 and int8 leave it fp32 for the same reason.
// QDQ-LABEL: func.func @qdq_input_bias
// QDQ: osc.dequantize_linear
// QDQ: osc.conv %{{.*}} bias(%arg1) {{.*}}: (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// BF16-LABEL: func.func @qdq_input_bias
// BF16: osc.conv %{{.*}} bias(%arg1) {{.*}}: (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
func.func @qdq_input_bias(%x: tensor<1x1x4x4xf32>, %bias: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %s = osc.constant dense<0.05> : tensor<f32>
  %z = osc.constant dense<-8> : tensor<i8>
  %q = osc.quantize_linear %x, %s, %z : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xi8>
  %d = osc.dequantize_linear %q, %s, %z : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  %w = osc.constant dense<[[[[0.6, -0.25], [1.0, 0.0]]], [[[-2.0, 0.9], [0.0, 0.5]]]]> : tensor<2x1x2x2xf32>
  %y = osc.conv %d, %w bias(%bias) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc("qb")
  return %y : tensor<1x2x3x3xf32>
}
