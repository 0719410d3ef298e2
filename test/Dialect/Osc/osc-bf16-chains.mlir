// osc-bf16-chains (issue 12): bf16 hand-overs where every reader rounds to
// bf16 anyway.
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-bf16-chains{mode=always report}))' -mlir-print-debuginfo=false | FileCheck %s
// RUN: opscope-opt %s -split-input-file --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-bf16-chains{mode=never report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=NEVER
// RUN: not opscope-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(osc-bf16-chains{mode=sometimes}))' 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: opscope-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(osc-bf16-chains{mode=never}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=NEVERIR
// NEVER-COUNT-5: osc-bf16-chains: off (mode never)
// NEVERIR-NOT: -> tensor<{{[0-9x]+}}xbf16>
// NEVERIR: func.func @fp32
// BADMODE: osc-bf16-chains: mode must be auto, always or never, got 'sometimes'

// An attention block in bf16. The projection's result goes through a
// reshape and a transpose to both operands of Q.K^T and to P.V: written in
// bf16, moved in bf16. Q.K^T's scores feed the softmax, which does not
// round its input: f32. The softmax (mask of whole rows) writes bf16 for
// P.V, P.V writes bf16 for the output projection (through a transpose and
// a reshape); that projection has a residual sum and returns: f32.
// CHECK: osc-bf16-chains: 5 of 6 bf16 op inputs read in bf16 as their producer wrote them; 3 results written in bf16 (1 inner products, 0 convolutions, 1 matmuls, 1 softmax, 0 layer norms), 0.3 KiB of activations in bf16 instead of f32; 1 f32-to-bf16 rounding left on entry at chain boundaries
// CHECK-LABEL: func.func @attention
// CHECK: %[[Q:.*]] = osc.inner_product %arg0, %{{.*}} bias(%{{.*}}) : (tensor<4x8xf32>, tensor<8x8xbf16>, tensor<8xf32>) -> tensor<4x8xbf16>
// CHECK: %[[QR:.*]] = osc.reshape %[[Q]] : tensor<4x8xbf16> -> tensor<4x2x4xbf16>
// CHECK: %[[QT:.*]] = osc.transpose %[[QR]] {{.*}} : tensor<4x2x4xbf16> -> tensor<2x4x4xbf16>
// CHECK: %[[S:.*]] = osc.matmul %[[QT]], %[[QT]] transpose_b {compute_bf16} : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xf32>
// CHECK: %[[P:.*]] = osc.softmax %[[S]] mask(%arg1) {axis = 2 : i64} : (tensor<2x4x4xf32>, tensor<1x1x4xf32>) -> tensor<2x4x4xbf16>
// CHECK: %[[O:.*]] = osc.matmul %[[P]], %[[QT]] {compute_bf16} : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
// CHECK: %[[OT:.*]] = osc.transpose %[[O]] {{.*}} : tensor<2x4x4xbf16> -> tensor<4x2x4xbf16>
// CHECK: %[[OR:.*]] = osc.reshape %[[OT]] : tensor<4x2x4xbf16> -> tensor<4x8xbf16>
// CHECK: osc.inner_product %[[OR]], %{{.*}} sum(%arg0) post_ops [sum] : (tensor<4x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @attention(%x: tensor<4x8xf32>, %mask: tensor<1x1x4xf32>) -> tensor<4x8xf32> {
  %wq = osc.constant dense<1.0> : tensor<8x8xbf16>
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %q = osc.inner_product %x, %wq bias(%b) : (tensor<4x8xf32>, tensor<8x8xbf16>, tensor<8xf32>) -> tensor<4x8xf32>
  %qr = osc.reshape %q : tensor<4x8xf32> -> tensor<4x2x4xf32>
  %qt = osc.transpose %qr {perm = array<i64: 1, 0, 2>} : tensor<4x2x4xf32> -> tensor<2x4x4xf32>
  %s = osc.matmul %qt, %qt transpose_b {compute_bf16} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %p = osc.softmax %s mask(%mask) {axis = 2 : i64} : (tensor<2x4x4xf32>, tensor<1x1x4xf32>) -> tensor<2x4x4xf32>
  %o = osc.matmul %p, %qt {compute_bf16} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %ot = osc.transpose %o {perm = array<i64: 1, 0, 2>} : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
  %or = osc.reshape %ot : tensor<4x2x4xf32> -> tensor<4x8xf32>
  %y = osc.inner_product %or, %wq bias(%b) sum(%x) post_ops [sum] : (tensor<4x8xf32>, tensor<8x8xbf16>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A pre-LN feed-forward block: the layer norm's only readers are the bf16
// inner product (its residual is the block's input), so it writes bf16;
// the first layer (GELU) writes bf16 for the second, whose sum keeps it
// f32.
// CHECK: osc-bf16-chains: 2 of 2 bf16 op inputs read in bf16 as their producer wrote them; 2 results written in bf16 (1 inner products, 0 convolutions, 0 matmuls, 0 softmax, 1 layer norms)
// CHECK-LABEL: func.func @pre_ln_ffn
// CHECK: %[[N:.*]] = osc.layer_norm %arg0, %{{.*}} {axis = 1 : i64{{.*}}} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xbf16>
// CHECK: %[[H:.*]] = osc.inner_product %[[N]], {{.*}} post_ops [gelu_erf] : (tensor<4x8xbf16>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<4x16xbf16>
// CHECK: osc.inner_product %[[H]], {{.*}} : (tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @pre_ln_ffn(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %be = osc.constant dense<0.0> : tensor<8xf32>
  %w1 = osc.constant dense<1.0> : tensor<16x8xbf16>
  %b1 = osc.constant dense<0.5> : tensor<16xf32>
  %w2 = osc.constant dense<2.0> : tensor<8x16xbf16>
  %b2 = osc.constant dense<0.25> : tensor<8xf32>
  %n = osc.layer_norm %x, %g, %be {axis = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %h = osc.inner_product %n, %w1 bias(%b1) post_ops [gelu_erf] : (tensor<4x8xf32>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = osc.inner_product %h, %w2 bias(%b2) sum(%x) post_ops [sum] : (tensor<4x16xf32>, tensor<8x16xbf16>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Not carried: a layer norm whose result is also a residual sum (post-LN
// BERT), a result also returned, a result a keep-fp32 (f32 weight) inner
// product reads, a result read through a transpose by an op that does not
// round (a ReLU), a softmax over a non-last axis, a producer with a
// residual sum.
// CHECK: osc-bf16-chains: 0 of 5 bf16 op inputs read in bf16 as their producer wrote them; 0 results written in bf16
// CHECK-LABEL: func.func @not_chains
// CHECK-NOT: bf16>) -> tensor<{{[0-9x]+}}xbf16>
// CHECK-NOT: -> tensor<{{[0-9x]+}}xbf16>
// CHECK: return
func.func @not_chains(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %w = osc.constant dense<1.0> : tensor<8x8xbf16>
  %wf = osc.constant dense<1.0> : tensor<8x8xf32>
  %n = osc.layer_norm %x, %g {axis = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %a = osc.inner_product %n, %w sum(%n) post_ops [sum] : (tensor<4x8xf32>, tensor<8x8xbf16>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = osc.inner_product %a, %w : (tensor<4x8xf32>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %c = osc.inner_product %a, %w : (tensor<4x8xf32>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %d = osc.inner_product %b, %wf : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %e = osc.inner_product %b, %w : (tensor<4x8xf32>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %ct = osc.transpose %c {perm = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %cn = osc.unary relu %ct : tensor<8x4xf32>
  %s = osc.softmax %e {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = osc.inner_product %s, %w : (tensor<4x8xf32>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %r = osc.binary add %f, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r, %e, %cn : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

// Convolutions: the first one's ReLU output is read only by the second,
// as its input, so it is written in bf16 (and osc-conv-layout keeps it
// channels-last like an f32 one); the second's residual sum keeps its
// result f32.
// CHECK: osc-bf16-chains: 1 of 2 bf16 op inputs read in bf16 as their producer wrote them; 1 results written in bf16 (0 inner products, 1 convolutions, 0 matmuls, 0 softmax, 0 layer norms), 4.0 KiB of activations in bf16 instead of f32; 1 f32-to-bf16 rounding left on entry at chain boundaries
// CHECK-LABEL: func.func @convs
// CHECK: %[[C:.*]] = osc.conv %arg0, {{.*}} -> tensor<1x8x16x16xbf16>
// CHECK: osc.conv %[[C]], {{.*}} : (tensor<1x8x16x16xbf16>, tensor<8x8x3x3xbf16>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
func.func @convs(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = osc.constant dense<1.0> : tensor<8x8x3x3xbf16>
  %c = osc.conv %x, %w post_ops [relu] {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xbf16>) -> tensor<1x8x16x16xf32>
  %y = osc.conv %c, %w sum(%x) post_ops [sum] {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xbf16>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  return %y : tensor<1x8x16x16xf32>
}

// -----

// Not producers: a softmax whose mask varies over a middle dimension (the
// runtime's row-wise kernel cannot write it in bf16), a transposed layer
// norm (osc-sparse-layout's, read through a transpose), an f32 matmul
// (read through a reshape). Their readers round, but the values stay f32.
// CHECK: osc-bf16-chains: 0 of 4 bf16 op inputs read in bf16 as their producer wrote them; 0 results written in bf16
// CHECK-LABEL: func.func @not_producers
// CHECK-NOT: -> tensor<{{[0-9x]+}}xbf16>
// CHECK: return
func.func @not_producers(%s: tensor<2x4x8xf32>, %m: tensor<1x4x8xf32>, %t: tensor<8x4xf32>) -> (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %g = osc.constant dense<1.0> : tensor<8xf32>
  %w = osc.constant dense<1.0> : tensor<8x8xbf16>
  %p = osc.softmax %s mask(%m) {axis = 2 : i64} : (tensor<2x4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x8xf32>
  %o = osc.matmul %p, %s transpose_b {compute_bf16} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %n = osc.layer_norm %t, %g {axis = 1 : i64, transposed} : (tensor<8x4xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  %nt = osc.transpose %n {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %y = osc.inner_product %nt, %w : (tensor<4x8xf32>, tensor<8x8xbf16>) -> tensor<4x8xf32>
  %f = osc.matmul %o, %s : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %fr = osc.reshape %f : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %u = osc.inner_product %fr, %w : (tensor<8x8xf32>, tensor<8x8xbf16>) -> tensor<8x8xf32>
  %ur = osc.reshape %u : tensor<8x8xf32> -> tensor<2x4x8xf32>
  return %ur, %y, %y : tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A model without bf16 ops: nothing to report.
// CHECK-NOT: osc-bf16-chains
// CHECK-LABEL: func.func @fp32
func.func @fp32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = osc.constant dense<1.0> : tensor<8x8xf32>
  %y = osc.inner_product %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
