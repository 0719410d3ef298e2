// osc-int8-chains (issue 12): u8 hand-overs between int8 ops.
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-int8-chains{report}))' -mlir-print-debuginfo=false | FileCheck %s

// A feed-forward block in int8: up (GELU) is read only by down, as its
// input, so up writes u8 with down's input quantization and down reads it
// as it is; down's residual sum stays f32. One of two quantizations left.
// CHECK: osc-int8-chains: 1 of 2 int8 op inputs handed over in u8 by their producer (0 between convolutions, 1 between inner products); 1 f32-to-u8 quantization left at chain boundaries
// CHECK-LABEL: func.func @ffn
// CHECK: %[[H:.*]] = osc.inner_product %arg0, %{{.*}} bias(%{{.*}}) post_ops [gelu_erf] {input_scale = 3.125000e-02 : f32, input_zero_point = 64 : i32, output_scale = 5.000000e-02 : f32, output_zero_point = 3 : i32, weight_scales = {{.*}}} : (tensor<1x4x8xf32>, tensor<16x8xi8>, tensor<16xf32>) -> tensor<1x4x16xui8>
// CHECK: osc.inner_product %[[H]], %{{.*}} bias(%{{.*}}) sum(%arg0) post_ops [sum] {input_scale = 5.000000e-02 : f32, input_zero_point = 3 : i32, weight_scales = {{.*}}} : (tensor<1x4x16xui8>, tensor<8x16xi8>, tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
func.func @ffn(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w1 = osc.constant dense<1> : tensor<16x8xi8>
  %b1 = osc.constant dense<0.5> : tensor<16xf32>
  %w2 = osc.constant dense<2> : tensor<8x16xi8>
  %b2 = osc.constant dense<0.25> : tensor<8xf32>
  %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] {input_scale = 0.03125 : f32, input_zero_point = 64 : i32, weight_scales = array<f32: 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1>} : (tensor<1x4x8xf32>, tensor<16x8xi8>, tensor<16xf32>) -> tensor<1x4x16xf32>
  %y = osc.inner_product %h, %w2 bias(%b2) sum(%x) post_ops [sum] {input_scale = 0.05 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2>} : (tensor<1x4x16xf32>, tensor<8x16xi8>, tensor<8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Not carried: a producer with a residual sum (its sum operand is f32), a
// result with a second reader, a consumer that is fp32 (kept by
// keep-fp32), a result read as a consumer's residual rather than its
// input.
// CHECK: osc-int8-chains: 0 of 5 int8 op inputs handed over in u8 by their producer (0 between convolutions, 0 between inner products); 5 f32-to-u8 quantizations left at chain boundaries
// CHECK-LABEL: func.func @not_chains
// CHECK-NOT: ui8
// CHECK-NOT: output_scale
// CHECK: return
func.func @not_chains(%x: tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %w = osc.constant dense<1> : tensor<8x8xi8>
  %wf = osc.constant dense<0.5> : tensor<8x8xf32>
  %a = osc.inner_product %x, %w sum(%x) post_ops [sum] {input_scale = 0.03125 : f32, input_zero_point = 64 : i32, weight_scales = array<f32: 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1>} : (tensor<1x4x8xf32>, tensor<8x8xi8>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %b = osc.inner_product %a, %w {input_scale = 0.05 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2>} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  %c = osc.inner_product %b, %w {input_scale = 0.05 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2>} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  %d = osc.inner_product %b, %wf : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %e = osc.inner_product %d, %w {input_scale = 0.05 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2>} : (tensor<1x4x8xf32>, tensor<8x8xi8>) -> tensor<1x4x8xf32>
  %g = osc.inner_product %e, %wf : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %h = osc.inner_product %x, %w sum(%c) post_ops [sum] {input_scale = 0.05 : f32, input_zero_point = 3 : i32, weight_scales = array<f32: 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2>} : (tensor<1x4x8xf32>, tensor<8x8xi8>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %g, %h, %x : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
}
