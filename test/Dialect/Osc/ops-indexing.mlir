// RUN: opscope-opt %s | opscope-opt | FileCheck %s
// RUN: opscope-opt %s --mlir-print-op-generic | opscope-opt | FileCheck %s

// Round-trip of the indexing ops (OscIndexingOps.td) in their custom
// assembly format; ops.mlir has the others.

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<2x3x4xf32>, %i: tensor<2x1xi64>,
                    %u: tensor<2x3x4xf32>, %e: tensor<2x3x4xi32>,
                    %l: tensor<3xi64>)
    -> (tensor<2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xi64>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>) {
  // CHECK: osc.cumsum %{{.*}} {axis = 1 : i64, exclusive, reverse} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %0 = osc.cumsum %x {axis = 1 : i64, exclusive, reverse} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // CHECK: osc.top_k %{{.*}} {axis = 2 : i64, smallest} : tensor<2x3x4xf32> -> tensor<2x3x2xf32>, tensor<2x3x2xi64>
  %1, %2 = osc.top_k %x {axis = 2 : i64, smallest} : tensor<2x3x4xf32> -> tensor<2x3x2xf32>, tensor<2x3x2xi64>
  // CHECK: osc.gather_nd %{{.*}}[%{{.*}}] {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  %3 = osc.gather_nd %x[%i] {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  // CHECK: osc.scatter_nd max %{{.*}}[%{{.*}}], %{{.*}} : (tensor<2x3x4xf32>, tensor<2x1xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = osc.scatter_nd max %x[%i], %u : (tensor<2x3x4xf32>, tensor<2x1xi64>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: osc.scatter_elements add %{{.*}}[%{{.*}}], %{{.*}} {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = osc.scatter_elements add %x[%e], %u {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: osc.reverse_sequence %{{.*}}, %{{.*}} {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %6 = osc.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %4, %5, %6, %0 : tensor<2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x2xi64>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// TopK with k read at run time: results bounded by the axis length, and k
// as their extent (docs/architecture.md, "Data-dependent output shapes").
// CHECK-LABEL: func.func @top_k_runtime_k
func.func @top_k_runtime_k(%x: tensor<2x3x4xf32>, %k: tensor<1xi64>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<i64>) {
  // CHECK: osc.top_k %{{.*}} k(%{{.*}}) {axis = 1 : i64, smallest} : tensor<2x3x4xf32>, tensor<1xi64> -> tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<i64>
  %v, %i, %n = osc.top_k %x k(%k) {axis = 1 : i64, smallest} : tensor<2x3x4xf32>, tensor<1xi64> -> tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<i64>
  return %v, %i, %n : tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<i64>
}
