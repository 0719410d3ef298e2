// RUN: opscope-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the indexing ops (OscIndexingOps.td);
// invalid.mlir has the others.

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = osc.cumsum %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf64>' differs from input type 'tensor<2x3xf32>'}}
  %0 = osc.cumsum %x {axis = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xf64>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{values 2x4 must keep at most the input's 3 elements along axis 1 of input 2x3}}
  %0, %1 = osc.top_k %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x4xf32>, tensor<2x4xi64>
  return
}

// -----

func.func @top_k_indices_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result shape 2x1 does not match the expected shape 2x2}}
  %0, %1 = osc.top_k %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x2xf32>, tensor<2x1xi64>
  return
}

// -----

func.func @top_k_runtime_k_without_count(%x: tensor<2x3xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{takes a run-time k exactly when it has a count result}}
  %0, %1 = osc.top_k %x k(%k) {axis = 1 : i64} : tensor<2x3xf32>, tensor<1xi64> -> tensor<2x3xf32>, tensor<2x3xi64>
  return
}

// -----

func.func @top_k_runtime_k_bound(%x: tensor<2x3xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{values 2x2 must keep the input's 3 elements along axis 1 as their bound when k is read at run time}}
  %0, %1, %n = osc.top_k %x k(%k) {axis = 1 : i64} : tensor<2x3xf32>, tensor<1xi64> -> tensor<2x2xf32>, tensor<2x2xi64>, tensor<i64>
  return
}

// -----

func.func @gather_nd_tuple(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{indices 2x3 index 3 axes; data 3x4 has 2 after the batch axes}}
  %0 = osc.gather_nd %x[%i] : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_batch(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{batch axis 0 of indices 2x1 differs from data 3x4}}
  %0 = osc.gather_nd %x[%i] {batch_dims = 1 : i64} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{updates 2x4 must be 2x3}}
  %0 = osc.scatter_nd none %x[%i], %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_bool_add(%x: tensor<4xi1>, %i: tensor<2x1xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{reduction add is not defined on booleans}}
  %0 = osc.scatter_nd add %x[%i], %u : (tensor<4xi1>, tensor<2x1xi64>, tensor<2xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @scatter_elements_shape(%x: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{updates 3x3 must have the shape of indices 2x3}}
  %0 = osc.scatter_elements none %x[%i], %u : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @scatter_elements_exceeds(%x: tensor<3x3xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{indices 2x4 exceed data 3x3 along axis 1}}
  %0 = osc.scatter_elements none %x[%i], %u : (tensor<3x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @reverse_sequence_axes(%x: tensor<3x4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{batch_axis 1 and time_axis 1 must be 0 and 1, one each}}
  %0 = osc.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @reverse_sequence_lens(%x: tensor<3x4xf32>, %l: tensor<3xi64>) {
  // expected-error @+1 {{sequence_lens 3 must hold one length per batch entry (4)}}
  %0 = osc.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}
