// RUN: opscope-opt %s --mlir-print-debuginfo=false -osc-insert-probes -osc-plan-memory -convert-osc-to-runtime | FileCheck %s

// An osc.loop with an osc.if in its body: the plan lists both under
// "controls" (schedule order: the loop, then the if), and the schedule is
// compiled into a loop (header asking LOOP_TEST = 4, body, LOOP_NEXT = 5,
// exit with LOOP_END = 6) around a diamond (IF_COND = 0, then ... IF_THEN_END
// = 1, else ... IF_ELSE_END = 2) around the ops' exec calls, in both the
// plain and the profiled copy.
// CHECK: @opscope_model_plan("{\22abi\22:3,\22arena_bytes\22:{{[0-9]+}},\22controls\22:[{\22args\22:[{{.*}}],\22cond\22:{\22mem\22:\22none\22},\22inits\22:[{{.*}}],\22kind\22:\22loop\22,\22max_trip_count\22:{\22dtype\22:\22i64\22,\22mem\22:\22arena\22,{{.*}}\22name\22:\22loop\22,{{.*}}{\22cond\22:{\22dtype\22:\22i1\22,{{.*}}\22else_yields\22:[{{.*}}],\22kind\22:\22if\22,\22name\22:\22parity\22,
// CHECK: func.func private @opscope_rt_control(!llvm.ptr, i32, i32) -> i32
// CHECK: func.func @opscope_model_run
// CHECK: ^[[PLAIN:bb[0-9]+]]:
// CHECK: %[[L:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[BEGIN:.*]] = arith.constant 3 : i32
// CHECK-NEXT: call @opscope_rt_control(%{{.*}}, %[[L]], %[[BEGIN]])
// CHECK-NEXT: cf.br ^[[HEADER:bb[0-9]+]]
// CHECK: ^[[HEADER]]:
// CHECK: %[[TEST:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[AGAIN:.*]] = call @opscope_rt_control(%{{.*}}, %{{.*}}, %[[TEST]])
// CHECK-NEXT: %[[GO:.*]] = arith.cmpi ne, %[[AGAIN]]
// CHECK-NEXT: cf.cond_br %[[GO]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: call @opscope_rt_exec
// CHECK: call @opscope_rt_exec
// CHECK-NEXT: %[[C:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[COND:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[B:.*]] = call @opscope_rt_control(%{{.*}}, %[[C]], %[[COND]])
// CHECK-NEXT: %[[T:.*]] = arith.cmpi ne, %[[B]]
// CHECK-NEXT: cf.cond_br %[[T]], ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[END:.*]] = arith.constant 6 : i32
// CHECK-NEXT: call @opscope_rt_control(%{{.*}}, %{{.*}}, %[[END]])
// CHECK: call @opscope_rt_exec
// CHECK: return
// CHECK: ^[[THEN]]:
// CHECK-NEXT: arith.constant
// CHECK-NEXT: call @opscope_rt_exec
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[TE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @opscope_rt_control(%{{.*}}, %{{.*}}, %[[TE]])
// CHECK-NEXT: cf.br ^[[JOIN:bb[0-9]+]]
// CHECK: ^[[ELSE]]:
// CHECK-NEXT: arith.constant
// CHECK-NEXT: call @opscope_rt_exec
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[EE:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @opscope_rt_control(%{{.*}}, %{{.*}}, %[[EE]])
// CHECK-NEXT: cf.br ^[[JOIN]]
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[NEXT:.*]] = arith.constant 5 : i32
// CHECK-NEXT: call @opscope_rt_control(%{{.*}}, %{{.*}}, %[[NEXT]])
// CHECK-NEXT: cf.br ^[[HEADER]]
// The profiled copy has the probes, inside the regions too.
// CHECK: call @opscope_rt_probe_begin
module attributes {osc.model = "nested"} {
  func.func @main(%n: tensor<i64> {osc.name = "n"}, %x: tensor<4xf32> {osc.name = "x"}) -> (tensor<4xf32> {osc.name = "y"}) {
    %two = osc.constant dense<2> : tensor<i64> loc("two")
    %zero = osc.constant dense<0> : tensor<i64> loc("zero")
    %r = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
      %m = osc.binary mod %i, %two : (tensor<i64>, tensor<i64>) -> tensor<i64> loc("mod")
      %e = osc.compare eq %m, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1> loc("even")
      %s = osc.if %e : tensor<i1> -> tensor<4xf32> {
        %t = osc.unary tanh %v : tensor<4xf32> loc("then_tanh")
        osc.yield %t : tensor<4xf32>
      } else {
        %u = osc.unary neg %v : tensor<4xf32> loc("else_neg")
        osc.yield %u : tensor<4xf32>
      } loc("parity")
      osc.yield %c, %s : tensor<i1>, tensor<4xf32>
    } loc("loop")
    %y = osc.unary relu %r : tensor<4xf32> loc("relu")
    return %y : tensor<4xf32>
  }
}
