//===- ONNXOps.cpp - ONNX node to osc op converters -----------------------===//
//
// Part of opscope. One converter per ONNX op type, registered by family
// (one file each: ONNXElementwise, ONNXCompute, ONNXReductions,
// ONNXDataMovement, ONNXPadResize, ONNXConstants). Converters compute result
// shapes themselves (every shape is static after input binding), build osc
// ops with createOrFold so shape sub-graphs fold as they are imported, and
// report unsupported attribute combinations as errors naming the node.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace opscope::onnx_import;

const llvm::StringMap<Converter> &opscope::onnx_import::converters() {
  static const llvm::StringMap<Converter> table = [] {
    llvm::StringMap<Converter> m;
    addElementwiseConverters(m);
    addComputeConverters(m);
    addReductionConverters(m);
    addDataMovementConverters(m);
    addIndexingConverters(m);
    addPadResizeConverters(m);
    addConstantConverters(m);
    addQuantConverters(m);
    addRecurrentConverters(m);
    addLossConverters(m);
    addVisionConverters(m);
    addLinalgConverters(m);
    addSignalConverters(m);
    addRandomConverters(m);
    // `Constant` is handled by the graph importer, which owns tensor decoding.
    m["Constant"] = nullptr;
    // `If` too: it inlines the branch a constant condition selects.
    m["If"] = nullptr;
    // `Loop` too: its body is imported by the graph importer.
    m["Loop"] = nullptr;
    // `Scan` too: an osc.loop over its static length.
    m["Scan"] = nullptr;
    return m;
  }();
  return table;
}
