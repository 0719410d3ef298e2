// RUN: opscope-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of non_zero and compress.

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
