// RUN: opscope-opt %s | opscope-opt | FileCheck %s
// RUN: opscope-opt %s --mlir-print-op-generic | opscope-opt | FileCheck %s

// Round-trip of conv_integer and matmul_integer in their integer and
// dequantizing forms (fuse-dynamic-quant).

// CHECK-LABEL: func.func @integer_products
func.func @integer_products(%f: tensor<1x2x5x5xf32>, %q: tensor<1x2x5x5xui8>,
                            %xs: tensor<f32>, %xz: tensor<ui8>,
                            %a: tensor<3x4xf32>) {
  %w = osc.constant dense<3> : tensor<4x2x3x3xui8>
  %wz = osc.constant dense<129> : tensor<ui8>
  %ws = osc.constant dense<0.25> : tensor<f32>
  %b = osc.constant dense<1.0> : tensor<1x4x1x1xf32>
  %mw = osc.constant dense<5> : tensor<4x2xi8>
  %ms = osc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  // CHECK: osc.conv_integer %{{.*}}, %{{.*}} input_zero_point(%{{.*}}) weight_zero_point(%{{.*}}) {{.*}} -> tensor<1x4x5x5xi32>
  %0 = osc.conv_integer %q, %w input_zero_point(%xz) weight_zero_point(%wz) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x4x5x5xi32>
  // CHECK: osc.conv_integer %{{.*}}, %{{.*}} weight_zero_point(%{{.*}}) weight_scale(%{{.*}}) bias(%{{.*}}) post_ops [relu] {{.*}} -> tensor<1x4x5x5xf32>
  %1 = osc.conv_integer %f, %w weight_zero_point(%wz) weight_scale(%ws) bias(%b) post_ops [relu] {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<f32>, tensor<1x4x1x1xf32>) -> tensor<1x4x5x5xf32>
  // CHECK: osc.conv_integer %{{.*}}, %{{.*}} input_zero_point(%{{.*}}) weight_zero_point(%{{.*}}) input_scale(%{{.*}}) weight_scale(%{{.*}}) {{.*}} -> tensor<1x4x5x5xf32>
  %2 = osc.conv_integer %q, %w input_zero_point(%xz) weight_zero_point(%wz) input_scale(%xs) weight_scale(%ws) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x4x5x5xf32>
  // CHECK: osc.matmul_integer %{{.*}}, %{{.*}} rhs_scale(%{{.*}}) : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<2xf32>) -> tensor<3x2xf32>
  %3 = osc.matmul_integer %a, %mw rhs_scale(%ms) : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<2xf32>) -> tensor<3x2xf32>
  return
}
