// RUN: opscope-opt %s -osc-plan-memory='splat-min-bytes=64 max-tensor-bytes=1048576 max-total-bytes=2097152' -split-input-file -verify-diagnostics | FileCheck %s

// A splat of splat-min-bytes or more stays a splat: the .weights file holds
// one element (weights_bytes: header + 64), the constant also gets an arena
// offset, live for the whole run, and the op reading it does not write over
// it. A smaller splat is an ordinary weight.
// CHECK-LABEL: module attributes
// CHECK-SAME: osc.weights_bytes = 192 : i64
// CHECK: %[[BIG:.*]] = osc.constant dense<2.000000e+00> : tensor<4x4xf32> {osc.offset = 64 : i64, osc.weight_offset = 64 : i64}
// CHECK: %[[SMALL:.*]] = osc.constant dense<1.000000e+00> : tensor<4xf32> {osc.weight_offset = 128 : i64}
// CHECK: osc.binary add %arg0, %[[BIG]] {osc.live_bytes = {{[0-9]+}} : i64, osc.offset = 128 : i64}
module {
  func.func @splat(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
    %big = osc.constant dense<2.0> : tensor<4x4xf32>
    %small = osc.constant dense<1.0> : tensor<4xf32>
    %y = osc.binary add %x, %big : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %z = osc.unary relu %small : tensor<4xf32>
    return %y, %z : tensor<4x4xf32>, tensor<4xf32>
  }
}

// -----

// A tensor over max-tensor-bytes is refused, naming it.
module {
  func.func @big(%x: tensor<4xf32>) -> tensor<1024x1024xf32> {
    // expected-error @+1 {{tensor 'constant' ('tensor<1024x1024xf32>') needs 4194304 bytes, more than the per-tensor limit of 1048576 bytes (raise it with --max-tensor-bytes)}}
    %c = osc.constant dense<1.0> : tensor<1024x1024xf32>
    return %c : tensor<1024x1024xf32>
  }
}

// -----

// The arena has a limit of its own, naming its largest tensor.
// expected-error @+1 {{the activation arena needs 3145728 bytes, more than the limit of 2097152 bytes (raise it with --max-total-bytes); its largest tensor is 'arg0'}}
module {
  func.func @total(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
    return %a : tensor<512x512xf32>
  }
}
