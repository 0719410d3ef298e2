// RUN: opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-sparse-layout))' | FileCheck %s
// RUN: opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-sparse-layout{mode=never}))' | FileCheck %s --check-prefix=NEVER
// NEVER-NOT: sparse_inner_product

// A weight pruned in 4x4 blocks (opscope-prune --block 4x4): rows 4-7 at
// k 0-3 are its only non-zero 4x4 block, so 12 of its 16 1x4 blocks are
// zero (0.75) and the four non-zero ones line up: the blob holds one 4x4
// block (block_rows = 4; header: block 4x4, N 8, K 8, one block, one slab
// of up to 4096 k, row group 64; 384 bytes).
// CHECK-LABEL: func.func @quad
// CHECK: %[[PQ:.*]] = osc.constant dense_resource<[[BQ:.*]]> : tensor<384xi8>
// CHECK: osc.sparse_inner_product %arg0, %[[PQ]] {block_rows = 4 : i64, block_sparsity = 7.500000e-01 : f64, nonzero_blocks = 4 : i64, weight_shape = array<i64: 8, 8>, weight_sparsity = 7.500000e-01 : f64} : (tensor<1x4x8xf32>, tensor<384xi8>) -> tensor<1x4x8xf32>
// CHECK: [[BQ]]: "0x40000000
// CHECK-SAME: 4F534353505253310100000000040400080000000000000008000000000000000100000000000000001000000000000040000000000000008000000000000000C00000000000000000010000000000004001000000000000
func.func @quad(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w = osc.constant dense<[[0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.28, 0.71, 0.19, -0.48, 0.00, 0.00, 0.00, 0.00], [-0.70, 0.64, 0.37, 0.57, 0.00, 0.00, 0.00, 0.00], [0.12, -0.20, 0.23, -0.61, 0.00, 0.00, 0.00, 0.00], [0.66, 0.32, 0.37, 0.64, 0.00, 0.00, 0.00, 0.00]]> : tensor<8x8xf32>
  %y = osc.inner_product %x, %w : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}
