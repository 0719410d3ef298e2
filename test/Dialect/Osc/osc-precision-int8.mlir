// int8 (issue 12): osc-precision with a calibration. Weights are quantized
// per row, symmetrically (scale = max |w| / 127); the input's u8 scale and
// zero point come from the calibrated range, widened to hold 0.
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json report}))' -mlir-print-debuginfo=false | FileCheck %s
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json calibration-method=percentile:99 report},osc-sparse-layout))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=PCT
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json keep-fp32=^down report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=KEEP
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=MM
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json report}))' | FileCheck %s --check-prefix=MMREPORT
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json keep-fp32=^scores report}))' | FileCheck %s --check-prefix=MMKEEP
// RUN: opscope-opt %s --mlir-disable-threading -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json weight-bits=7 report}))' -mlir-print-debuginfo=false | FileCheck %s --check-prefix=W7
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json weight-bits=6}))' 2>&1 | FileCheck %s --check-prefix=WBITS
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8}))' 2>&1 | FileCheck %s --check-prefix=NOCAL
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/missing.json}))' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%s}))' 2>&1 | FileCheck %s --check-prefix=NOTCAL
// RUN: not opscope-opt %s -pass-pipeline='builtin.module(func.func(osc-precision{precision=int8 calibration=%S/Inputs/ffn-calibration.json calibration-method=percentile:40}))' 2>&1 | FileCheck %s --check-prefix=METHOD

// "up" was calibrated to [-2, 6]: scale 8/255, zero point round(2 / (8/255))
// = 64. Its weight rows 5..7 have max |w| 0.71, 0.70 and 0.99: scales
// 0.71/127 etc.; row 5 (0.28, 0.71, 0.19, -0.48) quantizes to 50, 127, 34,
// -86 (0x32 7F 22 AA); all-zero rows get scale 1. "down" saw [0, 10]:
// scale 10/255, zero point 0.
// CHECK: osc-precision: int8 (calibration {{.*}}ffn-calibration.json, minmax), 2 of 2 inner products in int8, their weights 0.0 -> 0.0 MiB; 2 f32-to-u8 quantizations (one inside each int8 kernel; osc-int8-chains removes those between int8 ops)
// CHECK: %[[W1:.*]] = osc.constant dense_resource<up_w.s8> : tensor<8x8xi8>
// CHECK: osc.inner_product %arg0, %[[W1]] bias(%{{.*}}) post_ops [gelu_erf] {input_scale = 0.0313725509 : f32, input_zero_point = 64 : i32, weight_scales = array<f32: 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.00559055107, 0.005511811, 0.00779527565>} : (tensor<1x4x8xf32>, tensor<8x8xi8>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK: osc.inner_product {{.*}} {input_scale = 0.0392156877 : f32, input_zero_point = 0 : i32, weight_scales = array<f32: 0.00196850393,
// CHECK: up_w.s8: "0x40000000{{(00)+}}327F22AA00000000817443670000000000000000C6812538"

// weight-bits=7 (opscope-compile for a tier without VNNI, whose
// int8 kernels would saturate 8-bit weights): scales max |w| / 64, row 5
// quantizes to 25, 64, 17, -43 (0x19 40 11 D5), and the report says which
// form runs (docs/precision.md, int8 without VNNI).
// W7: osc-precision: int8 (calibration {{.*}}ffn-calibration.json, minmax), 2 of 2 inner products in int8
// W7-NEXT: osc-precision: int8 without VNNI on the target (8-bit weights would saturate): 2 inner products or convolutions with 7-bit weights ([-64, 64], :s8w7){{$}}
// W7: osc-precision: int8 (calibration {{.*}}), 0 of 0 inner products in int8
// W7-NEXT: osc-precision: int8 without VNNI on the target (8-bit weights would saturate): 1 matmuls with a 7-bit right operand (:s8w7){{$}}
// W7: osc.inner_product %arg0, {{.*}}weight_scales = array<f32: 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.0110937497, 1.093750e-02, 0.0154687501>}
// W7: up_w.s8: "0x40000000{{(00)+}}194011D500000000C03B22340000000000000000E3C0131C"
// WBITS: osc-precision: weight-bits must be 8 or 7, got 6

// percentile:99 of "down"'s histogram (0, 98, 1, 1 over [0, 10]) is 7.5
// (scale 7.5/255); of "up"'s flat one, -1.92 and 5.92 (scale 7.84/255, zero
// point 62). The sparse "up" packs its s8 values (the same bytes) into the
// blob (value type 1: s8) and keeps the input quantization.
// PCT: osc.sparse_inner_product %arg0, {{.*}}input_scale = 0.0307450984 : f32, input_zero_point = 62 : i32
// PCT: osc.inner_product {{.*}}input_scale = 0.0294117648 : f32, input_zero_point = 0 : i32
// PCT: up_w.s8.sparse1x4: "0x400000004F5343535052533101000000{{[0-9A-F]*}}327F22AA81744367C6812538

// KEEP: 1 of 2 inner products in int8 (1 kept in fp32 by keep-fp32)
// KEEP: osc.inner_product {{.*}} : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>

// Attention's matmuls (two activations, no calibration: quantized on each
// run from their ranges) go int8 where each quantized element feeds at
// least 64 products, M N / (M + N) >= 64: Q.K^T at sequence 128 (128 x 128
// / 256 = 64) does, P.V (128 x 64 / 192 = 42.7) stays fp32; keep-fp32
// keeps Q.K^T too.
// MM: func.func @attention
// MM: osc.matmul %arg0, %arg1 transpose_b {compute_int8, scale = 1.250000e-01 : f32}
// MM-NOT: compute_int8
// MM: return
// MMREPORT: 1 of 2 matmuls in int8 (quantized on each run from their operands' ranges), 1 fp32 (fewer than 64 products per quantized element)
// MMKEEP: 0 of 2 matmuls in int8 (quantized on each run from their operands' ranges), 1 fp32 (fewer than 64 products per quantized element)

// NOCAL: osc-precision: precision=int8 needs a calibration (opscope-compile --calibration-inputs DIR, or --calibration FILE)
// MISSING: osc-precision: cannot read the calibration '{{.*}}missing.json': No such file or directory
// NOTCAL: osc-precision: calibration '{{.*}}': not an opscope calibration (schema is not 'opscope-calibration')
// METHOD: osc-precision: calibration-method must be minmax or percentile:P with 50 < P <= 100, got 'percentile:40'

func.func @ffn(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w1 = osc.constant dense<[[0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00, 0.00], [0.28, 0.71, 0.19, -0.48, 0.00, 0.00, 0.00, 0.00], [-0.70, 0.64, 0.37, 0.57, 0.00, 0.00, 0.00, 0.00], [0.00, 0.00, 0.00, 0.00, -0.45, -0.99, 0.29, 0.44]]> : tensor<8x8xf32> loc("up_w")
  %b1 = osc.constant dense<0.5> : tensor<8xf32>
  %w2 = osc.constant dense<0.25> : tensor<8x8xf32>
  %h = osc.inner_product %x, %w1 bias(%b1) post_ops [gelu_erf] : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32> loc("up")
  %y = osc.inner_product %h, %w2 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32> loc("down")
  return %y : tensor<1x4x8xf32>
}

func.func @attention(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %s = osc.matmul %q, %k transpose_b {scale = 0.125 : f32} : (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) -> tensor<1x2x128x128xf32> loc("scores")
  %o = osc.matmul %s, %v : (tensor<1x2x128x128xf32>, tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> loc("context")
  return %o : tensor<1x2x128x64xf32>
}
