// RUN: opscope-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the random ops (OscRandomOps.td).

func.func @uniform_low_above_high() {
  // expected-error @+1 {{needs finite low <= high, got low 2.000000e+00 and high 1.000000e+00}}
  %0 = osc.random_uniform {high = 1.0 : f32, low = 2.0 : f32} : tensor<3xf32>
  return
}

// -----

func.func @normal_negative_scale() {
  // expected-error @+1 {{needs a finite mean and a finite scale >= 0}}
  %0 = osc.random_normal {mean = 0.0 : f32, scale = -1.0 : f32} : tensor<3xf32>
  return
}

// -----

func.func @uniform_integer_result() {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = osc.random_uniform {high = 1.0 : f32, low = 0.0 : f32} : tensor<3xi32>
  return
}

// -----

func.func @bernoulli_shape(%p: tensor<10xf32>) {
  // expected-error @+1 {{result shape 5 does not match the expected shape 10}}
  %0 = osc.bernoulli %p : (tensor<10xf32>) -> tensor<5xf32>
  return
}
