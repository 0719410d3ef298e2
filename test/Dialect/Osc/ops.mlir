// RUN: opscope-opt %s | opscope-opt | FileCheck %s
// RUN: opscope-opt %s --mlir-print-op-generic | opscope-opt | FileCheck %s

// Round-trip of every osc op in its custom assembly format, printed twice
// (custom and generic form) to check that the parsers accept what the printers
// write.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x2xf32>, tensor<i64>, tensor<4xf32>) {
  // CHECK: osc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %0 = osc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: osc.constant dense<7> : tensor<i64>
  %1 = osc.constant dense<7> : tensor<i64>
  // CHECK: osc.constant dense_resource<w0> : tensor<4xf32>
  %2 = osc.constant dense_resource<w0> : tensor<4xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<i64>, tensor<4xf32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<1x12x128x64xf32>, %b: tensor<1x12x128x64xf32>,
                  %c: tensor<3x1x2x4xf32>, %d: tensor<5x4x6xf32>)
    -> (tensor<1x12x128x128xf32>, tensor<3x5x2x6xf32>, tensor<1x12x64x64xf32>) {
  // CHECK: osc.matmul %{{.*}}, %{{.*}} transpose_b {scale = 1.250000e-01 : f32} : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x128xf32>
  %0 = osc.matmul %a, %b transpose_b {scale = 0.125 : f32}
      : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x128xf32>
  // CHECK: osc.matmul %{{.*}}, %{{.*}} : (tensor<3x1x2x4xf32>, tensor<5x4x6xf32>) -> tensor<3x5x2x6xf32>
  %1 = osc.matmul %c, %d : (tensor<3x1x2x4xf32>, tensor<5x4x6xf32>) -> tensor<3x5x2x6xf32>
  // CHECK: osc.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x64x64xf32>
  %2 = osc.matmul %a, %b transpose_a
      : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x64x64xf32>
  return %0, %1, %2 : tensor<1x12x128x128xf32>, tensor<3x5x2x6xf32>, tensor<1x12x64x64xf32>
}

// CHECK-LABEL: func.func @inner_product
func.func @inner_product(%x: tensor<1x128x768xf32>, %w: tensor<3072x768xf32>,
                         %b: tensor<3072xf32>, %r: tensor<1x128x3072xf32>)
    -> (tensor<1x128x3072xf32>, tensor<1x128x3072xf32>, tensor<1x128x3072xf32>) {
  // CHECK: osc.inner_product %[[X:.*]], %[[W:.*]] : (tensor<1x128x768xf32>, tensor<3072x768xf32>) -> tensor<1x128x3072xf32>
  %0 = osc.inner_product %x, %w : (tensor<1x128x768xf32>, tensor<3072x768xf32>) -> tensor<1x128x3072xf32>
  // CHECK: osc.inner_product %{{.*}}, %{{.*}} bias(%{{.*}}) post_ops [gelu_erf] :
  %1 = osc.inner_product %x, %w bias(%b) post_ops [gelu_erf]
      : (tensor<1x128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<1x128x3072xf32>
  // CHECK: osc.inner_product %{{.*}}, %{{.*}} bias(%{{.*}}) sum(%{{.*}}) post_ops [relu, gelu_tanh, sigmoid, tanh, hard_swish, sum] :
  %2 = osc.inner_product %x, %w bias(%b) sum(%r) post_ops [relu, gelu_tanh, sigmoid, tanh, hard_swish, sum]
      : (tensor<1x128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>, tensor<1x128x3072xf32>) -> tensor<1x128x3072xf32>
  return %0, %1, %2 : tensor<1x128x3072xf32>, tensor<1x128x3072xf32>, tensor<1x128x3072xf32>
}

// Post-ops with parameters print them in parentheses, each as the f32 it
// is (the generic form writes the #osc.post_op attributes).
// CHECK-LABEL: func.func @parameterised_post_ops
func.func @parameterised_post_ops(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %r: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: osc.inner_product %{{.*}}, %{{.*}} sum(%{{.*}}) post_ops [leaky_relu(1.000000e-01), sum, clip(-1.000000e+00, 2.500000e+00)] :
  %0 = osc.inner_product %x, %w sum(%r) post_ops [leaky_relu(0.1), sum, clip(-1.0, 2.5)]
      : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: osc.inner_product %{{.*}}, %{{.*}} post_ops [hard_sigmoid(0.166666672, 5.000000e-01), elu(1.000000e+00), relu6, swish, mish] :
  %1 = osc.inner_product %x, %w post_ops [hard_sigmoid(0.16666667, 0.5), elu(1.0), relu6, swish, mish]
      : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sparse_inner_product
func.func @sparse_inner_product(%x: tensor<1x128x768xf32>, %p: tensor<4096xi8>,
                                %b: tensor<3072xf32>, %r: tensor<1x128x768xf32>)
    -> tensor<1x128x768xf32> {
  // CHECK: %[[H:.*]] = osc.sparse_inner_product %{{.*}}, %{{.*}} bias(%{{.*}}) post_ops [gelu_erf] {block_sparsity = 8.000000e-01 : f64, nonzero_blocks = 117964 : i64, transposed_output, weight_shape = array<i64: 3072, 768>, weight_sparsity = 8.000000e-01 : f64} : (tensor<1x128x768xf32>, tensor<4096xi8>, tensor<3072xf32>) -> tensor<3072x128xf32>
  %h = osc.sparse_inner_product %x, %p bias(%b) post_ops [gelu_erf]
      {weight_shape = array<i64: 3072, 768>, block_sparsity = 0.8 : f64,
       weight_sparsity = 0.8 : f64, nonzero_blocks = 117964 : i64, transposed_output}
      : (tensor<1x128x768xf32>, tensor<4096xi8>, tensor<3072xf32>) -> tensor<3072x128xf32>
  // CHECK: osc.sparse_inner_product %[[H]], %{{.*}} sum(%{{.*}}) post_ops [sum] {{{.*}}transposed_input{{.*}}} : (tensor<3072x128xf32>, tensor<4096xi8>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  %y = osc.sparse_inner_product %h, %p sum(%r) post_ops [sum]
      {weight_shape = array<i64: 768, 3072>, block_sparsity = 0.8 : f64,
       weight_sparsity = 0.8 : f64, nonzero_blocks = 117964 : i64, transposed_input}
      : (tensor<3072x128xf32>, tensor<4096xi8>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>,
                %dx: tensor<1x32x17xf32>, %dw: tensor<32x1x3xf32>,
                %v: tensor<1x2x5x5x5xf32>, %vw: tensor<4x2x3x3x3xf32>,
                %s: tensor<1x64x112x112xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<1x32x8xf32>, tensor<1x4x3x3x3xf32>, tensor<1x64x112x112xf32>) {
  // CHECK: osc.conv %{{.*}}, %{{.*}} bias(%{{.*}}) post_ops [relu] {dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %0 = osc.conv %x, %w bias(%b) post_ops [relu]
      {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  // Depthwise 1-d, stride 2, dilation 2.
  // CHECK: osc.conv {{.*}}groups = 32 : i64{{.*}} : (tensor<1x32x17xf32>, tensor<32x1x3xf32>) -> tensor<1x32x8xf32>
  %1 = osc.conv %dx, %dw {strides = array<i64: 2>, pads = array<i64: 1, 2>, dilations = array<i64: 2>, groups = 32}
      : (tensor<1x32x17xf32>, tensor<32x1x3xf32>) -> tensor<1x32x8xf32>
  // CHECK: osc.conv {{.*}} : (tensor<1x2x5x5x5xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x3xf32>
  %2 = osc.conv %v, %vw {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>}
      : (tensor<1x2x5x5x5xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x3x3x3xf32>
  // CHECK: osc.conv %{{.*}}, %{{.*}} bias(%{{.*}}) sum(%{{.*}}) post_ops [sum, relu]
  %3 = osc.conv %x, %w bias(%b) sum(%s) post_ops [sum, relu]
      {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>, tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %0, %1, %2, %3 : tensor<1x64x112x112xf32>, tensor<1x32x8xf32>, tensor<1x4x3x3x3xf32>, tensor<1x64x112x112xf32>
}

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x8x16x16xf32>, %w: tensor<8x4x2x2xf32>, %b: tensor<8xf32>)
    -> (tensor<1x4x32x32xf32>, tensor<1x8x33x33xf32>) {
  // CHECK: osc.conv_transpose %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x32x32xf32>
  %0 = osc.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                  dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
      : (tensor<1x8x16x16xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x32x32xf32>
  // Grouped, with bias, output padding and a post-op.
  // CHECK: osc.conv_transpose %{{.*}}, %{{.*}} bias(%{{.*}}) post_ops [relu] {{.*}}groups = 2 : i64
  %1 = osc.conv_transpose %x, %w bias(%b) post_ops [relu]
      {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>,
       output_padding = array<i64: 1, 1>, groups = 2}
      : (tensor<1x8x16x16xf32>, tensor<8x4x2x2xf32>, tensor<8xf32>) -> tensor<1x8x33x33xf32>
  return %0, %1 : tensor<1x4x32x32xf32>, tensor<1x8x33x33xf32>
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<1x64x112x112xf32>, %y: tensor<1x4x5x5xf32>)
    -> (tensor<1x64x56x56xf32>, tensor<1x4x3x3xf32>, tensor<1x64x1x1xf32>, tensor<1x4x1x1xf32>) {
  // CHECK: osc.pool max %{{.*}} {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  %0 = osc.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  // CHECK: osc.pool avg %{{.*}} {ceil_mode, count_include_pad, {{.*}}} : tensor<1x4x5x5xf32> -> tensor<1x4x3x3xf32>
  %1 = osc.pool avg %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                        dilations = array<i64: 1, 1>, ceil_mode, count_include_pad}
      : tensor<1x4x5x5xf32> -> tensor<1x4x3x3xf32>
  // CHECK: osc.global_pool avg %{{.*}} : tensor<1x64x112x112xf32> -> tensor<1x64x1x1xf32>
  %2 = osc.global_pool avg %x : tensor<1x64x112x112xf32> -> tensor<1x64x1x1xf32>
  // CHECK: osc.global_pool max
  %3 = osc.global_pool max %y : tensor<1x4x5x5xf32> -> tensor<1x4x1x1xf32>
  return %0, %1, %2, %3 : tensor<1x64x56x56xf32>, tensor<1x4x3x3xf32>, tensor<1x64x1x1xf32>, tensor<1x4x1x1xf32>
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<1x64x8x8xf32>, %c: tensor<64xf32>,
                         %h: tensor<1x128x768xf32>, %g: tensor<768xf32>,
                         %s: tensor<1x12x128x128xf32>, %m: tensor<1x1x1x128xf32>)
    -> (tensor<1x64x8x8xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>,
        tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
  // CHECK: osc.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x64x8x8xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x8x8xf32>
  %0 = osc.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-3 : f32}
      : (tensor<1x64x8x8xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x8x8xf32>
  // CHECK: osc.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %1 = osc.layer_norm %h, %g, %g {axis = 2 : i64, epsilon = 1.0e-12 : f32}
      : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: osc.layer_norm %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %2 = osc.layer_norm %h, %g {axis = 2 : i64}
      : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: osc.softmax %{{.*}} mask(%{{.*}}) {axis = 3 : i64} : (tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x128xf32>
  %3 = osc.softmax %s mask(%m) {axis = 3 : i64}
      : (tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32>) -> tensor<1x12x128x128xf32>
  // CHECK: osc.softmax %{{.*}} {axis = 1 : i64, log} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %4 = osc.softmax %s {axis = 1 : i64, log} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  return %0, %1, %2, %3, %4 : tensor<1x64x8x8xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>,
                              tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %h: tensor<2x3xbf16>) {
  // CHECK: osc.gelu erf %{{.*}} : tensor<2x3xf32>
  %0 = osc.gelu erf %x : tensor<2x3xf32>
  // CHECK: osc.gelu tanh %{{.*}} : tensor<2x3xbf16>
  %1 = osc.gelu tanh %h : tensor<2x3xbf16>
  // CHECK: osc.unary relu %{{.*}} : tensor<2x3xf32>
  %2 = osc.unary relu %x : tensor<2x3xf32>
  // CHECK: osc.unary leaky_relu %{{.*}} {alpha = 0.00999999977 : f32} : tensor<2x3xf32>
  %3 = osc.unary leaky_relu %x {alpha = 0.01 : f32} : tensor<2x3xf32>
  // CHECK: osc.unary elu %{{.*}} {alpha = 1.000000e+00 : f32}
  %4 = osc.unary elu %x {alpha = 1.0 : f32} : tensor<2x3xf32>
  // CHECK: osc.unary tanh
  %5 = osc.unary tanh %x : tensor<2x3xf32>
  // CHECK: osc.unary sigmoid
  %6 = osc.unary sigmoid %x : tensor<2x3xf32>
  // CHECK: osc.unary erf
  %7 = osc.unary erf %x : tensor<2x3xf32>
  // CHECK: osc.unary exp
  %8 = osc.unary exp %x : tensor<2x3xf32>
  // CHECK: osc.unary log
  %9 = osc.unary log %x : tensor<2x3xf32>
  // CHECK: osc.unary sqrt
  %10 = osc.unary sqrt %x : tensor<2x3xf32>
  // CHECK: osc.unary reciprocal
  %11 = osc.unary reciprocal %x : tensor<2x3xf32>
  // CHECK: osc.unary neg %{{.*}} : tensor<4xi32>
  %12 = osc.unary neg %i : tensor<4xi32>
  // CHECK: osc.unary abs %{{.*}} : tensor<4xi32>
  %13 = osc.unary abs %i : tensor<4xi32>
  // CHECK: osc.unary floor
  %14 = osc.unary floor %x : tensor<2x3xf32>
  // CHECK: osc.unary ceil
  %15 = osc.unary ceil %x : tensor<2x3xf32>
  // CHECK: osc.unary softplus
  %16 = osc.unary softplus %x : tensor<2x3xf32>
  // CHECK: osc.unary hard_sigmoid %{{.*}} {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
  %17 = osc.unary hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<2x3xf32>
  // CHECK: osc.unary hard_swish
  %18 = osc.unary hard_swish %x : tensor<2x3xf32>
  // CHECK: osc.unary clip %{{.*}} {alpha = 0.000000e+00 : f32, beta = 6.000000e+00 : f32}
  %19 = osc.unary clip %x {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<2x3xf32>
  // CHECK: osc.unary not %{{.*}} : tensor<4xi1>
  %20 = osc.unary not %b : tensor<4xi1>
  // CHECK: osc.unary relu %{{.*}} : tensor<4xi32>
  %21 = osc.unary relu %i : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<1x128x768xf32>, %b: tensor<768xf32>, %s: tensor<f32>,
                  %p: tensor<4xi1>, %q: tensor<1xi1>, %i: tensor<2x1xi64>, %j: tensor<3xi64>) {
  // CHECK: osc.binary add %{{.*}}, %{{.*}} : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %0 = osc.binary add %x, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: osc.binary sub
  %1 = osc.binary sub %x, %s : (tensor<1x128x768xf32>, tensor<f32>) -> tensor<1x128x768xf32>
  // CHECK: osc.binary mul
  %2 = osc.binary mul %s, %x : (tensor<f32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  // CHECK: osc.binary div
  %3 = osc.binary div %x, %x : (tensor<1x128x768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  // CHECK: osc.binary pow
  %4 = osc.binary pow %x, %s : (tensor<1x128x768xf32>, tensor<f32>) -> tensor<1x128x768xf32>
  // CHECK: osc.binary max %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %5 = osc.binary max %i, %j : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // CHECK: osc.binary min
  %6 = osc.binary min %b, %b : (tensor<768xf32>, tensor<768xf32>) -> tensor<768xf32>
  // CHECK: osc.binary and %{{.*}}, %{{.*}} : (tensor<4xi1>, tensor<1xi1>) -> tensor<4xi1>
  %7 = osc.binary and %p, %q : (tensor<4xi1>, tensor<1xi1>) -> tensor<4xi1>
  // CHECK: osc.binary or
  %8 = osc.binary or %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: osc.binary xor
  %9 = osc.binary xor %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @compare_where
func.func @compare_where(%ids: tensor<1x128xi64>, %z: tensor<i64>, %x: tensor<1x12x128x128xf32>,
                         %c: tensor<1x1x1x128xi1>, %ninf: tensor<f32>)
    -> (tensor<1x128xi1>, tensor<1x12x128x128xf32>) {
  // CHECK: osc.compare eq %{{.*}}, %{{.*}} : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  %0 = osc.compare eq %ids, %z : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  // CHECK: osc.compare ne
  %1 = osc.compare ne %ids, %z : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  // CHECK: osc.compare lt
  %2 = osc.compare lt %ids, %z : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  // CHECK: osc.compare le
  %3 = osc.compare le %ids, %z : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  // CHECK: osc.compare gt
  %4 = osc.compare gt %ids, %z : (tensor<1x128xi64>, tensor<i64>) -> tensor<1x128xi1>
  // CHECK: osc.compare ge
  %5 = osc.compare ge %x, %x : (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xi1>
  // CHECK: osc.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
  %6 = osc.where %c, %x, %ninf
      : (tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
  return %0, %6 : tensor<1x128xi1>, tensor<1x12x128x128xf32>
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<1x128x768xf32>, %i: tensor<4x5xi64>) {
  // CHECK: osc.reduce mean %{{.*}} {axes = array<i64: 2>, keep_dims} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
  %0 = osc.reduce mean %x {axes = array<i64: 2>, keep_dims} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
  // CHECK: osc.reduce sum %{{.*}} {axes = array<i64: 0, 2>} : tensor<1x128x768xf32> -> tensor<128xf32>
  %1 = osc.reduce sum %x {axes = array<i64: 0, 2>} : tensor<1x128x768xf32> -> tensor<128xf32>
  // CHECK: osc.reduce max %{{.*}} : tensor<4x5xi64> -> tensor<4xi64>
  %2 = osc.reduce max %i {axes = array<i64: 1>} : tensor<4x5xi64> -> tensor<4xi64>
  // CHECK: osc.reduce min
  %3 = osc.reduce min %x {axes = array<i64: 1>} : tensor<1x128x768xf32> -> tensor<1x768xf32>
  // CHECK: osc.reduce prod
  %4 = osc.reduce prod %x {axes = array<i64: 1>} : tensor<1x128x768xf32> -> tensor<1x768xf32>
  // CHECK: osc.reduce sum_square
  %5 = osc.reduce sum_square %x {axes = array<i64: 1>} : tensor<1x128x768xf32> -> tensor<1x768xf32>
  // CHECK: osc.reduce l2
  %6 = osc.reduce l2 %x {axes = array<i64: 0, 1, 2>} : tensor<1x128x768xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<1x128x768xf32>, %t: tensor<30522x768xf32>, %ids: tensor<1x128xi64>,
                         %a: tensor<1x64x28x28xf32>, %b: tensor<1x32x28x28xf32>, %m: tensor<1x1x1x128xf32>,
                         %i: tensor<1x128xi64>, %img: tensor<1x3x4x4xf32>) {
  // CHECK: osc.reshape %{{.*}} : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
  %0 = osc.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
  // CHECK: osc.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
  %1 = osc.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
  // CHECK: osc.broadcast_to %{{.*}} : tensor<1x1x1x128xf32> -> tensor<1x12x128x128xf32>
  %2 = osc.broadcast_to %m : tensor<1x1x1x128xf32> -> tensor<1x12x128x128xf32>
  // CHECK: osc.gather %{{.*}}[%{{.*}}] : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  %3 = osc.gather %t[%ids] : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  // CHECK: osc.gather %{{.*}}[%{{.*}}] {axis = 1 : i64} : (tensor<1x128x768xf32>, tensor<i64>) -> tensor<1x768xf32>
  %z = osc.constant dense<0> : tensor<i64>
  %4 = osc.gather %x[%z] {axis = 1 : i64} : (tensor<1x128x768xf32>, tensor<i64>) -> tensor<1x768xf32>
  // CHECK: osc.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
  %5 = osc.concat %a, %b {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
  // CHECK: osc.slice %{{.*}} {sizes = array<i64: 1, 1, 768>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x128x768xf32> -> tensor<1x1x768xf32>
  %6 = osc.slice %x {starts = array<i64: 0, 0, 0>, sizes = array<i64: 1, 1, 768>, steps = array<i64: 1, 1, 1>}
      : tensor<1x128x768xf32> -> tensor<1x1x768xf32>
  // Reverse a dimension with a negative step.
  // CHECK: osc.slice %{{.*}} {{.*}}steps = array<i64: 1, -1>} : tensor<1x128xi64> -> tensor<1x128xi64>
  %7 = osc.slice %i {starts = array<i64: 0, 127>, sizes = array<i64: 1, 128>, steps = array<i64: 1, -1>}
      : tensor<1x128xi64> -> tensor<1x128xi64>
  // CHECK: osc.pad constant %{{.*}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 1.500000e+00 : f32} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
  %8 = osc.pad constant %img {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 1.5 : f32}
      : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
  // CHECK: osc.pad reflect
  %9 = osc.pad reflect %img {pads = array<i64: 0, 0, 3, 0, 0, 0, 0, 3>} : tensor<1x3x4x4xf32> -> tensor<1x3x7x7xf32>
  // CHECK: osc.pad edge
  %10 = osc.pad edge %img {pads = array<i64: 0, 0, 5, 0, 0, 0, 0, 5>} : tensor<1x3x4x4xf32> -> tensor<1x3x9x9xf32>
  // CHECK: osc.cast %{{.*}} : tensor<1x128xi64> -> tensor<1x128xf32>
  %11 = osc.cast %i : tensor<1x128xi64> -> tensor<1x128xf32>
  // CHECK: osc.resize nearest asymmetric floor %{{.*}} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  %12 = osc.resize nearest asymmetric floor %img : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  // CHECK: osc.resize cubic align_corners round_prefer_ceil %{{.*}} {cubic_coeff_a = -5.000000e-01 : f32, exclude_outside, scales = array<f32: 1.000000e+00, 1.000000e+00, 1.500000e+00, 1.500000e+00>}
  %13 = osc.resize cubic align_corners round_prefer_ceil %img
      {cubic_coeff_a = -0.5 : f32, exclude_outside, scales = array<f32: 1.0, 1.0, 1.5, 1.5>}
      : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
  // CHECK: osc.resize linear half_pixel round_prefer_floor
  %14 = osc.resize linear half_pixel round_prefer_floor %img : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  // CHECK: osc.resize linear pytorch_half_pixel
  %15 = osc.resize linear pytorch_half_pixel round_prefer_floor %img : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  // CHECK: osc.resize linear half_pixel_symmetric
  %16 = osc.resize linear half_pixel_symmetric floor %img : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  // CHECK: osc.resize nearest half_pixel ceil
  %17 = osc.resize nearest half_pixel ceil %img : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  return
}

// CHECK-LABEL: func.func @probe
func.func @probe(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[P:.*]] = osc.probe 0 "relu_1" -> tensor<2x3xf32> {
  // CHECK-NEXT:   %[[R:.*]] = osc.unary relu %{{.*}} : tensor<2x3xf32>
  // CHECK-NEXT:   osc.yield %[[R]] : tensor<2x3xf32>
  // CHECK-NEXT: }
  %0 = osc.probe 0 "relu_1" -> tensor<2x3xf32> {
    %r = osc.unary relu %x : tensor<2x3xf32>
    osc.yield %r : tensor<2x3xf32>
  }
  // A probe around an op with no users still times it.
  // CHECK: osc.probe 1 "gelu_2" {
  // CHECK-NEXT:   osc.gelu
  // CHECK-NEXT: }
  osc.probe 1 "gelu_2" {
    %g = osc.gelu erf %x : tensor<2x3xf32>
  }
  // CHECK: return %[[P]]
  return %0 : tensor<2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
