// RUN: opscope-opt %s -split-input-file -osc-fuse | FileCheck %s
// RUN: opscope-opt %s -split-input-file -osc-fuse -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// RUN: opscope-opt %s -split-input-file -osc-fuse="fuse-dynamic-quant=false" | FileCheck %s --check-prefix=OFF

// ONNX Runtime's quantize_dynamic convolution (DynamicQuantizeLinear ->
// ConvInteger -> Cast -> Mul(Mul(x_scale, w_scale)) -> Add bias -> Relu)
// whose quantization only this layer reads: one conv_integer on the f32
// input, with the weight scale, the bias and relu.
// CHECK-LABEL: func.func @conv_layer
// CHECK-DAG: %[[W:.*]] = osc.constant dense<3> : tensor<4x2x3x3xui8>
// CHECK-DAG: %[[WZ:.*]] = osc.constant dense<129> : tensor<ui8>
// CHECK-DAG: %[[WS:.*]] = osc.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[B:.*]] = osc.constant dense<{{.*}}> : tensor<1x4x1x1xf32>
// CHECK: %[[Y:.*]] = osc.conv_integer %arg0, %[[W]] weight_zero_point(%[[WZ]]) weight_scale(%[[WS]]) bias(%[[B]]) post_ops [relu]
// CHECK-SAME: (tensor<1x2x5x5xf32>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<f32>, tensor<1x4x1x1xf32>) -> tensor<1x4x5x5xf32>
// CHECK-NEXT: return %[[Y]]
// The fusion report's sources: every node of the layer, the ConvInteger
// first (the profile names the op after it).
// LOC-LABEL: func.func @conv_layer
// LOC: osc.conv_integer {{.*}} loc(fused["conv_quant", "x_QuantizeLinear", "conv_cast", "conv_scales_mul", "conv_output_scale_mul", "conv_bias_add", "relu"])
// OFF-LABEL: func.func @conv_layer
// OFF-COUNT-3: osc.dynamic_quantize_linear
// OFF: osc.conv_integer
// OFF: osc.cast
func.func @conv_layer(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = osc.constant dense<3> : tensor<4x2x3x3xui8>
  %wz = osc.constant dense<129> : tensor<ui8>
  %ws = osc.constant dense<0.25> : tensor<f32>
  %b = osc.constant dense<[[[[1.0]], [[-2.0]], [[3.0]], [[-4.0]]]]> : tensor<1x4x1x1xf32>
  %q = osc.dynamic_quantize_linear %x {part = 0 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xui8> loc("x_QuantizeLinear")
  %s = osc.dynamic_quantize_linear %x {part = 1 : i64} : (tensor<1x2x5x5xf32>) -> tensor<f32> loc("x_QuantizeLinear")
  %z = osc.dynamic_quantize_linear %x {part = 2 : i64} : (tensor<1x2x5x5xf32>) -> tensor<ui8> loc("x_QuantizeLinear")
  %i = osc.conv_integer %q, %w input_zero_point(%z) weight_zero_point(%wz) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x4x5x5xi32> loc("conv_quant")
  %c = osc.cast %i : tensor<1x4x5x5xi32> -> tensor<1x4x5x5xf32> loc("conv_cast")
  %sm = osc.binary mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32> loc("conv_scales_mul")
  %m = osc.binary mul %c, %sm : (tensor<1x4x5x5xf32>, tensor<f32>) -> tensor<1x4x5x5xf32> loc("conv_output_scale_mul")
  %a = osc.binary add %m, %b : (tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x5x5xf32> loc("conv_bias_add")
  %r = osc.unary relu %a : tensor<1x4x5x5xf32> loc("relu")
  return %r : tensor<1x4x5x5xf32>
}

// -----

// One DynamicQuantizeLinear read by two MatMulIntegers (attention's Q, K
// and V projections share one): it stays, computed once; each product
// takes its u8 data, zero point and scale and folds its Cast, Mul and
// bias (torch order: bias first; per-column weight scale).
// CHECK-LABEL: func.func @shared_quantization
// CHECK: %[[Q:.*]] = osc.dynamic_quantize_linear %arg0 {part = 0 : i64}
// CHECK: %[[S:.*]] = osc.dynamic_quantize_linear %arg0 {part = 1 : i64}
// CHECK: %[[Z:.*]] = osc.dynamic_quantize_linear %arg0 {part = 2 : i64}
// CHECK-NOT: osc.dynamic_quantize_linear
// CHECK: %[[A:.*]] = osc.matmul_integer %[[Q]], %{{.*}} lhs_zero_point(%[[Z]]) rhs_zero_point(%{{.*}}) lhs_scale(%[[S]]) rhs_scale(%{{.*}}) bias(%{{.*}}) : {{.*}} -> tensor<2x3xf32>
// CHECK: %[[B:.*]] = osc.matmul_integer %[[Q]], %{{.*}} lhs_zero_point(%[[Z]]) rhs_zero_point(%{{.*}}) lhs_scale(%[[S]]) rhs_scale(%{{.*}}) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: osc.cast
// CHECK-NOT: osc.binary
// CHECK: return %[[A]], %[[B]]
func.func @shared_quantization(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w1 = osc.constant dense<5> : tensor<4x3xi8>
  %w2 = osc.constant dense<-7> : tensor<4x3xi8>
  %wz = osc.constant dense<0> : tensor<i8>
  %ws1 = osc.constant dense<0.5> : tensor<f32>
  %ws2 = osc.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %b1 = osc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %q = osc.dynamic_quantize_linear %x {part = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xui8>
  %s = osc.dynamic_quantize_linear %x {part = 1 : i64} : (tensor<2x4xf32>) -> tensor<f32>
  %z = osc.dynamic_quantize_linear %x {part = 2 : i64} : (tensor<2x4xf32>) -> tensor<ui8>
  %i1 = osc.matmul_integer %q, %w1 lhs_zero_point(%z) rhs_zero_point(%wz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  %c1 = osc.cast %i1 : tensor<2x3xi32> -> tensor<2x3xf32>
  %sm1 = osc.binary mul %s, %ws1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %m1 = osc.binary mul %c1, %sm1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %a1 = osc.binary add %b1, %m1 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %i2 = osc.matmul_integer %q, %w2 lhs_zero_point(%z) rhs_zero_point(%wz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  %c2 = osc.cast %i2 : tensor<2x3xi32> -> tensor<2x3xf32>
  %sm2 = osc.binary mul %ws2, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %m2 = osc.binary mul %sm2, %c2 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a1, %m2 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Not this pattern, left as they are: a Mul by a scale that is not
// x_scale * w_scale (the weight's scale alone), and a weight computed at
// run time.
// CHECK-LABEL: func.func @not_matching
// CHECK: osc.matmul_integer {{.*}} -> tensor<2x3xi32>
// CHECK-NEXT: osc.cast
// CHECK-NEXT: osc.binary mul
// CHECK-NEXT: osc.matmul_integer {{.*}} -> tensor<2x3xi32>
// CHECK-NEXT: osc.cast
// CHECK-NEXT: osc.binary mul
// CHECK-NEXT: osc.binary mul
func.func @not_matching(%x: tensor<2x4xf32>, %wr: tensor<4x3xi8>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = osc.constant dense<5> : tensor<4x3xi8>
  %wz = osc.constant dense<0> : tensor<i8>
  %ws = osc.constant dense<0.5> : tensor<f32>
  %q = osc.dynamic_quantize_linear %x {part = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xui8>
  %s = osc.dynamic_quantize_linear %x {part = 1 : i64} : (tensor<2x4xf32>) -> tensor<f32>
  %z = osc.dynamic_quantize_linear %x {part = 2 : i64} : (tensor<2x4xf32>) -> tensor<ui8>
  %i1 = osc.matmul_integer %q, %w lhs_zero_point(%z) rhs_zero_point(%wz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  %c1 = osc.cast %i1 : tensor<2x3xi32> -> tensor<2x3xf32>
  %m1 = osc.binary mul %c1, %ws : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %i2 = osc.matmul_integer %q, %wr lhs_zero_point(%z) rhs_zero_point(%wz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  %c2 = osc.cast %i2 : tensor<2x3xi32> -> tensor<2x3xf32>
  %sm2 = osc.binary mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %m2 = osc.binary mul %c2, %sm2 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %m1, %m2 : tensor<2x3xf32>, tensor<2x3xf32>
}
