// RUN: opscope-opt %s -osc-insert-probes | FileCheck %s --check-prefix=ALL
// RUN: opscope-opt %s -osc-insert-probes -osc-insert-probes | FileCheck %s --check-prefix=ALL
// RUN: opscope-opt %s -osc-insert-probes="types=softmax,binary" | FileCheck %s --check-prefix=TYPES
// RUN: opscope-opt %s -osc-insert-probes="names=ffn" | FileCheck %s --check-prefix=NAMES
// RUN: opscope-opt %s -osc-insert-probes="exclude-types=unary.relu exclude-names=^attn" | FileCheck %s --check-prefix=EXCL
// RUN: not opscope-opt %s -osc-insert-probes="names=(" 2>&1 | FileCheck %s --check-prefix=BADRE

// Every executed op gets a probe named after its first source node, with
// dense ids in execution order; constants and reshapes get none. Running the
// pass twice changes nothing.
// ALL-LABEL: func.func @model
// ALL: osc.constant
// ALL-NOT: osc.probe
// ALL: %[[P0:.*]] = osc.probe 0 "attn/softmax" -> tensor<2x8xf32> {
// ALL-NEXT: %[[S:.*]] = osc.softmax
// ALL-NEXT: osc.yield %[[S]] : tensor<2x8xf32>
// ALL-NEXT: }
// ALL: %[[P1:.*]] = osc.probe 1 "ffn/add" -> tensor<2x8xf32> {
// ALL-NEXT: osc.binary add %[[P0]]
// ALL: %[[R:.*]] = osc.reshape %[[P1]]
// ALL: osc.probe 2 "ffn/relu"
// ALL-NEXT: osc.unary relu %[[R]]
// ALL-NOT: osc.probe 3

// TYPES: osc.probe 0 "attn/softmax"
// TYPES: osc.probe 1 "ffn/add"
// TYPES-NOT: osc.probe 2

// NAMES-NOT: "attn/softmax"
// NAMES: osc.probe 0 "ffn/add"
// NAMES: osc.probe 1 "ffn/relu"

// EXCL-NOT: "attn/softmax"
// EXCL: osc.probe 0 "ffn/add"
// EXCL-NOT: osc.probe 1

// BADRE: error: osc-insert-probes: invalid names regex '('
// A bad option is reported once, without a dump of the whole function.
// BADRE-NOT: func.func
// BADRE-NOT: see current operation

func.func @model(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  %b = osc.constant dense<1.0> : tensor<8xf32> loc("bias")
  %s = osc.softmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("attn/softmax")
  %a = osc.binary add %s, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> loc("ffn/add")
  %r = osc.reshape %a : tensor<2x8xf32> -> tensor<16xf32> loc("ffn/reshape")
  %y = osc.unary relu %r : tensor<16xf32> loc("ffn/relu")
  return %y : tensor<16xf32>
}
