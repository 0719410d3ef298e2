// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 report}))' | FileCheck %s
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 keep-fp32=^down report}))' | FileCheck %s --check-prefix=KEEP
// RUN: opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=fp32}))' | FileCheck %s --check-prefix=FP32
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=MM
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 keep-fp32=^scores report}))' | FileCheck %s --check-prefix=MMKEEP
// RUN: opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16},osc-sparse-layout))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=SPARSE
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=fp16}))' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=bf16 keep-fp32=(}))' 2>&1 | FileCheck %s --check-prefix=BADREGEX

// Two inner products (an 8x8 weight each: 256 bytes in f32, 128 in bf16).
// The bf16 weight is the f32 one rounded to nearest even: 0.28 (0x3E8F5C29)
// becomes 0x3E8F, 0.71 (0x3F35C28F) rounds up to 0x3F36, -0.7 (0xBF333333)
// becomes 0xBF33 (the blob is little-endian). The activations stay f32.
// CHECK: osc-precision: bf16, 2 of 2 inner products in bf16, their weights 0.0 -> 0.0 MiB; 2 f32-to-bf16 conversions (one inside each bf16 kernel; osc-bf16-chains moves those its chains carry into the producers)
// CHECK: %[[W1:.*]] = osc.constant dense_resource<up_w.bf16> : tensor<8x8xbf16>
// CHECK: osc.inner_product %arg0, %[[W1]] bias(%{{.*}}) post_ops [gelu_erf] : (tensor<1x4x8xf32>, tensor<8x8xbf16>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK: osc.inner_product %{{.*}}, %{{.*}} : (tensor<1x4x8xf32>, tensor<8x8xbf16>) -> tensor<1x4x8xf32>
// CHECK: up_w.bf16: "0x40000000{{0+}}8F3E363F433EF6BE000000000000000033BF

// KEEP: 1 of 2 inner products in bf16 (1 kept in fp32 by keep-fp32)
// KEEP: tensor<8x8xbf16>
// KEEP: osc.inner_product {{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>

// FP32-NOT: bf16

// A bf16 weight that is sparse enough packs as bf16 (element type 2 in the
// blob header); the dense one stays a bf16 inner product.
// SPARSE: osc.sparse_inner_product
// SPARSE: osc.inner_product {{.*}}tensor<8x8xbf16>
// SPARSE: "0x400000004F534353505253310100000002010400

// The attention matmuls (two activations) compute in bf16 too: both
// operands are rounded inside the kernel.
// MM: osc-precision: bf16, 0 of 0 inner products in bf16, {{.*}}; 1 of 1 matmuls in bf16
// MM: func.func @attention
// MM: osc.matmul %arg0, %arg1 transpose_b {compute_bf16, scale = 1.250000e-01 : f32}
// MMKEEP: 0 of 1 matmuls in bf16

// BAD: osc-precision: precision must be fp32, bf16 or int8, got 'fp16'
// BADREGEX: osc-precision: invalid keep-fp32 regex '('

func.func @ffn(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w1 = osc.constant dense<[[0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.28, 0.71, 0.19, -0.48, 0.00, 0.00, 0.00, 0.00], [-0.70, 0.64, 0.37, 0.57, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, -0.45, -0.99, 0.29, 0.44]]> : tensor<8x8xf32> loc("up_w")
  %b1 = osc.constant dense<0.5> : tensor<8xf32>
  %w2 = osc.constant dense<0.25> : tensor<8x8xf32>
  %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32> loc("up")
  %y = osc.inner_product %h, %w2 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32> loc("down")
  return %y : tensor<1x4x8xf32>
}

func.func @attention(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32> {
  %s = osc.matmul %q, %k transpose_b {scale = 0.125 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32> loc("scores")
  return %s : tensor<1x2x4x4xf32>
}
