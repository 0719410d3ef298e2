//===- OscDialect.cpp - osc dialect registration --------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"

using namespace mlir;
using namespace opscope::osc;

#include "opscope/Dialect/Osc/IR/OscDialect.cpp.inc"

void OscDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "opscope/Dialect/Osc/IR/OscOps.cpp.inc"
      >();
}

Operation *OscDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
