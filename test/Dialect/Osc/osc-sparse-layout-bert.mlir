// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-sparse-layout{report}))' -mlir-elide-resource-strings-if-larger=8 | FileCheck %s
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-sparse-layout{transpose-chains=false report}))' -mlir-elide-resource-strings-if-larger=8 | FileCheck %s --check-prefix=ROWS

// One BERT encoder layer (hidden 8, 2 heads of 4, 5 tokens) as osc-fuse
// leaves it: Q/K/V projections, the head split (reshape + transpose,
// the keys already transposed), scores with the mask, the context and its
// head merge, the output projection with the residual sum, LayerNorm, the
// FFN with GELU and its residual sum, LayerNorm. All weights are zero
// blocks, so every inner product goes sparse.
//
// The whole layer runs transposed (hidden x tokens) with exactly two
// reorders: the layer's input on entry and its output on return. In
// between, the layer norms run transposed, the four head split/merge
// transposes become matmul transpose flags (q^T read with transpose_a, k^T
// as is; the context is computed as V^T P^T, already hidden x tokens), and
// the residual sums are read transposed.
// The pass reports per function, before the module is printed: this
// layer, the dense-FFN one and the batch-2 one below.
// CHECK: osc-sparse-layout: 6 of 6 inner products sparse (mode auto, threshold 0.7); 10 activations kept transposed (6 sparse inputs, 2 layer norms, 4 attention transposes folded into matmuls), 2 reorder ops inserted
// CHECK: osc-sparse-layout: 4 of 6 inner products sparse (mode auto, threshold 0.7); 7 activations kept transposed (4 sparse inputs, 1 layer norms, 4 attention transposes folded into matmuls), 2 reorder ops inserted
// CHECK: osc-sparse-layout: 6 of 6 inner products sparse (mode auto, threshold 0.7); 6 activations kept transposed (5 sparse inputs, 2 layer norms, 0 attention transposes folded into matmuls), 2 reorder ops inserted
// CHECK-LABEL: func.func @layer(
// CHECK: %[[X2:.*]] = osc.reshape %arg0 : tensor<1x5x8xf32> -> tensor<5x8xf32>
// CHECK-NEXT: %[[XT:.*]] = osc.transpose %[[X2]] {perm = array<i64: 1, 0>} : tensor<5x8xf32> -> tensor<8x5xf32>
// CHECK-NOT: osc.transpose
// CHECK: %[[Q:.*]] = osc.sparse_inner_product %[[XT]], {{.*}}transposed_input, transposed_output{{.*}} : (tensor<8x5xf32>, tensor<256xi8>, tensor<8xf32>) -> tensor<8x5xf32>
// CHECK: %[[K:.*]] = osc.sparse_inner_product %[[XT]], {{.*}}transposed_input, transposed_output{{.*}} -> tensor<8x5xf32>
// CHECK: %[[V:.*]] = osc.sparse_inner_product %[[XT]], {{.*}}transposed_input, transposed_output{{.*}} -> tensor<8x5xf32>
// CHECK: %[[QH:.*]] = osc.reshape %[[Q]] : tensor<8x5xf32> -> tensor<1x2x4x5xf32>
// CHECK: %[[KH:.*]] = osc.reshape %[[K]] : tensor<8x5xf32> -> tensor<1x2x4x5xf32>
// CHECK: %[[S:.*]] = osc.matmul %[[QH]], %[[KH]] transpose_a {scale = 5.000000e-01 : f32} : (tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x5x5xf32>
// CHECK: %[[P:.*]] = osc.softmax %[[S]] mask(%arg1)
// CHECK: %[[VH:.*]] = osc.reshape %[[V]] : tensor<8x5xf32> -> tensor<1x2x4x5xf32>
// CHECK: %[[CT:.*]] = osc.matmul %[[VH]], %[[P]] transpose_b : (tensor<1x2x4x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x4x5xf32>
// CHECK: %[[C:.*]] = osc.reshape %[[CT]] : tensor<1x2x4x5xf32> -> tensor<8x5xf32>
// CHECK: %[[O:.*]] = osc.sparse_inner_product %[[C]], {{.*}} sum(%[[XT]]) post_ops [sum] {{.*}}transposed_input, transposed_output{{.*}} -> tensor<8x5xf32>
// CHECK: %[[LN1:.*]] = osc.layer_norm %[[O]], {{.*}} {axis = 1 : i64, epsilon = {{.*}}, transposed} : (tensor<8x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x5xf32>
// CHECK: %[[F1:.*]] = osc.sparse_inner_product %[[LN1]], {{.*}} post_ops [gelu_erf] {{.*}} -> tensor<16x5xf32>
// CHECK: %[[F2:.*]] = osc.sparse_inner_product %[[F1]], {{.*}} sum(%[[LN1]]) post_ops [sum] {{.*}} -> tensor<8x5xf32>
// CHECK: %[[LN2:.*]] = osc.layer_norm %[[F2]], {{.*}}transposed} : (tensor<8x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x5xf32>
// CHECK-NEXT: %[[YT:.*]] = osc.transpose %[[LN2]] {perm = array<i64: 1, 0>} : tensor<8x5xf32> -> tensor<5x8xf32>
// CHECK-NEXT: %[[Y:.*]] = osc.reshape %[[YT]] : tensor<5x8xf32> -> tensor<1x5x8xf32>
// CHECK-NEXT: return %[[Y]]

// Without transposed chains the same layer keeps its four attention
// transposes and inserts nothing.
// ROWS: 6 of 6 inner products sparse (mode auto, threshold 0.7); 0 activations kept transposed (0 sparse inputs, 0 layer norms, 0 attention transposes folded into matmuls), 0 reorder ops inserted
// ROWS-LABEL: func.func @layer(
// ROWS-COUNT-4: osc.transpose
// ROWS-NOT: osc.transpose
// ROWS-NOT: transposed
// ROWS: return
func.func @layer(%x: tensor<1x5x8xf32>, %mask: tensor<1x1x1x5xf32>) -> tensor<1x5x8xf32> {
  %w = osc.constant dense<0.0> : tensor<8x8xf32>
  %wu = osc.constant dense<0.0> : tensor<16x8xf32>
  %wd = osc.constant dense<0.0> : tensor<8x16xf32>
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %bu = osc.constant dense<0.5> : tensor<16xf32>
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %q = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %k = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %v = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %q4 = osc.reshape %q : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %qt = osc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %k4 = osc.reshape %k : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %kt = osc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %s = osc.matmul %qt, %kt {scale = 5.000000e-01 : f32} : (tensor<1x2x5x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x5x5xf32>
  %p = osc.softmax %s mask(%mask) {axis = 3 : i64} : (tensor<1x2x5x5xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x5x5xf32>
  %v4 = osc.reshape %v : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %vt = osc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %c = osc.matmul %p, %vt : (tensor<1x2x5x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x5x4xf32>
  %ct = osc.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x4xf32> -> tensor<1x5x2x4xf32>
  %c3 = osc.reshape %ct : tensor<1x5x2x4xf32> -> tensor<1x5x8xf32>
  %o = osc.inner_product %c3, %w bias(%b) sum(%x) post_ops [sum] : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x8xf32>
  %ln1 = osc.layer_norm %o, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %f1 = osc.inner_product %ln1, %wu bias(%bu) post_ops [gelu_erf] : (tensor<1x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<1x5x16xf32>
  %f2 = osc.inner_product %f1, %wd bias(%b) sum(%ln1) post_ops [sum] : (tensor<1x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x8xf32>
  %ln2 = osc.layer_norm %f2, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  return %ln2 : tensor<1x5x8xf32>
}

// The same layer with a dense FFN (its weights have no zero block): the
// attention half stays transposed, and the one reorder back sits where
// the chain meets the dense up projection; its row-major result also feeds
// the dense residual sum. The dense half keeps its layer norm row-major.
// CHECK-LABEL: func.func @dense_ffn(
// CHECK: osc.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<5x8xf32> -> tensor<8x5xf32>
// CHECK-NOT: osc.transpose
// CHECK: %[[LN1:.*]] = osc.layer_norm {{.*}}transposed} : (tensor<8x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x5xf32>
// CHECK-NEXT: %[[BT:.*]] = osc.transpose %[[LN1]] {perm = array<i64: 1, 0>} : tensor<8x5xf32> -> tensor<5x8xf32>
// CHECK-NEXT: %[[B:.*]] = osc.reshape %[[BT]] : tensor<5x8xf32> -> tensor<1x5x8xf32>
// CHECK-NEXT: %[[F1:.*]] = osc.inner_product %[[B]],
// CHECK-NEXT: %[[F2:.*]] = osc.inner_product %[[F1]], {{.*}} sum(%[[B]])
// CHECK-NEXT: osc.layer_norm %[[F2]], {{.*}} {axis = 2 : i64, epsilon = {{[^,]*}}} :
// CHECK-NOT: osc.transpose
// CHECK: return
func.func @dense_ffn(%x: tensor<1x5x8xf32>, %mask: tensor<1x1x1x5xf32>) -> tensor<1x5x8xf32> {
  %w = osc.constant dense<0.0> : tensor<8x8xf32>
  %wu = osc.constant dense<0.5> : tensor<16x8xf32>
  %wd = osc.constant dense<0.5> : tensor<8x16xf32>
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %bu = osc.constant dense<0.5> : tensor<16xf32>
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %q = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %k = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %v = osc.inner_product %x, %w bias(%b) : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %q4 = osc.reshape %q : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %qt = osc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %k4 = osc.reshape %k : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %kt = osc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %s = osc.matmul %qt, %kt {scale = 5.000000e-01 : f32} : (tensor<1x2x5x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x5x5xf32>
  %p = osc.softmax %s mask(%mask) {axis = 3 : i64} : (tensor<1x2x5x5xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x5x5xf32>
  %v4 = osc.reshape %v : tensor<1x5x8xf32> -> tensor<1x5x2x4xf32>
  %vt = osc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %c = osc.matmul %p, %vt : (tensor<1x2x5x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x5x4xf32>
  %ct = osc.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x4xf32> -> tensor<1x5x2x4xf32>
  %c3 = osc.reshape %ct : tensor<1x5x2x4xf32> -> tensor<1x5x8xf32>
  %o = osc.inner_product %c3, %w bias(%b) sum(%x) post_ops [sum] : (tensor<1x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x8xf32>
  %ln1 = osc.layer_norm %o, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  %f1 = osc.inner_product %ln1, %wu bias(%bu) post_ops [gelu_erf] : (tensor<1x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<1x5x16xf32>
  %f2 = osc.inner_product %f1, %wd bias(%b) sum(%ln1) post_ops [sum] : (tensor<1x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x8xf32>
  %ln2 = osc.layer_norm %f2, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<1x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x5x8xf32>
  return %ln2 : tensor<1x5x8xf32>
}

// Batch 2: the head split is no longer a reshape of the transposed
// activation, so attention stays row-major: the projections feeding it
// write row-major (their kernels transpose their own tiles) and the
// context is read row-major; the residual stream and the FFN still run
// transposed, with the same two reorders.
// CHECK-LABEL: func.func @batch2(
// CHECK: osc.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<10x8xf32> -> tensor<8x10xf32>
// CHECK: osc.sparse_inner_product {{.*}}transposed_input, weight_shape{{.*}} : (tensor<8x10xf32>, tensor<256xi8>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-COUNT-4: osc.transpose {{.*}}perm = array<i64: 0, 2
// CHECK: osc.sparse_inner_product {{.*}}transposed_output, weight_shape{{.*}} : (tensor<2x5x8xf32>, tensor<256xi8>, tensor<8xf32>, tensor<8x10xf32>) -> tensor<8x10xf32>
// CHECK: osc.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<8x10xf32> -> tensor<10x8xf32>
// CHECK-NOT: osc.transpose
// CHECK: return
func.func @batch2(%x: tensor<2x5x8xf32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x5x8xf32> {
  %w = osc.constant dense<0.0> : tensor<8x8xf32>
  %wu = osc.constant dense<0.0> : tensor<16x8xf32>
  %wd = osc.constant dense<0.0> : tensor<8x16xf32>
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %bu = osc.constant dense<0.5> : tensor<16xf32>
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %q = osc.inner_product %x, %w bias(%b) : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %k = osc.inner_product %x, %w bias(%b) : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %v = osc.inner_product %x, %w bias(%b) : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %q4 = osc.reshape %q : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %qt = osc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %k4 = osc.reshape %k : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %kt = osc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x4xf32> -> tensor<2x2x4x5xf32>
  %s = osc.matmul %qt, %kt {scale = 5.000000e-01 : f32} : (tensor<2x2x5x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x5x5xf32>
  %p = osc.softmax %s mask(%mask) {axis = 3 : i64} : (tensor<2x2x5x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x5x5xf32>
  %v4 = osc.reshape %v : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %vt = osc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %c = osc.matmul %p, %vt : (tensor<2x2x5x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x5x4xf32>
  %ct = osc.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x5x4xf32> -> tensor<2x5x2x4xf32>
  %c3 = osc.reshape %ct : tensor<2x5x2x4xf32> -> tensor<2x5x8xf32>
  %o = osc.inner_product %c3, %w bias(%b) sum(%x) post_ops [sum] : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %ln1 = osc.layer_norm %o, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %f1 = osc.inner_product %ln1, %wu bias(%bu) post_ops [gelu_erf] : (tensor<2x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %f2 = osc.inner_product %f1, %wd bias(%b) sum(%ln1) post_ops [sum] : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  %ln2 = osc.layer_norm %f2, %g, %b {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  return %ln2 : tensor<2x5x8xf32>
}
