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

// CHECK-LABEL: func.func @non_max_suppression
func.func @non_max_suppression(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>,
    %m: tensor<1xi64>, %iou: tensor<f32>, %st: tensor<1xf32>)
    -> (tensor<4x3xi64>, tensor<12x3xi64>) {
  // CHECK: osc.non_max_suppression %{{.*}}, %{{.*}} iou_threshold(%{{.*}}) score_threshold(%{{.*}}) {center_point_box, max_per_class = 2 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<f32>, tensor<1xf32>) -> (tensor<4x3xi64>, tensor<i64>)
  %a, %n = osc.non_max_suppression %b, %s iou_threshold(%iou)
      score_threshold(%st) {center_point_box, max_per_class = 2 : i64}
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<f32>, tensor<1xf32>)
      -> (tensor<4x3xi64>, tensor<i64>)
  // CHECK: osc.non_max_suppression %{{.*}}, %{{.*}} max_output_boxes_per_class(%{{.*}}) : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>) -> (tensor<12x3xi64>, tensor<i64>)
  %r, %k = osc.non_max_suppression %b, %s max_output_boxes_per_class(%m)
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>)
      -> (tensor<12x3xi64>, tensor<i64>)
  return %a, %r : tensor<4x3xi64>, tensor<12x3xi64>
}
