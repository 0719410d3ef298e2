// RUN: opscope-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of non_zero, compress, unique and
// non_max_suppression.

func.func @non_zero_bound(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{does not match the expected shape 2x6}}
  %i, %n = osc.non_zero %x : tensor<2x3xf32> -> tensor<2x5xi64>, tensor<i64>
  return
}

// -----

func.func @compress_axis(%x: tensor<2x3xf32>, %c: tensor<2xi1>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y, %n = osc.compress %x, %c {axis = 2 : i64}
      : (tensor<2x3xf32>, tensor<2xi1>) -> (tensor<2x3xf32>, tensor<i64>)
  return
}

// -----

func.func @compress_bound(%x: tensor<2x3xf32>, %c: tensor<2xi1>) {
  // expected-error @+1 {{does not match the expected shape 2x2}}
  %y, %n = osc.compress %x, %c {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<2xi1>) -> (tensor<2x3xf32>, tensor<i64>)
  return
}

// -----

func.func @compress_condition(%x: tensor<2x3xf32>, %c: tensor<2x1xi1>) {
  // expected-error @+1 {{condition must be 1-D, got 2x1}}
  %y, %n = osc.compress %x, %c {axis = 0 : i64}
      : (tensor<2x3xf32>, tensor<2x1xi1>) -> (tensor<2x3xf32>, tensor<i64>)
  return
}

// -----

func.func @unique_bound(%x: tensor<4x2xi64>) {
  // expected-error @+1 {{does not match the expected shape 4}}
  %y, %i, %inv, %c, %n = osc.unique %x {axis = 0 : i64}
      : tensor<4x2xi64> -> tensor<4x2xi64>, tensor<8xi64>, tensor<4xi64>,
        tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @nms_bound(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>) {
  // expected-error @+1 {{does not match the expected shape 8x3}}
  %a, %n = osc.non_max_suppression %b, %s {max_per_class = 4 : i64}
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>) -> (tensor<6x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_runtime_bound(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>,
                             %m: tensor<i64>) {
  // expected-error @+1 {{does not match the expected shape 12x3}}
  %a, %n = osc.non_max_suppression %b, %s max_output_boxes_per_class(%m)
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<i64>)
      -> (tensor<8x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_both_limits(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>,
                           %m: tensor<i64>) {
  // expected-error @+1 {{takes max_per_class or a max_output_boxes_per_class operand, not both}}
  %a, %n = osc.non_max_suppression %b, %s max_output_boxes_per_class(%m)
      {max_per_class = 4 : i64}
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<i64>)
      -> (tensor<8x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_scores(%b: tensor<1x6x4xf32>, %s: tensor<1x2x5xf32>) {
  // expected-error @+1 {{scores 1x2x5 must be batches x classes x boxes (1 x classes x 6)}}
  %a, %n = osc.non_max_suppression %b, %s {max_per_class = 4 : i64}
      : (tensor<1x6x4xf32>, tensor<1x2x5xf32>) -> (tensor<8x3xi64>, tensor<i64>)
  return
}

// -----

func.func @nms_threshold(%b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>,
                         %t: tensor<2xf32>) {
  // expected-error @+1 {{iou_threshold 2 must hold one value}}
  %a, %n = osc.non_max_suppression %b, %s iou_threshold(%t)
      {max_per_class = 4 : i64}
      : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<2xf32>)
      -> (tensor<8x3xi64>, tensor<i64>)
  return
}
