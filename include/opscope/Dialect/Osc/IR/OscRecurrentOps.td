//===- OscRecurrentOps.td - the osc recurrent layer op -----*- tablegen -*-===//
//
// Part of opscope. Included by OscOps.td (which defines Osc_ExecOp); split
// from it to keep each file readable.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Recurrent layers (ONNX LSTM, GRU, RNN)
//===----------------------------------------------------------------------===//

def Osc_RnnOp : Osc_ExecOp<"rnn", "Rnn", [Pure, AttrSizedOperandSegments],
    ["getRuntimeOperands", "getRuntimeEnums", "getKindSuffix",
     "getWeightOperand", "getFlops"]> {
  let summary = "LSTM, GRU or simple RNN layer over a whole sequence";
  let description = [{
    ONNX `LSTM`, `GRU` and `RNN` semantics. `input` is
    `seq x batch x input_size` (`batch x seq x input_size` with
    `batch_first`, ONNX `layout = 1`). `weight` is
    `directions x gates*hidden x input_size`, `recurrence`
    `directions x gates*hidden x hidden`, with ONNX's gate order (LSTM
    `i o f c`, GRU `z r h`, RNN one gate); `bias` is
    `directions x 2*gates*hidden` (input then recurrence bias). Optional
    `sequence_lens` (`batch`), initial states (`directions x batch x hidden`,
    `batch x directions x hidden` with `batch_first`) and LSTM `peepholes`
    (`directions x 3*hidden`, order `i o f`).

    Two directions run forward then backward (`bidirectional`); one runs
    forward, or backward with `reverse`. `activations` names each
    direction's functions in ONNX order (LSTM f g h, GRU f g, RNN f) by
    their runtime names (kinds.def `OPSCOPE_RNN_ACTIVATION`), with one
    alpha and beta each. `clip` bounds gate pre-activations;
    `input_forget` couples LSTM's forget gate to `1 - i`;
    `linear_before_reset` is GRU's variant that applies the reset gate
    after the recurrence product.

    Results: every hidden state (`seq x directions x batch x hidden`, or
    `batch x seq x directions x hidden`; zero past a sequence's length),
    the last hidden state and, for LSTM, the last cell state (initial-state
    layout).

    ```mlir
    %y, %h, %c = osc.rnn lstm %x, %w, %r bias(%b) initial_h(%h0) initial_c(%c0)
        {hidden_size = 64 : i64, activations = ["sigmoid", "tanh", "tanh"],
         activation_alpha = array<f32: 0.0, 0.0, 0.0>,
         activation_beta = array<f32: 0.0, 0.0, 0.0>}
        : (tensor<10x1x32xf32>, tensor<1x256x32xf32>, tensor<1x256x64xf32>,
           tensor<1x512xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
        -> (tensor<10x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
    ```
  }];
  let arguments = (ins Osc_RnnCell:$cell, Osc_FloatTensor:$input,
      Osc_FloatTensor:$weight, Osc_FloatTensor:$recurrence,
      Optional<Osc_FloatTensor>:$bias,
      Optional<Osc_IndexTensor>:$sequence_lens,
      Optional<Osc_FloatTensor>:$initial_h,
      Optional<Osc_FloatTensor>:$initial_c,
      Optional<Osc_FloatTensor>:$peepholes,
      I64Attr:$hidden_size, StrArrayAttr:$activations,
      DenseF32ArrayAttr:$activation_alpha, DenseF32ArrayAttr:$activation_beta,
      OptionalAttr<F32Attr>:$clip, UnitAttr:$reverse, UnitAttr:$batch_first,
      UnitAttr:$input_forget, UnitAttr:$linear_before_reset);
  let results = (outs Osc_FloatTensor:$output, Osc_FloatTensor:$output_h,
                      Optional<Osc_FloatTensor>:$output_c);
  let assemblyFormat = [{
    $cell $input `,` $weight `,` $recurrence (`bias` `(` $bias^ `)`)?
    (`sequence_lens` `(` $sequence_lens^ `)`)?
    (`initial_h` `(` $initial_h^ `)`)? (`initial_c` `(` $initial_c^ `)`)?
    (`peepholes` `(` $peepholes^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}
