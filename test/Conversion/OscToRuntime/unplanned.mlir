// RUN: opscope-opt %s -convert-osc-to-runtime -split-input-file -verify-diagnostics

// expected-error @+1 {{convert-osc-to-runtime needs a planned module: run osc-plan-memory first}}
module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = osc.unary relu %x : tensor<4xf32>
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{convert-osc-to-runtime expects exactly one function}}
module {
}
