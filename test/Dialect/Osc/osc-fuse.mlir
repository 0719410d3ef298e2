// RUN: opscope-opt %s -split-input-file -osc-fuse | FileCheck %s
// RUN: opscope-opt %s -split-input-file -osc-fuse -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// RUN: opscope-opt %s -split-input-file -osc-fuse="fuse-inner-product=false fuse-gelu=false fuse-hard-swish=false fuse-swish=false fuse-mish=false fuse-layer-norm=false fuse-post-ops=false fuse-attention=false fuse-conv-bn=false fold-scalars=false fold-transposes=false deconv-as-conv=false" | FileCheck %s --check-prefix=OFF

// MatMul with a constant K x N weight and a bias Add (torch order: bias
// first) becomes one inner_product with the weight transposed to N x K.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[W:.*]] = osc.constant dense_resource<w.t> : tensor<3x2xf32>
// CHECK-DAG: %[[B:.*]] = osc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK: %[[Y:.*]] = osc.inner_product %arg0, %[[W]] bias(%[[B]]) : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return %[[Y]]
// The transposed weight: [[1,2,3],[4,5,6]] becomes [[1,4],[2,5],[3,6]].
// CHECK: w.t: "0x400000000000803F00008040000000400000A040000040400000C040"
// LOC-LABEL: func.func @linear
// LOC: osc.inner_product {{.*}} loc(fused["fc/MatMul", "fc/Add"])
// OFF-LABEL: func.func @linear
// OFF: osc.matmul
// OFF: osc.binary add
func.func @linear(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %w = osc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> loc("w")
  %b = osc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = osc.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32> loc("fc/MatMul")
  %y = osc.binary add %b, %m : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> loc("fc/Add")
  return %y : tensor<4x3xf32>
}

// -----

// Gemm with transB already has an N x K weight: no copy.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK: %[[W:.*]] = osc.constant dense<1.000000e+00> : tensor<3x2xf32>
// CHECK: osc.inner_product %arg0, %[[W]] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
func.func @gemm_trans_b(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %w = osc.constant dense<1.0> : tensor<3x2xf32>
  %m = osc.matmul %x, %w transpose_b : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  return %m : tensor<4x3xf32>
}

// -----

// Negative: a non-constant weight stays a matmul; a bias Add whose matmul has
// another user is not folded; a full-size addend is not a bias (it is a
// residual, so it becomes a sum post-op).
// CHECK-LABEL: func.func @linear_negative
// CHECK: osc.matmul %arg0, %arg1
// CHECK: %[[IP:.*]] = osc.inner_product %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
// CHECK: osc.binary add %{{.*}}, %[[IP]]
// CHECK: osc.inner_product %arg0, %{{.*}} sum(%{{.*}}) post_ops [sum] : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
func.func @linear_negative(%x: tensor<4x2xf32>, %v: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = osc.matmul %x, %v : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %w = osc.constant dense<1.0> : tensor<2x3xf32>
  %b = osc.constant dense<2.0> : tensor<3xf32>
  %m = osc.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %y = osc.binary add %b, %m : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %full = osc.constant dense<3.0> : tensor<4x3xf32>
  %m2 = osc.matmul %x, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %z = osc.binary add %full, %m2 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %a, %y, %m, %z : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// GELU (erf form, as torch.onnx emits it) becomes a post-op of the
// inner_product that feeds it; the residual Add becomes a sum post-op.
// CHECK-LABEL: func.func @ffn
// CHECK: %[[H:.*]] = osc.inner_product %arg0, %{{.*}} bias(%{{.*}}) post_ops [gelu_erf] : (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK: %[[O:.*]] = osc.inner_product %[[H]], %{{.*}} bias(%{{.*}}) sum(%arg0) post_ops [sum] : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[O]]
// LOC-LABEL: func.func @ffn
// LOC: post_ops [gelu_erf] {{.*}} loc(fused[{{.*}}"up/MatMul"{{.*}}"gelu/Erf"{{.*}}])
// OFF-LABEL: func.func @ffn
// OFF: osc.unary erf
// OFF-NOT: post_ops
func.func @ffn(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w1 = osc.constant dense<0.5> : tensor<4x8xf32>
  %b1 = osc.constant dense<0.1> : tensor<8xf32>
  %w2 = osc.constant dense<0.25> : tensor<8x4xf32>
  %b2 = osc.constant dense<0.2> : tensor<4xf32>
  %m = osc.matmul %x, %w1 : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("up/MatMul")
  %h = osc.binary add %b1, %m : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("up/Add")
  %r2 = osc.constant dense<1.41421354> : tensor<f32>
  %d = osc.binary div %h, %r2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("gelu/Div")
  %e = osc.unary erf %d : tensor<2x8xf32> loc("gelu/Erf")
  %one = osc.constant dense<1.0> : tensor<f32>
  %a = osc.binary add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("gelu/Add")
  %p = osc.binary mul %h, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("gelu/Mul")
  %half = osc.constant dense<0.5> : tensor<f32>
  %g = osc.binary mul %p, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("gelu/Mul_1")
  %m2 = osc.matmul %g, %w2 : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %o = osc.binary add %b2, %m2 : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %res = osc.binary add %o, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %res : tensor<2x4xf32>
}

// -----

// GELU tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT: %[[G:.*]] = osc.gelu tanh %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %three = osc.constant dense<3.0> : tensor<f32>
  %c = osc.constant dense<0.044715> : tensor<f32>
  %k = osc.constant dense<0.797884583> : tensor<f32>
  %one = osc.constant dense<1.0> : tensor<f32>
  %half = osc.constant dense<0.5> : tensor<f32>
  %cube = osc.binary pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %cc = osc.binary mul %c, %cube : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = osc.binary add %x, %cc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %u = osc.binary mul %s, %k : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %t = osc.unary tanh %u : tensor<2x8xf32>
  %a = osc.binary add %one, %t : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %hx = osc.binary mul %x, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %g = osc.binary mul %hx, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

// Negative: the wrong constant (0.6 instead of 0.5) is not GELU.
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT: osc.gelu
// CHECK: osc.unary erf
func.func @not_gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r2 = osc.constant dense<1.41421354> : tensor<f32>
  %d = osc.binary div %x, %r2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %e = osc.unary erf %d : tensor<2x8xf32>
  %one = osc.constant dense<1.0> : tensor<f32>
  %a = osc.binary add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %p = osc.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = osc.constant dense<0.6> : tensor<f32>
  %g = osc.binary mul %p, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %g : tensor<2x8xf32>
}

// -----

// LayerNorm decomposed as before opset 17.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: %[[G:.*]] = osc.constant
// CHECK-NEXT: %[[B:.*]] = osc.constant
// CHECK-NEXT: %[[L:.*]] = osc.layer_norm %arg0, %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[L]]
// OFF-LABEL: func.func @layer_norm
// OFF: osc.reduce mean
func.func @layer_norm(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %g = osc.constant dense<2.0> : tensor<8xf32>
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %mean = osc.reduce mean %x {axes = array<i64: 2>, keep_dims} : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %d = osc.binary sub %x, %mean : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %two = osc.constant dense<2.0> : tensor<f32>
  %sq = osc.binary pow %d, %two : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %var = osc.reduce mean %sq {axes = array<i64: 2>, keep_dims} : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %eps = osc.constant dense<1.0e-12> : tensor<f32>
  %ve = osc.binary add %var, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %sd = osc.unary sqrt %ve : tensor<1x4x1xf32>
  %n = osc.binary div %d, %sd : (tensor<1x4x8xf32>, tensor<1x4x1xf32>) -> tensor<1x4x8xf32>
  %s = osc.binary mul %n, %g : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  %y = osc.binary add %s, %b : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Negative: statistics over a non-trailing axis are not a LayerNorm.
// CHECK-LABEL: func.func @not_layer_norm
// CHECK-NOT: osc.layer_norm
func.func @not_layer_norm(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %g = osc.constant dense<2.0> : tensor<1x4x8xf32>
  %b = osc.constant dense<0.5> : tensor<1x4x8xf32>
  %mean = osc.reduce mean %x {axes = array<i64: 1>, keep_dims} : tensor<1x4x8xf32> -> tensor<1x1x8xf32>
  %d = osc.binary sub %x, %mean : (tensor<1x4x8xf32>, tensor<1x1x8xf32>) -> tensor<1x4x8xf32>
  %sq = osc.binary mul %d, %d : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %var = osc.reduce mean %sq {axes = array<i64: 1>, keep_dims} : tensor<1x4x8xf32> -> tensor<1x1x8xf32>
  %eps = osc.constant dense<1.0e-12> : tensor<f32>
  %ve = osc.binary add %var, %eps : (tensor<1x1x8xf32>, tensor<f32>) -> tensor<1x1x8xf32>
  %sd = osc.unary sqrt %ve : tensor<1x1x8xf32>
  %n = osc.binary div %d, %sd : (tensor<1x4x8xf32>, tensor<1x1x8xf32>) -> tensor<1x4x8xf32>
  %s = osc.binary mul %n, %g : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %y = osc.binary add %s, %b : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Attention: the 1/sqrt(d) division becomes the matmul's scale, K's
// transpose becomes transpose_b (leaving a row-preserving head split), and
// the additive mask moves into the softmax.
// CHECK-LABEL: func.func @attention
// CHECK: %[[KT:.*]] = osc.transpose %arg1 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x4xf32> -> tensor<1x2x8x4xf32>
// CHECK: %[[S:.*]] = osc.matmul %arg0, %[[KT]] transpose_b {scale = 5.000000e-01 : f32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK: %[[P:.*]] = osc.softmax %[[S]] mask(%arg2) {axis = 3 : i64} : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK: return %[[P]]
// OFF-LABEL: func.func @attention
// OFF: osc.transpose %arg1 {perm = array<i64: 0, 2, 3, 1>}
// OFF: osc.binary div
func.func @attention(%q: tensor<1x2x8x4xf32>, %k: tensor<1x8x2x4xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %kt = osc.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x2x4xf32> -> tensor<1x2x4x8xf32>
  %s = osc.matmul %q, %kt : (tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  %c = osc.constant dense<2.0> : tensor<f32>
  %sc = osc.binary div %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %m = osc.binary add %sc, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = osc.softmax %m {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %p : tensor<1x2x8x8xf32>
}

// -----

// A 2-D transpose of a matmul operand disappears into the flag; a transpose
// that keeps the last dimension is left alone.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT: %[[A:.*]] = osc.matmul %arg1, %arg0 transpose_a
// CHECK-NEXT: %[[T:.*]] = osc.transpose %arg2 {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: osc.matmul %[[T]], %[[T]] transpose_b
func.func @transposes(%a: tensor<3x4xf32>, %b: tensor<3x5xf32>, %c: tensor<4x2x6xf32>) -> (tensor<5x4xf32>, tensor<2x4x4xf32>) {
  %bt = osc.transpose %b {perm = array<i64: 1, 0>} : tensor<3x5xf32> -> tensor<5x3xf32>
  %x = osc.matmul %bt, %a : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %ct = osc.transpose %c {perm = array<i64: 1, 0, 2>} : tensor<4x2x6xf32> -> tensor<2x4x6xf32>
  %y = osc.matmul %ct, %ct transpose_b : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x4xf32>
  return %x, %y : tensor<5x4xf32>, tensor<2x4x4xf32>
}

// -----

// DistilBERT's masked_fill: where(mask, -inf, scores) becomes a softmax mask
// computed on the mask before broadcasting.
// CHECK-LABEL: func.func @where_mask
// CHECK: %[[M:.*]] = osc.where %arg1, %{{.*}}, %{{.*}} : (tensor<1x1x1x8xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x1x8xf32>
// CHECK: osc.softmax %arg0 mask(%[[M]]) {axis = 3 : i64}
// CHECK-NOT: osc.broadcast_to
func.func @where_mask(%s: tensor<1x2x8x8xf32>, %c: tensor<1x1x1x8xi1>) -> tensor<1x2x8x8xf32> {
  %cb = osc.broadcast_to %c : tensor<1x1x1x8xi1> -> tensor<1x2x8x8xi1>
  %ninf = osc.constant dense<0xFF800000> : tensor<f32>
  %w = osc.where %cb, %ninf, %s : (tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p = osc.softmax %w {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %p : tensor<1x2x8x8xf32>
}

// -----

// Negative: a masked score tensor with another user keeps its Add.
// CHECK-LABEL: func.func @mask_other_user
// CHECK: osc.binary add
// CHECK: osc.softmax %{{.*}} {axis = 3 : i64}
func.func @mask_other_user(%s: tensor<1x2x8x8xf32>, %mask: tensor<1x1x1x8xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %m = osc.binary add %s, %mask : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32>
  %p = osc.softmax %m {axis = 3 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %p, %m : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}

// -----

// Conv + BatchNorm folds into the weights: a = 3 / sqrt(3 + 1) = 1.5, so
// W' = 2 * 1.5 = 3 and b' = (1 - 0.5) * 1.5 + 0.25 = 1; then ReLU is a
// post-op, and the residual Add a sum applied before it.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK: %[[C:.*]] = osc.conv %arg0, %{{.*}} bias(%{{.*}}) post_ops [relu]
// CHECK: osc.conv %[[C]], %{{.*}} sum(%[[C]]) post_ops [sum, relu]
// CHECK: w.bn: "0x4000000000004040"
// CHECK: w.bn_bias: "0x400000000000803F"
func.func @conv_bn_relu(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %w = osc.constant dense<2.0> : tensor<1x1x1x1xf32> loc("w")
  %b = osc.constant dense<1.0> : tensor<1xf32>
  %s = osc.constant dense<3.0> : tensor<1xf32>
  %mu = osc.constant dense<0.5> : tensor<1xf32>
  %var = osc.constant dense<3.0> : tensor<1xf32>
  %beta = osc.constant dense<0.25> : tensor<1xf32>
  %c = osc.conv %x, %w bias(%b) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %n = osc.batch_norm %c, %s, %beta, %mu, %var {epsilon = 1.0 : f32}
      : (tensor<1x1x4x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %r = osc.unary relu %n : tensor<1x1x4x4xf32>
  %w2 = osc.constant dense<1.0> : tensor<1x1x1x1xf32>
  %c2 = osc.conv %r, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %sum = osc.binary add %c2, %r : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %y = osc.unary relu %sum : tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// Negative: an inner_product with another user keeps its activation apart.
// CHECK-LABEL: func.func @post_op_other_user
// CHECK: %[[IP:.*]] = osc.inner_product %arg0, %{{.*}} :
// CHECK: osc.unary relu %[[IP]]
func.func @post_op_other_user(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = osc.constant dense<1.0> : tensor<3x4xf32>
  %ip = osc.inner_product %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %r = osc.unary relu %ip : tensor<2x3xf32>
  return %r, %ip : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A conv_transpose whose kernel equals its stride: the batch_norm after it
// folds into its weights, the relu becomes its post-op, and then it becomes
// a 1x1 conv to OC*k*k channels (post-op kept) and a depth-to-space shuffle
// (DCR order: channel (i*2 + j)*OC + c lands at (2h + i, 2w + j)).
// CHECK-LABEL: func.func @deconv_as_conv
// CHECK: %[[C:.*]] = osc.conv %arg0, %{{.*}} bias(%{{.*}}) post_ops [relu] {{.*}} -> tensor<1x8x3x3xf32>
// CHECK: osc.depth_to_space %[[C]] {blocksize = 2 : i64} : tensor<1x8x3x3xf32> -> tensor<1x2x6x6xf32>
// CHECK-NOT: osc.conv_transpose
// CHECK-NOT: osc.batch_norm
// OFF-LABEL: func.func @deconv_as_conv
// OFF: osc.conv_transpose
// OFF: osc.batch_norm
// OFF: osc.unary relu
func.func @deconv_as_conv(%x: tensor<1x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %w = osc.constant dense<0.5> : tensor<3x2x2x2xf32>
  %b = osc.constant dense<1.0> : tensor<2xf32>
  %s = osc.constant dense<3.0> : tensor<2xf32>
  %mu = osc.constant dense<0.5> : tensor<2xf32>
  %var = osc.constant dense<3.0> : tensor<2xf32>
  %beta = osc.constant dense<0.25> : tensor<2xf32>
  %ct = osc.conv_transpose %x, %w bias(%b) {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
      : (tensor<1x3x3x3xf32>, tensor<3x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %n = osc.batch_norm %ct, %s, %beta, %mu, %var {epsilon = 1.0 : f32}
      : (tensor<1x2x6x6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %r = osc.unary relu %n : tensor<1x2x6x6xf32>
  return %r : tensor<1x2x6x6xf32>
}

// -----

// A 3x3 stride-2 conv_transpose (pads 1, output_padding 1: a U-Net's)
// becomes its sub-pixel form: a 2x2 conv (pad 1 on every side) to
// OC*2*2 channels, (3 + 1) x (3 + 1) of each phase, the shuffle to
// 8 x 8, and the crop of the 6 x 6 output starting at 1. A grouped one,
// and one that reads a dequantized input (a QDQ model's int8 layer, which
// osc-precision runs on the model's own per-channel integers), are left to
// the deconvolution.
// CHECK-LABEL: func.func @deconv_subpixel
// CHECK: %[[C:.*]] = osc.conv %arg0, %{{.*}} bias(%{{.*}}) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x3x3xf32>, tensor<8x3x2x2xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK: %[[F:.*]] = osc.depth_to_space %[[C]] {blocksize = 2 : i64} : tensor<1x8x4x4xf32> -> tensor<1x2x8x8xf32>
// CHECK: osc.slice %[[F]] {sizes = array<i64: 1, 2, 6, 6>, starts = array<i64: 0, 0, 1, 1>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x6x6xf32>
// CHECK: osc.conv_transpose %arg0, {{.*}}groups = 3
// CHECK: %[[D:.*]] = osc.dequantize_linear
// CHECK: osc.conv_transpose %[[D]],
func.func @deconv_subpixel(%x: tensor<1x3x3x3xf32>, %q: tensor<1x3x3x3xi8>) -> (tensor<1x2x6x6xf32>, tensor<1x3x6x6xf32>, tensor<1x2x6x6xf32>) {
  %w = osc.constant dense<0.5> : tensor<3x2x3x3xf32>
  %b = osc.constant dense<1.0> : tensor<2xf32>
  %ct = osc.conv_transpose %x, %w bias(%b) {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}
      : (tensor<1x3x3x3xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %wg = osc.constant dense<0.5> : tensor<3x1x3x3xf32>
  %g = osc.conv_transpose %x, %wg {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 3 : i64}
      : (tensor<1x3x3x3xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x6x6xf32>
  %s = osc.constant dense<0.1> : tensor<f32>
  %z = osc.constant dense<0> : tensor<i8>
  %d = osc.dequantize_linear %q, %s, %z : (tensor<1x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x3x3xf32>
  %dq = osc.conv_transpose %d, %w bias(%b) {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}
      : (tensor<1x3x3x3xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  return %ct, %g, %dq : tensor<1x2x6x6xf32>, tensor<1x3x6x6xf32>, tensor<1x2x6x6xf32>
}

// -----

// Hardswish as Paddle2ONNX writes it: Add(x, 3) -> Clip(0, 6) -> Mul(x, .)
// -> Div(., 6), after a convolution. It becomes osc.unary hard_swish, which
// fuses into the convolution as a post-op; the fused location names all
// four nodes.
// CHECK-LABEL: func.func @hardswish_paddle
// CHECK-NEXT: %[[W:.*]] = osc.constant
// CHECK-NEXT: %[[Y:.*]] = osc.conv %arg0, %[[W]] post_ops [hard_swish]
// CHECK-NEXT: return %[[Y]]
// LOC-LABEL: func.func @hardswish_paddle
// LOC: post_ops [hard_swish] {{.*}} loc(fused[{{.*}}"p2o.Conv.0"{{.*}}"p2o.Div.0"{{.*}}"p2o.Mul.0"{{.*}}"p2o.Clip.0"{{.*}}"p2o.Add.0"{{.*}}])
// OFF-LABEL: func.func @hardswish_paddle
// OFF: osc.unary clip
// OFF-NOT: hard_swish
func.func @hardswish_paddle(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = osc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("p2o.Conv.0")
  %three = osc.constant dense<3.0> : tensor<f32>
  %a = osc.binary add %c, %three : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32> loc("p2o.Add.0")
  %cl = osc.unary clip %a {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x2x4x4xf32> loc("p2o.Clip.0")
  %m = osc.binary mul %c, %cl : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("p2o.Mul.0")
  %six = osc.constant dense<6.0> : tensor<f32>
  %d = osc.binary div %m, %six : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32> loc("p2o.Div.0")
  return %d : tensor<1x2x4x4xf32>
}

// -----

// The other spellings: 3 added on the left with the multiply by 1/6 first,
// and x * hard_sigmoid(x) with alpha 1/6, beta 1/2.
// CHECK-LABEL: func.func @hardswish_forms
// CHECK-NEXT: %[[A:.*]] = osc.unary hard_swish %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = osc.unary hard_swish %arg0 : tensor<8xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @hardswish_forms(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %three = osc.constant dense<3.0> : tensor<f32>
  %a = osc.binary add %three, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %cl = osc.unary clip %a {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  %sixth = osc.constant dense<0.166666672> : tensor<f32>
  %s = osc.binary mul %x, %sixth : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y1 = osc.binary mul %s, %cl : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %hs = osc.unary hard_sigmoid %x {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<8xf32>
  %y2 = osc.binary mul %hs, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y1, %y2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Near misses stay as they are: a clip to [0, 5], a hard_sigmoid with
// ONNX's default alpha 0.2 (not hardswish's 1/6), a clip whose result is
// also returned, x * clip(y + 3, 0, 6) / 6 with y not x, 3.002 for 3, and a
// clip of a broadcast sum.
// CHECK-LABEL: func.func @hardswish_near_misses
// CHECK-NOT: hard_swish
// CHECK: return
func.func @hardswish_near_misses(%x: tensor<8xf32>, %y: tensor<8xf32>, %r: tensor<1xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %three = osc.constant dense<3.0> : tensor<f32>
  %six = osc.constant dense<6.0> : tensor<f32>
  %a = osc.binary add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c5 = osc.unary clip %a {alpha = 0.0 : f32, beta = 5.0 : f32} : tensor<8xf32>
  %m5 = osc.binary mul %x, %c5 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y1 = osc.binary div %m5, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %hs = osc.unary hard_sigmoid %x {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<8xf32>
  %y2 = osc.binary mul %hs, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %b = osc.binary add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c6 = osc.unary clip %b {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  %m6 = osc.binary mul %x, %c6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y3 = osc.binary div %m6, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %ay = osc.binary add %y, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %cy = osc.unary clip %ay {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  %my = osc.binary mul %x, %cy : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y4 = osc.binary div %my, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %three2 = osc.constant dense<3.002> : tensor<f32>
  %a2 = osc.binary add %x, %three2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c2 = osc.unary clip %a2 {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  %m2 = osc.binary mul %x, %c2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y5 = osc.binary div %m2, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %ar = osc.binary add %r, %three : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
  %cr = osc.unary clip %ar {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1xf32>
  %mr = osc.binary mul %x, %cr : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %y6 = osc.binary div %mr, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %y1, %y2, %y3, %c6, %y4, %y5, %y6 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// ReLU6: a Clip to [0, 6] after a convolution (MobileNet's; the constant
// input form imports to the same osc.unary clip) fuses as the relu6
// post-op. A clip to other bounds fuses as a clip post-op with them; a
// ReLU6 of a convolution whose result is also read elsewhere stays.
// CHECK-LABEL: func.func @relu6
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} post_ops [relu6]
// CHECK: %[[C:.*]] = osc.conv %[[A]], %{{.*}} post_ops [clip(0.000000e+00, 5.000000e+00)]
// CHECK-NEXT: %[[D:.*]] = osc.conv %[[C]], %{{.*}} {
// CHECK-NEXT: %[[E:.*]] = osc.unary clip %[[D]] {alpha = 0.000000e+00 : f32, beta = 6.000000e+00 : f32}
// CHECK-NEXT: return %[[E]], %[[D]]
// LOC-LABEL: func.func @relu6
// LOC: post_ops [relu6] {{.*}} loc(fused[{{.*}}"mb.Conv.0"{{.*}}"mb.Clip.0"{{.*}}])
// OFF-LABEL: func.func @relu6
// OFF-NOT: relu6
func.func @relu6(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = osc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("mb.Conv.0")
  %a = osc.unary clip %a0 {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x2x4x4xf32> loc("mb.Clip.0")
  %b = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = osc.unary clip %b {alpha = 0.0 : f32, beta = 5.0 : f32} : tensor<1x2x4x4xf32>
  %d = osc.conv %c, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %e = osc.unary clip %d {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x2x4x4xf32>
  return %e, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// SiLU as torch exports nn.SiLU: Sigmoid(x) and Mul(x, .) after a
// convolution (YOLOv5/v8, EfficientNet). The convolution's result has two
// users, so neither op fused before; x * sigmoid(x) becomes osc.unary
// swish, which fuses into the convolution as a post-op, the sigmoid on
// either side of the product. Near misses stay: a sigmoid of another value,
// a sigmoid also returned, and a sum instead of a product.
// CHECK-LABEL: func.func @silu
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} post_ops [swish]
// CHECK-NEXT: %[[B:.*]] = osc.conv %[[A]], %{{.*}} post_ops [swish]
// CHECK-NEXT: %[[S:.*]] = osc.unary sigmoid %arg1
// CHECK-NEXT: %[[C:.*]] = osc.binary mul %[[B]], %[[S]]
// CHECK-NEXT: %[[T:.*]] = osc.unary sigmoid %[[C]]
// CHECK-NEXT: %[[D:.*]] = osc.binary mul %[[C]], %[[T]]
// CHECK-NEXT: %[[U:.*]] = osc.unary sigmoid %[[D]]
// CHECK-NEXT: %[[E:.*]] = osc.binary add %[[D]], %[[U]]
// CHECK-NEXT: return %[[E]], %[[T]]
// LOC-LABEL: func.func @silu
// LOC: post_ops [swish] {{.*}} loc(fused[{{.*}}"yolo.Conv.0"{{.*}}"yolo.Sigmoid.0"{{.*}}"yolo.Mul.0"{{.*}}])
// OFF-LABEL: func.func @silu
// OFF-NOT: swish
func.func @silu(%x: tensor<1x2x4x4xf32>, %z: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = osc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("yolo.Conv.0")
  %s0 = osc.unary sigmoid %a0 : tensor<1x2x4x4xf32> loc("yolo.Sigmoid.0")
  %a = osc.binary mul %a0, %s0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("yolo.Mul.0")
  %b0 = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s1 = osc.unary sigmoid %b0 : tensor<1x2x4x4xf32>
  %b = osc.binary mul %s1, %b0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s2 = osc.unary sigmoid %z : tensor<1x2x4x4xf32>
  %c = osc.binary mul %b, %s2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s3 = osc.unary sigmoid %c : tensor<1x2x4x4xf32>
  %d = osc.binary mul %c, %s3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s4 = osc.unary sigmoid %d : tensor<1x2x4x4xf32>
  %e = osc.binary add %d, %s4 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %e, %s3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Mish as torch exports nn.Mish below opset 18, and as the importer expands
// ONNX's Mish: Softplus(x), Tanh, Mul(x, .) after a convolution (YOLOv4,
// CSPDarknet). x * tanh(softplus(x)) becomes osc.unary mish, which fuses
// into the convolution as a post-op, the tanh on either side of the
// product. Near misses stay: a softplus of another value, a tanh also
// returned, and a tanh of the value itself (no softplus).
// CHECK-LABEL: func.func @mish
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} post_ops [mish]
// CHECK-NEXT: %[[B:.*]] = osc.conv %[[A]], %{{.*}} post_ops [mish]
// CHECK-NEXT: %[[P:.*]] = osc.unary softplus %arg1
// CHECK-NEXT: %[[T:.*]] = osc.unary tanh %[[P]]
// CHECK-NEXT: %[[C:.*]] = osc.binary mul %[[B]], %[[T]]
// CHECK-NEXT: %[[P2:.*]] = osc.unary softplus %[[C]]
// CHECK-NEXT: %[[T2:.*]] = osc.unary tanh %[[P2]]
// CHECK-NEXT: %[[D:.*]] = osc.binary mul %[[C]], %[[T2]]
// CHECK-NEXT: %[[T3:.*]] = osc.unary tanh %[[D]]
// CHECK-NEXT: %[[E:.*]] = osc.binary mul %[[D]], %[[T3]]
// CHECK-NEXT: return %[[E]], %[[T2]]
// LOC-LABEL: func.func @mish
// LOC: post_ops [mish] {{.*}} loc(fused[{{.*}}"yolo.Conv.0"{{.*}}"yolo.Softplus.0"{{.*}}"yolo.Tanh.0"{{.*}}"yolo.Mul.0"{{.*}}])
// OFF-LABEL: func.func @mish
// OFF-NOT: mish
func.func @mish(%x: tensor<1x2x4x4xf32>, %z: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = osc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("yolo.Conv.0")
  %p0 = osc.unary softplus %a0 : tensor<1x2x4x4xf32> loc("yolo.Softplus.0")
  %t0 = osc.unary tanh %p0 : tensor<1x2x4x4xf32> loc("yolo.Tanh.0")
  %a = osc.binary mul %a0, %t0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("yolo.Mul.0")
  %b0 = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %p1 = osc.unary softplus %b0 : tensor<1x2x4x4xf32>
  %t1 = osc.unary tanh %p1 : tensor<1x2x4x4xf32>
  %b = osc.binary mul %t1, %b0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p2 = osc.unary softplus %z : tensor<1x2x4x4xf32>
  %t2 = osc.unary tanh %p2 : tensor<1x2x4x4xf32>
  %c = osc.binary mul %b, %t2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p3 = osc.unary softplus %c : tensor<1x2x4x4xf32>
  %t3 = osc.unary tanh %p3 : tensor<1x2x4x4xf32>
  %d = osc.binary mul %c, %t3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %t4 = osc.unary tanh %d : tensor<1x2x4x4xf32>
  %e = osc.binary mul %d, %t4 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %e, %t3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The activations with parameters fuse with them: Darknet's
// LeakyRelu(0.1) after a convolution, ONNX's default slope 0.01 (printed
// as the f32 it is), Elu after an inner product, a
// squeeze-excite gate's HardSigmoid(0.2, 0.5) after a 1x1 convolution, a
// Clip with only a zero minimum (a ReLU) and a clip to [-1, 1]. A clip
// with one infinite bound stays an op.
// CHECK-LABEL: func.func @parameterised
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} post_ops [leaky_relu(1.000000e-01)]
// CHECK: %[[B:.*]] = osc.conv %[[A]], %{{.*}} post_ops [leaky_relu(0.00999999977)]
// CHECK: %[[C:.*]] = osc.conv %[[B]], %{{.*}} post_ops [hard_sigmoid(2.000000e-01, 5.000000e-01)]
// CHECK: %[[D:.*]] = osc.conv %[[C]], %{{.*}} post_ops [relu]
// CHECK: %[[E:.*]] = osc.conv %[[D]], %{{.*}} post_ops [clip(-1.000000e+00, 1.000000e+00)]
// CHECK: %[[F:.*]] = osc.conv %[[E]], %{{.*}} {
// CHECK-NEXT: %[[G:.*]] = osc.unary clip %[[F]] {alpha = 0xFF800000 : f32, beta = 2.000000e+00 : f32}
// CHECK: osc.inner_product %{{.*}} post_ops [elu(1.000000e+00)]
// LOC-LABEL: func.func @parameterised
// LOC: post_ops [leaky_relu(1.000000e-01)] {{.*}} loc(fused[{{.*}}"dk.Conv.0"{{.*}}"dk.LeakyRelu.0"{{.*}}])
// OFF-LABEL: func.func @parameterised
// OFF-NOT: post_ops
func.func @parameterised(%x: tensor<1x2x4x4xf32>, %v: tensor<3x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x4xf32>) {
  %w = osc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a0 = osc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("dk.Conv.0")
  %a = osc.unary leaky_relu %a0 {alpha = 0.1 : f32} : tensor<1x2x4x4xf32> loc("dk.LeakyRelu.0")
  %b0 = osc.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = osc.unary leaky_relu %b0 {alpha = 0.01 : f32} : tensor<1x2x4x4xf32>
  %c0 = osc.conv %b, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = osc.unary hard_sigmoid %c0 {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<1x2x4x4xf32>
  %d0 = osc.conv %c, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %d = osc.unary clip %d0 {alpha = 0.0 : f32, beta = 0x7F800000 : f32} : tensor<1x2x4x4xf32>
  %e0 = osc.conv %d, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %e = osc.unary clip %e0 {alpha = -1.0 : f32, beta = 1.0 : f32} : tensor<1x2x4x4xf32>
  %f0 = osc.conv %e, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %f = osc.unary clip %f0 {alpha = 0xFF800000 : f32, beta = 2.0 : f32} : tensor<1x2x4x4xf32>
  %wi = osc.constant dense<0.25> : tensor<4x8xf32>
  %i0 = osc.inner_product %v, %wi : (tensor<3x8xf32>, tensor<4x8xf32>) -> tensor<3x4xf32>
  %i = osc.unary elu %i0 {alpha = 1.0 : f32} : tensor<3x4xf32>
  return %f, %i : tensor<1x2x4x4xf32>, tensor<3x4xf32>
}
