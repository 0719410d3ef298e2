// RUN: opscope-opt %s | opscope-opt | FileCheck %s
// RUN: opscope-opt %s --mlir-print-op-generic | opscope-opt | FileCheck %s

// Round-trip of the random ops (OscRandomOps.td).

// CHECK-LABEL: func @random
func.func @random(%p: tensor<10xf32>) -> (tensor<3x4xf32>, tensor<8xf64>, tensor<10xf64>, tensor<10xi1>) {
  // CHECK: osc.random_uniform {high = 1.000000e+00 : f32, low = 0.000000e+00 : f32, seed = 0.000000e+00 : f32} : tensor<3x4xf32>
  %0 = osc.random_uniform {high = 1.0 : f32, low = 0.0 : f32, seed = 0.0 : f32} : tensor<3x4xf32>
  // CHECK: osc.random_normal {mean = 0.000000e+00 : f32, scale = 1.000000e+00 : f32} : tensor<8xf64>
  %1 = osc.random_normal {mean = 0.0 : f32, scale = 1.0 : f32} : tensor<8xf64>
  // CHECK: osc.bernoulli %{{.*}} {seed = 0.000000e+00 : f32} : (tensor<10xf32>) -> tensor<10xf64>
  %2 = osc.bernoulli %p {seed = 0.0 : f32} : (tensor<10xf32>) -> tensor<10xf64>
  // CHECK: osc.bernoulli %{{.*}} : (tensor<10xf32>) -> tensor<10xi1>
  %3 = osc.bernoulli %p : (tensor<10xf32>) -> tensor<10xi1>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<8xf64>, tensor<10xf64>, tensor<10xi1>
}
