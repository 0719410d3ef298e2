// RUN: opscope-opt %s -split-input-file -osc-fusion-report -o /dev/null | FileCheck %s
// Cost facts ops declare through ExecutableOpInterface, as the report (and
// the probe table) shows them.

// An embedding lookup reads the 128 selected rows, not the 30522x768 table:
// indices 1*128*8 + rows read 128*768*4 + output written 128*768*4.
// CHECK-LABEL: type
// CHECK-NEXT: gather {{.*}} 0 787456 opscope:gather
func.func @embedding(%ids: tensor<1x128xi64>) -> tensor<1x128x768xf32> {
  %t = osc.constant dense<1.0> : tensor<30522x768xf32>
  %e = osc.gather %t[%ids] {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  return %e : tensor<1x128x768xf32>
}

// -----

// Elementwise ops charge one FLOP per output element and every operand and
// result once: 2*8*4 bytes each.
// CHECK-LABEL: type
// CHECK-NEXT: binary.add {{.*}} 8 96 opscope:binary
// CHECK-NEXT: gelu.tanh {{.*}} 64 64 opscope:gelu
func.func @elementwise(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = osc.binary add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %g = osc.gelu tanh %s : tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}
