// RUN: opscope-opt %s -split-input-file -verify-diagnostics

func.func @f32_input_with_zero_point(%x: tensor<3x4xf32>, %z: tensor<ui8>) -> tensor<3x2xf32> {
  %w = osc.constant dense<5> : tensor<4x2xi8>
  %s = osc.constant dense<0.5> : tensor<f32>
  // expected-error @+1 {{an f32 lhs is quantized by the op: no lhs_zero_point or lhs_scale}}
  %0 = osc.matmul_integer %x, %w lhs_zero_point(%z) rhs_scale(%s) : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<ui8>, tensor<f32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @quantized_input_without_scale(%x: tensor<3x4xui8>) -> tensor<3x2xf32> {
  %w = osc.constant dense<5> : tensor<4x2xi8>
  %s = osc.constant dense<0.5> : tensor<f32>
  // expected-error @+1 {{a quantized lhs needs its lhs_scale}}
  %0 = osc.matmul_integer %x, %w rhs_scale(%s) : (tensor<3x4xui8>, tensor<4x2xi8>, tensor<f32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @scale_per_wrong_dimension(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = osc.constant dense<5> : tensor<4x2xi8>
  %s = osc.constant dense<0.5> : tensor<3xf32>
  // expected-error @+1 {{rhs_scale must be f32 with one element or 2, got 'tensor<3xf32>'}}
  %0 = osc.matmul_integer %x, %w rhs_scale(%s) : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @sigmoid_post_op(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = osc.constant dense<5> : tensor<4x2xi8>
  %s = osc.constant dense<0.5> : tensor<f32>
  // expected-error @+1 {{post_ops may only be relu here}}
  %0 = osc.matmul_integer %x, %w rhs_scale(%s) post_ops [sigmoid] : (tensor<3x4xf32>, tensor<4x2xi8>, tensor<f32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @bias_without_scale(%x: tensor<3x4xui8>) -> tensor<3x2xi32> {
  %w = osc.constant dense<5> : tensor<4x2xi8>
  %b = osc.constant dense<0.5> : tensor<2xf32>
  // expected-error @+1 {{lhs_scale, bias and post_ops need a rhs_scale}}
  %0 = osc.matmul_integer %x, %w bias(%b) : (tensor<3x4xui8>, tensor<4x2xi8>, tensor<2xf32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @f32_result_from_i32_form(%x: tensor<1x2x5x5xui8>) -> tensor<1x4x5x5xf32> {
  %w = osc.constant dense<3> : tensor<4x2x3x3xui8>
  // expected-error @+1 {{result must be i32, got 'tensor<1x4x5x5xf32>'}}
  %0 = osc.conv_integer %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}
