// RUN: opscope-opt %s | opscope-opt | FileCheck %s
// RUN: opscope-opt %s --mlir-print-op-generic | opscope-opt | FileCheck %s

// Round-trip of the ops whose result extent depends on the data
// (docs/architecture.md, "Data-dependent output shapes").

// CHECK-LABEL: func.func @extents
func.func @extents(%x: tensor<2x3xf32>, %c: tensor<2xi1>, %c7: tensor<7xi1>)
    -> (tensor<2x6xi64>, tensor<2x3xf32>, tensor<6xf32>) {
  // CHECK: osc.non_zero %{{.*}} : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  %i, %n = osc.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
  // CHECK: osc.compress %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi1>) -> (tensor<2x3xf32>, tensor<i64>)
  %y, %m = osc.compress %x, %c {axis = 0 : i64}
      : (tensor<2x3xf32>, tensor<2xi1>) -> (tensor<2x3xf32>, tensor<i64>)
  // CHECK: osc.compress %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<7xi1>) -> (tensor<6xf32>, tensor<i64>)
  %f, %k = osc.compress %x, %c7
      : (tensor<2x3xf32>, tensor<7xi1>) -> (tensor<6xf32>, tensor<i64>)
  return %i, %y, %f : tensor<2x6xi64>, tensor<2x3xf32>, tensor<6xf32>
}

// CHECK-LABEL: func.func @unique
func.func @unique(%x: tensor<4x2xi64>) -> (tensor<4x2xi64>, tensor<4xi64>) {
  // CHECK: osc.unique %{{.*}} {axis = 0 : i64, unsorted} : tensor<4x2xi64> -> tensor<4x2xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>
  %y, %i, %inv, %c, %n = osc.unique %x {axis = 0 : i64, unsorted}
      : tensor<4x2xi64> -> tensor<4x2xi64>, tensor<4xi64>, tensor<4xi64>,
        tensor<4xi64>, tensor<i64>
  return %y, %inv : tensor<4x2xi64>, tensor<4xi64>
}
