// RUN: opscope-opt %s -cse -canonicalize -osc-fold-constants | FileCheck %s

// The random ops allocate their result (OscRandomOps.td): CSE never merges
// two identical draws, no folder turns an operand-less draw into a
// constant, and an unused draw is dead and goes away.

// CHECK-LABEL: func @two_draws_stay_two
func.func @two_draws_stay_two(%p: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-COUNT-2: osc.random_uniform
  %0 = osc.random_uniform {high = 1.0 : f32, low = 0.0 : f32} : tensor<4xf32>
  %1 = osc.random_uniform {high = 1.0 : f32, low = 0.0 : f32} : tensor<4xf32>
  // CHECK-COUNT-2: osc.random_normal
  %2 = osc.random_normal {mean = 0.0 : f32, scale = 1.0 : f32, seed = 1.0 : f32} : tensor<4xf32>
  %3 = osc.random_normal {mean = 0.0 : f32, scale = 1.0 : f32, seed = 1.0 : f32} : tensor<4xf32>
  // CHECK-COUNT-2: osc.bernoulli
  %4 = osc.bernoulli %p : (tensor<4xf32>) -> tensor<4xf32>
  %5 = osc.bernoulli %p : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NOT: osc.random
  %unused = osc.random_uniform {high = 1.0 : f32, low = 0.0 : f32} : tensor<4xf32>
  // CHECK: return
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
