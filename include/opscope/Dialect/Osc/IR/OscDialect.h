//===- OscDialect.h - osc dialect declaration -------------------*- C++ -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCDIALECT_H
#define OPSCOPE_DIALECT_OSC_IR_OSCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "opscope/Dialect/Osc/IR/OscDialect.h.inc"

#endif // OPSCOPE_DIALECT_OSC_IR_OSCDIALECT_H
