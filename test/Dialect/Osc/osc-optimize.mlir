// RUN: opscope-opt %s -osc-optimize | FileCheck %s

// The pipeline fuses, then CSE merges the per-layer copies of a mask that
// fusion built (one osc.where instead of two).
// CHECK-LABEL: func.func @two_layers
// CHECK-COUNT-1: osc.where
// CHECK-NOT: osc.where
// CHECK: %[[P1:.*]] = osc.softmax %arg0 mask(%[[M:.*]]) {axis = 3 : i64}
// CHECK: osc.softmax %arg1 mask(%[[M]]) {axis = 3 : i64}
func.func @two_layers(%s1: tensor<1x2x8x8xf32>, %s2: tensor<1x2x8x8xf32>, %c: tensor<1x1x1x8xi1>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %ninf = osc.constant dense<0xFF800000> : tensor<f32>
  %cb1 = osc.broadcast_to %c : tensor<1x1x1x8xi1> -> tensor<1x2x8x8xi1>
  %w1 = osc.where %cb1, %ninf, %s1 : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p1 = osc.softmax %w1 {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %cb2 = osc.broadcast_to %c : tensor<1x1x1x8xi1> -> tensor<1x2x8x8xi1>
  %w2 = osc.where %cb2, %ninf, %s2 : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p2 = osc.softmax %w2 {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %p1, %p2 : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}
