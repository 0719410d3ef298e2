// RUN: opscope-opt %s -split-input-file -osc-fold-constants | FileCheck %s

// The shape sub-graph torch.onnx emits for a head split: Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape. After import Shape is already a constant;
// the rest folds, leaving one reshape of the activation.
// CHECK-LABEL: func.func @head_split_shape
// CHECK-NOT: osc.gather
// CHECK-NOT: osc.concat
// CHECK: %[[R:.*]] = osc.reshape %arg0 : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @head_split_shape(%x: tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32> {
  %shape = osc.constant dense<[1, 128, 768]> : tensor<3xi64>
  %i0 = osc.constant dense<0> : tensor<i64>
  %i1 = osc.constant dense<1> : tensor<i64>
  %b = osc.gather %shape[%i0] : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %s = osc.gather %shape[%i1] : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %bu = osc.reshape %b : tensor<i64> -> tensor<1xi64>
  %su = osc.reshape %s : tensor<i64> -> tensor<1xi64>
  %heads = osc.constant dense<[12, 64]> : tensor<2xi64>
  %target = osc.concat %bu, %su, %heads {axis = 0 : i64}
      : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = osc.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
  return %r : tensor<1x128x12x64xf32>
}

// -----

// The extended attention mask: (1 - cast(mask)) * -10000, with the mask a
// constant here so the whole chain folds.
// CHECK-LABEL: func.func @mask_arithmetic
// CHECK: %[[C:.*]] = osc.constant dense<{{\[\[}}-0.000000e+00, -1.000000e+04]]> : tensor<1x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @mask_arithmetic() -> tensor<1x2xf32> {
  %m = osc.constant dense<[[1, 0]]> : tensor<1x2xi64>
  %f = osc.cast %m : tensor<1x2xi64> -> tensor<1x2xf32>
  %one = osc.constant dense<1.0> : tensor<f32>
  %inv = osc.binary sub %one, %f : (tensor<f32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %big = osc.constant dense<-10000.0> : tensor<f32>
  %r = osc.binary mul %inv, %big : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @integer_arithmetic
// CHECK-DAG: osc.constant dense<[7, 8, 12, 6, 6]> : tensor<5xi64>
// CHECK-DAG: osc.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: osc.constant dense<[3, -1]> : tensor<2xi64>
func.func @integer_arithmetic() -> (tensor<5xi64>, tensor<2xi1>, tensor<2xi64>) {
  %a = osc.constant dense<[6, 8, 8, 3, 3]> : tensor<5xi64>
  %b = osc.constant dense<[1, 2, 4, 3, 3]> : tensor<5xi64>
  %add = osc.binary add %a, %b : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %div = osc.binary div %a, %b : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %sub = osc.binary sub %add, %div : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  // add [7,10,12,6,6], div [6,4,2,1,1], sub [1,6,10,5,5], pow [1,4,16,9,9],
  // max [6,4,16,9,9], min [1,4,10,5,5], + div = [7,8,12,6,6].
  %two = osc.constant dense<2> : tensor<i64>
  %sq = osc.binary pow %b, %two : (tensor<5xi64>, tensor<i64>) -> tensor<5xi64>
  %mx = osc.binary max %sq, %div : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %mn = osc.binary min %mx, %sub : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %r = osc.binary add %mn, %div : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %x = osc.constant dense<[2, 5]> : tensor<2xi64>
  %y = osc.constant dense<[2, 4]> : tensor<2xi64>
  %eq = osc.compare eq %x, %y : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  // Integer division truncates toward zero, as in ONNX.
  %n = osc.constant dense<[7, -7]> : tensor<2xi64>
  %t = osc.binary div %n, %y : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %q = osc.binary sub %t, %n : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %q2 = osc.binary add %q, %n : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %r, %eq, %q2 : tensor<5xi64>, tensor<2xi1>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @data_movement
// CHECK-DAG: osc.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: osc.constant dense<[6, 4]> : tensor<2xi32>
// CHECK-DAG: osc.constant dense<{{\[\[}}1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-DAG: osc.constant dense<[4, 6]> : tensor<2xi32>
// CHECK-DAG: osc.constant dense<{{\[\[}}5, 6]]> : tensor<1x2xi32>
func.func @data_movement() -> (tensor<3x2xi32>, tensor<2xi32>, tensor<2x3xi32>, tensor<2xi32>, tensor<1x2xi32>) {
  %m = osc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = osc.transpose %m {perm = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %flat = osc.reshape %m : tensor<2x3xi32> -> tensor<6xi32>
  %s = osc.slice %flat {starts = array<i64: 5>, sizes = array<i64: 2>, steps = array<i64: -2>}
      : tensor<6xi32> -> tensor<2xi32>
  %row = osc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = osc.broadcast_to %row : tensor<3xi32> -> tensor<2x3xi32>
  // Gather with a negative index.
  %idx = osc.constant dense<[-3, -1]> : tensor<2xi64>
  %g = osc.gather %flat[%idx] : (tensor<6xi32>, tensor<2xi64>) -> tensor<2xi32>
  %r = osc.reduce max %m {axes = array<i64: 0>, keep_dims} : tensor<2x3xi32> -> tensor<1x3xi32>
  %r2 = osc.slice %r {starts = array<i64: 0, 1>, sizes = array<i64: 1, 2>, steps = array<i64: 1, 1>}
      : tensor<1x3xi32> -> tensor<1x2xi32>
  return %t, %s, %b, %g, %r2 : tensor<3x2xi32>, tensor<2xi32>, tensor<2x3xi32>, tensor<2xi32>, tensor<1x2xi32>
}

// -----

// Weights are not expanded: a reshape of a resource shares its blob, and an
// op on a large tensor is left alone.
// CHECK-LABEL: func.func @weights_stay_resources
// CHECK: %[[W:.*]] = osc.constant dense_resource<w> : tensor<2x2xf32>
// CHECK-NOT: osc.reshape
// CHECK: osc.unary relu %[[W]]
func.func @weights_stay_resources() -> tensor<2x2xf32> {
  %w = osc.constant dense_resource<w> : tensor<4xf32>
  %r = osc.reshape %w : tensor<4xf32> -> tensor<2x2xf32>
  %y = osc.unary relu %r : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Non-constant operands are untouched; identity ops fold away.
// CHECK-LABEL: func.func @identities
// CHECK-NEXT: %[[U:.*]] = osc.unary relu %arg0
// CHECK-NEXT: return %[[U]]
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = osc.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = osc.cast %t : tensor<2x3xf32> -> tensor<2x3xf32>
  %r1 = osc.reshape %c : tensor<2x3xf32> -> tensor<6xf32>
  %r2 = osc.reshape %r1 : tensor<6xf32> -> tensor<2x3xf32>
  %s = osc.slice %r2 {starts = array<i64: 0, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 1>}
      : tensor<2x3xf32> -> tensor<2x3xf32>
  %u = osc.unary relu %s : tensor<2x3xf32>
  return %u : tensor<2x3xf32>
}

// -----

// Unary kinds fold with the runtime's scalar definitions (kinds.def):
// softsign(x) = x / (1 + |x|); integer division by zero gives 0, as the
// runtime's kernel computes it.
// CHECK-LABEL: func.func @scalar_semantics
// CHECK-DAG: osc.constant dense<[-7.500000e-01, 0.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK-DAG: osc.constant dense<[3, 0]> : tensor<2xi32>
// CHECK-NOT: osc.unary
// CHECK-NOT: osc.binary
func.func @scalar_semantics() -> (tensor<3xf32>, tensor<2xi32>) {
  %x = osc.constant dense<[-3.0, 0.0, 1.0]> : tensor<3xf32>
  %s = osc.unary softsign %x : tensor<3xf32>
  %a = osc.constant dense<[7, 7]> : tensor<2xi32>
  %b = osc.constant dense<[2, 0]> : tensor<2xi32>
  %d = osc.binary div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %s, %d : tensor<3xf32>, tensor<2xi32>
}
