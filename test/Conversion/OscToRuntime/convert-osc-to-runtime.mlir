// RUN: opscope-opt %s --mlir-print-debuginfo=false -osc-insert-probes -osc-plan-memory -convert-osc-to-runtime | FileCheck %s
// RUN: opscope-opt %s --mlir-print-debuginfo=false -osc-insert-probes -osc-plan-memory -osc-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// The model function becomes the ABI globals and a schedule: a plain copy
// and, when profiling is requested, one with probes around each op.
// CHECK-LABEL: module
// CHECK-NOT: = osc.
// CHECK: llvm.mlir.global external constant @opscope_abi_version(3 : i32)
// CHECK: llvm.mlir.global external constant @opscope_model_plan("{\22abi\22:3,\22arena_bytes\22:128,
// CHECK-SAME: \22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22offset\22:0,\22shape\22:[4,4]}]
// CHECK-SAME: \22model\22:\22tiny\22
// CHECK-SAME: {\22attrs\22:{\22kind\22:\22relu\22},\22kind\22:\22unary\22,\22live_bytes\22:128,\22name\22:\22relu\22
// CHECK-SAME: {\22attrs\22:{\22kind\22:\22mul\22},\22kind\22:\22binary\22,\22live_bytes\22:128,\22name\22:\22scale\22,\22operands\22:[{\22dtype\22:\22f32\22,\22mem\22:\22arena\22,\22offset\22:64,\22shape\22:[16]},{\22dtype\22:\22f32\22,\22mem\22:\22weight\22,\22offset\22:64,\22shape\22:[16]}]
// CHECK-SAME: \22outputs\22:[{\22buffer\22:{\22dtype\22:\22f32\22,\22mem\22:\22arena\22,\22offset\22:64,\22shape\22:[16]},\22dtype\22:\22f32\22,\22name\22:\22y\22
// CHECK-SAME: \22probes\22:[{\22block_sparsity\22:null,\22bytes\22:128,
// CHECK-SAME: \22id\22:0,\22input_scale\22:null,\22input_zero_point\22:null,\22inputs\22:[{\22dtype\22:\22f32\22,\22name\22:\22x\22,\22shape\22:[4,4]}],\22kernel\22:\22opscope:unary\22,\22live_bytes\22:128,
// CHECK-SAME: \22weights\22:{\22file_bytes\22:128,\22id\22:
// CHECK: func.func private @opscope_rt_exec(!llvm.ptr, i32)
// CHECK: func.func private @opscope_rt_probe_begin(!llvm.ptr, i32)
// CHECK: func.func private @opscope_rt_probe_end(!llvm.ptr, i32)
// CHECK: func.func @opscope_model_run(%[[CTX:.*]]: !llvm.ptr, %[[PROF:.*]]: i32)
// CHECK: %[[ON:.*]] = arith.cmpi ne, %[[PROF]]
// CHECK: cf.cond_br %[[ON]], ^[[PROFILED:.*]], ^[[PLAIN:.*]]
// CHECK: ^[[PLAIN]]:
// CHECK: call @opscope_rt_exec(%[[CTX]], %{{.*}})
// CHECK: call @opscope_rt_exec(%[[CTX]], %{{.*}})
// CHECK-NOT: call
// CHECK: return
// CHECK: ^[[PROFILED]]:
// CHECK: call @opscope_rt_probe_begin
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: call @opscope_rt_exec
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: call @opscope_rt_probe_end
// CHECK: call @opscope_rt_probe_begin
// CHECK: call @opscope_rt_exec
// CHECK: call @opscope_rt_probe_end
// CHECK: return

// LLVM: llvm.func @opscope_model_run(%{{.*}}: !llvm.ptr, %{{.*}}: i32)
// LLVM: llvm.call @opscope_rt_exec
module attributes {osc.model = "tiny"} {
  func.func @main(%x: tensor<4x4xf32> {osc.name = "x"}) -> (tensor<16xf32> {osc.name = "y"}) {
    %w = osc.constant dense<2.0> : tensor<16xf32> loc("w")
    %a = osc.unary relu %x : tensor<4x4xf32> loc("relu")
    %r = osc.reshape %a : tensor<4x4xf32> -> tensor<16xf32> loc("flatten")
    %y = osc.binary mul %r, %w : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("scale")
    return %y : tensor<16xf32>
  }
}
