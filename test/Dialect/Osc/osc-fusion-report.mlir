// RUN: opscope-opt %s -osc-fuse -osc-fusion-report -o /dev/null | FileCheck %s --match-full-lines
// RUN: opscope-opt %s -osc-fuse -osc-fusion-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: not opscope-opt %s -osc-fusion-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// FLOPs: the fc is 2*2*4*8 + 2*8 (bias) + 2*8 (relu post-op) = 160; bytes
// are every operand and result (x 32 + w 128 + b 32 + y 64 = 256). Half of
// the weight is zero.
// The zeros are not in 1x4 blocks (blocks1x4 0.000): a sparse kernel exists
// (inner_product) but osc-sparse-layout did not run, so it is dense.
// CHECK:id  type           post_ops  inputs  output  weight  sparsity  blocks1x4  sparse  flops  bytes  kernel                sources
// CHECK-NEXT:0   inner_product  relu      2x4     2x8     8x4     0.500     0.000      no      160    256    onednn:inner_product  3: fc/MatMul, fc/Add, act/Relu
// CHECK-NEXT:1   softmax        -         2x8     2x8     -       -         -          -       80     128    opscope:softmax       1: probs
// The JSON uses the probe table's vocabulary (docs/profiling.md): type,
// tensors as {name, dtype, shape: [ints]}, weight_shape as ints, and ids
// that are the probe ids of a default compile.
// JSON:      "bytes": 256,
// JSON-NEXT: "flops": 160,
// JSON-NEXT: "id": 0,
// JSON-NEXT: "input_scale": null,
// JSON-NEXT: "input_zero_point": null,
// JSON-NEXT: "inputs": [
// JSON-NEXT:   {
// JSON-NEXT:     "dtype": "f32",
// JSON-NEXT:     "name": "arg0",
// JSON-NEXT:     "shape": [
// JSON-NEXT:       2,
// JSON-NEXT:       4
// JSON-NEXT:     ]
// JSON-NEXT:   }
// JSON-NEXT: ],
// JSON-NEXT: "kernel": "onednn:inner_product",
// JSON-NEXT: "name": "fc/MatMul",
// JSON:      "source_nodes": [
// JSON-NEXT:   "fc/MatMul",
// JSON-NEXT:   "fc/Add",
// JSON-NEXT:   "act/Relu"
// JSON-NEXT: ],
// JSON-NEXT: "sparse_block": "1x4",
// JSON-NEXT: "sparse_kernel": false,
// JSON-NEXT: "sparse_support": true,
// JSON-NEXT: "type": "inner_product",
// JSON-NEXT: "weight_shape": [
// JSON-NEXT:   8,
// JSON-NEXT:   4
// JSON-NEXT: ],
// JSON-NEXT: "weight_sparsity": 0.5
// BAD: osc-fusion-report: format must be table or json, got 'xml'
func.func @report(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %w = osc.constant dense<[[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]]> : tensor<4x8xf32> loc("w")
  %b = osc.constant dense<0.5> : tensor<8xf32>
  %m = osc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("fc/MatMul")
  %h = osc.binary add %m, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> loc("fc/Add")
  %r = osc.unary relu %h : tensor<2x8xf32> loc("act/Relu")
  %p = osc.softmax %r {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("probs")
  return %p : tensor<2x8xf32>
}
