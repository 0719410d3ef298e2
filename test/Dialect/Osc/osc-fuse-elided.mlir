// RUN: opscope-opt %s -osc-fuse | FileCheck %s

// A module printed with --elide-weights has empty blobs: rewrites that need
// weight data (transposing a K x N weight) leave the op alone instead of
// reading past the blob.
// CHECK-LABEL: func.func @elided
// CHECK: osc.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
module attributes {osc.weights_elided} {
  func.func @elided(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
    %w = osc.constant dense_resource<w> : tensor<2x3xf32>
    %m = osc.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    return %m : tensor<4x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000"
    }
  }
#-}
