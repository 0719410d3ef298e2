// RUN: opscope-opt %s -split-input-file -osc-fold-constants | FileCheck %s --check-prefix=FOLD
// RUN: opscope-opt %s -split-input-file -osc-plan-memory | FileCheck %s --check-prefix=PLAN

// An osc.if whose condition folds to a constant is replaced by the region it
// takes (here the else region: 2 > 3 is false); the other region is gone.
// FOLD-LABEL: func.func @constant_if
// FOLD-NOT: osc.if
// FOLD-NOT: relu
// FOLD: %[[N:.*]] = osc.unary neg %arg0
// FOLD-NEXT: return %[[N]]
func.func @constant_if(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = osc.constant dense<2> : tensor<i64>
  %b = osc.constant dense<3> : tensor<i64>
  %c = osc.compare gt %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = osc.if %c : tensor<i1> -> tensor<4xf32> {
    %t = osc.unary relu %x : tensor<4xf32>
    osc.yield %t : tensor<4xf32>
  } else {
    %e = osc.unary neg %x : tensor<4xf32>
    osc.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A run-time condition stays an osc.if. Planning: the If's result gets its
// own buffer (offsets), live across both regions, which reuse each other's
// space (then before else in schedule order).
// FOLD-LABEL: func.func @runtime_if
// FOLD: osc.if %arg0
// PLAN-LABEL: func.func @runtime_if
// PLAN-SAME: osc.arg_offsets = array<i64: 0, 64>
// PLAN: osc.if %arg0 : tensor<i1> -> tensor<4xf32> {
// PLAN: osc.unary relu %arg1 {{{.*}}osc.offset = 192 : i64}
// PLAN: } else {
// PLAN: osc.unary neg %arg1 {{{.*}}osc.offset = 192 : i64}
// PLAN: } {osc.offsets = array<i64: 128>}
func.func @runtime_if(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = osc.if %c : tensor<i1> -> tensor<4xf32> {
    %t = osc.unary relu %x : tensor<4xf32>
    osc.yield %t : tensor<4xf32>
  } else {
    %e = osc.unary neg %x : tensor<4xf32>
    osc.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop's body arguments (iteration, condition, carried value) get buffers
// live for the whole loop (osc.arg_offsets on the loop), apart from its
// result. %y, defined before the loop and read in the body, is read by every
// iteration: the body's ops must not take its buffer in place although the
// body holds its last reader (its offset 128 is not reused inside).
// PLAN-LABEL: func.func @loop
// PLAN: %[[Y:.*]] = osc.unary relu %arg1 {{{.*}}osc.offset = 128 : i64}
// PLAN: osc.loop max_trip_count(%arg0 : tensor<i64>) iter_args(%arg1 : tensor<4xf32>)
// PLAN: osc.binary add %{{.*}}, %[[Y]]
// PLAN-NOT: osc.offset = 128 :
// PLAN: osc.yield
// PLAN: } {osc.arg_offsets = array<i64: [[I:[0-9]+]], [[C:[0-9]+]], [[X:[0-9]+]]>, osc.offsets = array<i64: [[R:[0-9]+]]>}
func.func @loop(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = osc.unary relu %x : tensor<4xf32>
  %r = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<4xf32>):
    %s = osc.binary add %v, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = osc.unary tanh %s : tensor<4xf32>
    osc.yield %cin, %t : tensor<i1>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----
// A loop with a scan output (a Scan, or a Loop with a constant trip count):
// the stacked result (3 rows of 4 f32, 48 bytes) gets a buffer of its own,
// live from the loop's start, apart from the row the body yields.
// PLAN-LABEL: func.func @scan_output
// PLAN: osc.loop max_trip_count(%{{.*}} : tensor<i64>) iter_args(%arg0 : tensor<4xf32>) -> tensor<4xf32>, tensor<3x4xf32>
// PLAN: %[[ROW:.*]] = osc.unary tanh %{{.*}} {{{.*}}osc.offset = [[ROWOFF:[0-9]+]] : i64}
// PLAN: osc.yield %{{.*}}, %[[ROW]], %[[ROW]]
// PLAN: } {osc.arg_offsets = array<i64: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}>, osc.offsets = array<i64: [[R0:[0-9]+]], [[R1:[0-9]+]]>}
// PLAN-NOT: osc.offset = [[R1]] :
func.func @scan_output(%x: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %n = osc.constant dense<3> : tensor<i64>
  %r:2 = osc.loop max_trip_count(%n : tensor<i64>) iter_args(%x : tensor<4xf32>) -> tensor<4xf32>, tensor<3x4xf32> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<4xf32>):
    %row = osc.gather %xs[%i] : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
    %s = osc.binary add %v, %row : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = osc.unary tanh %s : tensor<4xf32>
    osc.yield %cin, %t, %t : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<3x4xf32>
}
