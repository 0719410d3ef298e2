// RUN: opscope-opt %s -osc-plan-memory -split-input-file -verify-diagnostics | FileCheck %s

// Arguments are never overwritten; elementwise ops reuse a dying operand's
// buffer; a reshape aliases its input; buffers are reused after their last
// reader; the function result keeps its buffer. Every executed op records
// the arena bytes live while it runs (osc.live_bytes): here the argument
// and the one reused buffer.
// CHECK-LABEL: module attributes
// CHECK-SAME: osc.arena_bytes = 128 : i64
// CHECK-SAME: osc.weights_bytes = 128 : i64
// CHECK-SAME: osc.weights_id = "{{[0-9a-f]+}}"
// CHECK: func.func @chain
// CHECK-SAME: osc.arg_offsets = array<i64: 0>
// CHECK: osc.constant {{.*}}osc.weight_offset = 64 : i64
// CHECK: %[[A:.*]] = osc.unary relu %arg0 {osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
// CHECK: %[[B:.*]] = osc.unary neg %[[A]] {osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
// CHECK: %[[R:.*]] = osc.reshape %[[B]]
// CHECK-NOT: osc.offset
// CHECK: %[[C:.*]] = osc.binary add %[[R]], %{{.*}} {osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
// CHECK: %[[D:.*]] = osc.binary mul %[[C]], %[[C]] {osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
// CHECK: return %[[D]]
module {
  func.func @chain(%x: tensor<4x4xf32>) -> tensor<16xf32> {
    %w = osc.constant dense<1.0> : tensor<16xf32>
    %a = osc.unary relu %x : tensor<4x4xf32>
    %b = osc.unary neg %a : tensor<4x4xf32>
    %r = osc.reshape %b : tensor<4x4xf32> -> tensor<16xf32>
    %c = osc.binary add %r, %w : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %d = osc.binary mul %c, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    return %d : tensor<16xf32>
  }
}

// -----

// A buffer whose reader is the same op cannot be reused by that op's result
// unless the op works in place (softmax does not): two live buffers. Live
// bytes count the argument, the operand and the result while an op runs:
// 128 for the first softmax, 192 for the next two (after the second, `a` is
// dead and the third takes its place).
// CHECK-LABEL: module attributes
// CHECK-SAME: osc.arena_bytes = 192 : i64
// CHECK: osc.softmax %{{.*}} {axis = 1 : i64, osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
// CHECK: osc.softmax %{{.*}} {axis = 1 : i64, osc.live_bytes = 192 : i64, osc.offset = 128 : i64}
// CHECK: osc.softmax %{{.*}} {axis = 1 : i64, osc.live_bytes = 192 : i64, osc.offset = 64 : i64}
module {
  func.func @softmaxes(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %a = osc.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %b = osc.softmax %a {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %c = osc.softmax %b {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    return %c : tensor<2x8xf32>
  }
}

// -----

// Probes alias the probed op's buffer.
// CHECK-LABEL: module attributes
// CHECK: osc.probe 0 "p"
// CHECK-NEXT: osc.unary relu %arg0 {osc.live_bytes = 128 : i64, osc.offset = 64 : i64}
module {
  func.func @probed(%x: tensor<16xf32>) -> tensor<16xf32> {
    %p = osc.probe 0 "p" -> tensor<16xf32> {
      %a = osc.unary relu %x : tensor<16xf32>
      osc.yield %a : tensor<16xf32>
    }
    %b = osc.unary neg %p : tensor<16xf32>
    return %b : tensor<16xf32>
  }
}

// -----

// A convolution whose first post-op is a sum accumulates into its dying
// residual's buffer (oneDNN's sum post-op reads the destination). Not when
// an element-wise post-op comes first (below AVX-512 the runtime then
// reads the residual as a binary add from its own buffer), nor when the
// residual is also the input, which the kernel still reads.
// CHECK-LABEL: module attributes
// CHECK: %[[R:.*]] = osc.unary relu %arg0 {osc.live_bytes = {{.*}}, osc.offset = [[ROFF:[0-9]+]] : i64}
// CHECK: %[[A:.*]] = osc.conv %arg0, %{{.*}} sum(%[[R]]) post_ops [sum, relu] {{{.*}}osc.offset = [[ROFF]] : i64
// CHECK: %[[S:.*]] = osc.unary neg %[[A]] {osc.live_bytes = {{.*}}, osc.offset = [[SOFF:[0-9]+]] : i64}
// CHECK: %[[B:.*]] = osc.conv %arg0, %{{.*}} sum(%[[S]]) post_ops [relu, sum] {{{.*}}osc.offset = [[BOFF:[0-9]+]] : i64
// CHECK-NOT: osc.offset = [[SOFF]] : i64}
// CHECK: osc.conv %[[B]], %{{.*}} sum(%[[B]]) post_ops [sum] {{{.*}}osc.offset = [[SOFF]] : i64
module {
  func.func @conv_sum(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
    %w = osc.constant dense<0.1> : tensor<4x4x1x1xf32>
    %r = osc.unary relu %x : tensor<1x4x4x4xf32>
    %a = osc.conv %x, %w sum(%r) post_ops [sum, relu] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %s = osc.unary neg %a : tensor<1x4x4x4xf32>
    %b = osc.conv %x, %w sum(%s) post_ops [relu, sum] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %c = osc.conv %b, %w sum(%b) post_ops [sum] {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    return %c : tensor<1x4x4x4xf32>
  }
}

// -----

// The same for an inner product: into its residual, never into its input.
// CHECK-LABEL: module attributes
// CHECK: %[[P:.*]] = osc.unary relu %{{.*}} {osc.live_bytes = {{.*}}, osc.offset = 128 : i64}
// CHECK: %[[Q:.*]] = osc.inner_product %[[P]], %{{.*}} sum(%[[P]]) post_ops [sum] {osc.live_bytes = {{.*}}, osc.offset = 256 : i64}
// CHECK: osc.inner_product %[[P]], %{{.*}} sum(%[[Q]]) post_ops [sum] {osc.live_bytes = {{.*}}, osc.offset = 256 : i64}
module {
  func.func @inner_product_sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w = osc.constant dense<0.1> : tensor<8x8xf32>
    %p = osc.unary relu %x : tensor<4x8xf32>
    %q = osc.inner_product %p, %w sum(%p) post_ops [sum] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = osc.inner_product %p, %w sum(%q) post_ops [sum] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}

// -----

// Nor when the input is a reshape of the residual: the same buffer.
// CHECK-LABEL: module attributes
// CHECK: osc.unary relu %arg0 {osc.live_bytes = {{.*}}, osc.offset = 2048 : i64}
// CHECK: osc.conv {{.*}} post_ops [sum] {{{.*}}osc.offset = 4096 : i64
module {
  func.func @conv_sum_reshaped(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
    %w = osc.constant dense<0.1> : tensor<8x2x2x2xf32>
    %r = osc.unary relu %x : tensor<1x8x8x8xf32>
    %v = osc.reshape %r : tensor<1x8x8x8xf32> -> tensor<1x2x16x16xf32>
    %c = osc.conv %v, %w sum(%r) post_ops [sum] {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x16x16xf32>, tensor<8x2x2x2xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    return %c : tensor<1x8x8x8xf32>
  }
}

// -----

// A probe reads its op's run-time extent at its end (the trace's extent):
// the extent buffer stays live through a probed op that carries the extent
// without reading it. Here NonZero's count (offset 192) dies with NonZero
// itself, and without that rule the Transpose's result would take its place
// and the probe would read the transpose's data as the extent.
// CHECK-LABEL: func.func @extent_read_at_probe_end
// CHECK: osc.non_zero %{{.*}} {{{.*}}osc.offsets = array<i64: 64, 192>}
// CHECK: osc.transpose %{{.*}} {{{.*}}osc.offset = 256 : i64
module {
  func.func @extent_read_at_probe_end(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0:2 = osc.probe 0 "non_zero" -> tensor<2x6xi64>, tensor<i64> {
      %i, %n = osc.non_zero %x : tensor<2x3xf32> -> tensor<2x6xi64>, tensor<i64>
      osc.yield %i, %n : tensor<2x6xi64>, tensor<i64>
    }
    %1 = osc.probe 1 "transpose" -> tensor<6x2xi64> {
      %t = osc.transpose %0#0 {perm = array<i64: 1, 0>} : tensor<2x6xi64> -> tensor<6x2xi64>
      osc.yield %t : tensor<6x2xi64>
    }
    %2 = osc.unary relu %x : tensor<2x3xf32>
    return %2 : tensor<2x3xf32>
  }
}

// -----

// expected-error @+1 {{osc-plan-memory needs the weights}}
module attributes {osc.weights_elided} {
  func.func @elided(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{osc-plan-memory expects one function with one block}}
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
