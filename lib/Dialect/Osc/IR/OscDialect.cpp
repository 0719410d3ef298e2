//===- OscDialect.cpp - osc dialect registration --------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"

// The generated attribute parser and printer use both.
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace opscope::osc;

#include "opscope/Dialect/Osc/IR/OscDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "opscope/Dialect/Osc/IR/OscAttrs.cpp.inc"

void OscDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "opscope/Dialect/Osc/IR/OscOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "opscope/Dialect/Osc/IR/OscAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PostOpAttr
//===----------------------------------------------------------------------===//

int PostOpAttr::parameterCount(PostOpKind kind) {
  // The dialect's and the runtime's post-op kinds share names
  // (KindsTableTest).
  auto rt = opscope::rt::parseKind<opscope::rt::PostOpKind>(
      stringifyPostOpKind(kind).str());
  return rt ? opscope::rt::postOpParameters(*rt) : 0;
}

PostOpAttr PostOpAttr::get(MLIRContext *ctx, PostOpKind kind, double alpha,
                           double beta) {
  int n = parameterCount(kind);
  auto f32 = Float32Type::get(ctx);
  return get(ctx, kind, n > 0 ? FloatAttr::get(f32, alpha) : FloatAttr(),
             n > 1 ? FloatAttr::get(f32, beta) : FloatAttr());
}

LogicalResult
PostOpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   PostOpKind kind, FloatAttr alpha, FloatAttr beta) {
  int n = parameterCount(kind);
  int given = (alpha ? 1 : 0) + (beta ? 1 : 0);
  if ((beta && !alpha) || given != n)
    return emitError() << "post-op '" << stringifyPostOpKind(kind)
                       << "' takes " << n << " parameter(s), " << given
                       << " given";
  for (FloatAttr f : {alpha, beta})
    if (f && (!f.getType().isF32() || !f.getValue().isFinite()))
      return emitError() << "post-op '" << stringifyPostOpKind(kind)
                         << "' parameters must be finite f32";
  if (kind == PostOpKind::clip &&
      alpha.getValueAsDouble() > beta.getValueAsDouble())
    return emitError() << "post-op 'clip' needs min <= max";
  return success();
}

Operation *OscDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
