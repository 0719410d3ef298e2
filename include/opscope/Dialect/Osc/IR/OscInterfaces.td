//===- OscInterfaces.td - the op contract with the runtime -*- tablegen -*-===//
//
// Part of opscope. Every osc op that the runtime executes declares, through
// ExecutableOpInterface, the facts the passes after fusion need: the memory
// planner (in-place), the lowering (runtime kind, operand order, enums by
// name), the probe table and the fusion report (cost, weight, kernel
// family). No pass switches on op classes for these. ChannelsLastOpInterface
// is what osc-conv-layout asks of the ops it may run channels-last.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCINTERFACES_TD
#define OPSCOPE_DIALECT_OSC_IR_OSCINTERFACES_TD

include "mlir/IR/OpBase.td"

def Osc_ExecutableOpInterface : OpInterface<"ExecutableOpInterface"> {
  let cppNamespace = "::opscope::osc";
  let description = [{
    An op that runs one runtime kernel. Ops without it (constants, reshapes,
    probes, yields) are data, aliases or structure. The runtime kind names
    an entry of `runtime/include/opscope/runtime/kinds.def`, the table both
    sides of the ABI share; ops declare it with `Osc_ExecOp<..., "Kind">`.
  }];
  let methods = [
    StaticInterfaceMethod<
      "The runtime op kind (kinds.def) this op lowers to.",
      "::opscope::rt::OpKind", "getRuntimeKind", (ins), [{}],
      [{ return ConcreteOp::kRuntimeKind; }]>,
    InterfaceMethod<
      [{Operands in the runtime kernel's positional order. An absent optional
        operand is a null Value, so later operands keep their positions.}],
      "::llvm::SmallVector<::mlir::Value>", "getRuntimeOperands", (ins), [{}],
      [{ return ::llvm::SmallVector<::mlir::Value>($_op->getOperands()); }]>,
    InterfaceMethod<
      [{Appends the op's enumeration attributes as (attribute, case name)
        pairs: the plan carries enums by their kinds.def names.}],
      "void", "getRuntimeEnums",
      (ins "::llvm::SmallVectorImpl<std::pair<::llvm::StringRef, ::llvm::StringRef>> &":$enums),
      [{}], [{ return; /* no enumerations */ }]>,
    InterfaceMethod<
      "What reports add to the op name (`add` in `binary.add`), or empty.",
      "::llvm::StringRef", "getKindSuffix", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<
      [{The operand holding the op's weights (whether or not it is a
        constant), or null.}],
      "::mlir::Value", "getWeightOperand", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<
      [{Arithmetic operations per execution (a multiply-add counts two), or
        nullopt when unknown. The default charges kFlopsPerOutputElement for
        each element of the first result.}],
      "std::optional<double>", "getFlops", (ins), [{}], [{
        auto t = ::llvm::cast<::mlir::RankedTensorType>($_op->getResult(0).getType());
        return ConcreteOp::kFlopsPerOutputElement * t.getNumElements();
      }]>,
    InterfaceMethod<
      [{Bytes read and written per execution. The default counts every
        operand and result once, weights included.}],
      "double", "getBytesMoved", (ins), [{}],
      [{ return ::opscope::osc::operandAndResultBytes($_op); }]>,
    InterfaceMethod<
      [{The operand whose buffer the result may be written over, or -1. The
        kernel must read each element before writing the element at the same
        position (elementwise ops, a sum post-op). The planner still checks
        that this op is the operand's last reader and that sizes match.}],
      "int", "getInPlaceOperand", (ins), [{}], [{ return -1; }]>,
    InterfaceMethod<
      [{Data-dependent extents (docs/architecture.md, "Data-dependent output
        shapes"): the axis along which result `result` holds only a run-time
        number of entries (its type is the static bound), or -1 when the
        result is fully valid. Ops that set one return the number as their
        last result, a tensor<i64> (getExtent).}],
      "int64_t", "getExtentAxis", (ins "unsigned":$result), [{}],
      [{ return -1; }]>,
    InterfaceMethod<
      [{The tensor<i64> result holding the run-time extent of the results
        that getExtentAxis names, or null.}],
      "::mlir::Value", "getExtent", (ins), [{}], [{ return {}; }]>,
    InterfaceMethod<
      [{Whether this op, run over the whole bound of operand `operand` whose
        valid entries along `axis` are a run-time prefix, computes result 0
        correctly for that prefix (and only garbage beyond it): the axis of
        result 0 that then carries the extent, or -1 when it cannot (the
        compiler then refuses the model, naming this op).}],
      "int64_t", "propagateExtent",
      (ins "unsigned":$operand, "int64_t":$axis), [{}],
      [{ return -1; }]>
  ];
  let extraClassDeclaration = [{
    /// The kernel family reports show before the runtime picks an
    /// implementation (`onednn:inner_product`, `opscope:layer_norm`).
    const char *getKernelFamily() {
      return ::opscope::rt::kernelFamily(getRuntimeKind());
    }
  }];
}

def Osc_ChannelsLastOpInterface : OpInterface<"ChannelsLastOpInterface"> {
  let cppNamespace = "::opscope::osc";
  let description = [{
    An op that `osc-conv-layout` may run on channels-last buffers (`N x H x
    W x C` in memory) while its types stay `N x C x H x W`, so that a chain
    of convolutions passes activations in oneDNN's layout instead of
    reordering around each one. A convolution converts between the layouts
    itself (a flag per side); every other such op computes in whatever
    order its operands' buffers hold, so its operands and result share one
    layout. The pass asks only this interface, never op classes.
  }];
  let methods = [
    InterfaceMethod<
      [{Whether this op, with these operand and result types, can run
        channels-last at all (4-D activations of the element types its
        channels-last kernel takes).}],
      "bool", "canRunChannelsLast", (ins)>,
    InterfaceMethod<
      [{Whether the op reorders between the layouts itself (a convolution:
        it reads and writes either layout). Its result starts a chain and
        each of its flags set removes one reorder.}],
      "bool", "convertsLayout", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<
      [{How operand `operand`'s layout relates to result 0's: Free (the op
        reads it in either layout), Tied (in the result's layout) or Fixed
        (NCHW only: weights, biases).}],
      "::opscope::osc::ChannelsLastOperand", "getChannelsLastOperand",
      (ins "unsigned":$operand), [{}],
      [{ return ::opscope::osc::ChannelsLastOperand::Tied; }]>,
    InterfaceMethod<
      [{Sets the op's layout flags from the values the pass keeps
        channels-last (`isChannelsLast`); returns the number of reorders
        that removes (a flag on a converting op: one each).}],
      "unsigned", "setChannelsLast",
      (ins "::llvm::function_ref<bool(::mlir::Value)>":$isChannelsLast),
      [{}], [{ return 0; /* no flag: the kernel follows its buffers */ }]>
  ];
}

#endif // OPSCOPE_DIALECT_OSC_IR_OSCINTERFACES_TD
