//===- KindsTableTest.cpp - the dialect against the kinds table -----------===//
//
// Part of opscope. The compiler writes op kinds and enum cases into the plan
// by name; the runtime reads them back through kinds.def. These tests prove
// that every executed osc op and every ODS enum case has its entry in the
// table, and that every table entry has its op or case in the dialect.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/runtime/kinds.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mlir;
using namespace opscope;

namespace {

/// Every case of an ODS enum (0..max) has a table case of the same name,
/// and every table case names an ODS case.
template <typename RtEnum, typename OdsEnum>
void expectSameCases(const char *what, uint64_t maxOds,
                     std::optional<OdsEnum> (*symbolize)(uint32_t),
                     std::optional<OdsEnum> (*symbolizeName)(llvm::StringRef),
                     llvm::StringRef (*stringify)(OdsEnum)) {
  std::set<std::string> ods;
  for (uint32_t i = 0; i <= maxOds; ++i) {
    auto c = symbolize(i);
    ASSERT_TRUE(c) << what << " case " << i << " missing in ODS";
    std::string name = stringify(*c).str();
    ods.insert(name);
    EXPECT_TRUE(rt::parseKind<RtEnum>(name))
        << what << " '" << name << "' is in OscBase.td but not in kinds.def";
  }
  for (size_t i = 0; i < rt::KindTraits<RtEnum>::size; ++i) {
    const char *name = rt::KindTraits<RtEnum>::names[i];
    EXPECT_TRUE(symbolizeName(name))
        << what << " '" << name << "' is in kinds.def but not in OscBase.td";
    EXPECT_EQ(rt::kindName(static_cast<RtEnum>(i)), std::string(name));
  }
  EXPECT_EQ(ods.size(), rt::KindTraits<RtEnum>::size) << what;
}

TEST(KindsTable, EnumCasesMatchBothWays) {
  using namespace osc;
  expectSameCases<rt::UnaryKind, UnaryKind>(
      "unary kind", getMaxEnumValForUnaryKind(), symbolizeUnaryKind,
      symbolizeUnaryKind, stringifyUnaryKind);
  expectSameCases<rt::BinaryKind, BinaryKind>(
      "binary kind", getMaxEnumValForBinaryKind(), symbolizeBinaryKind,
      symbolizeBinaryKind, stringifyBinaryKind);
  expectSameCases<rt::CompareKind, CompareKind>(
      "compare kind", getMaxEnumValForCompareKind(), symbolizeCompareKind,
      symbolizeCompareKind, stringifyCompareKind);
  expectSameCases<rt::ReduceKind, ReduceKind>(
      "reduce kind", getMaxEnumValForReduceKind(), symbolizeReduceKind,
      symbolizeReduceKind, stringifyReduceKind);
  expectSameCases<rt::PoolKind, PoolKind>(
      "pool kind", getMaxEnumValForPoolKind(), symbolizePoolKind,
      symbolizePoolKind, stringifyPoolKind);
  expectSameCases<rt::GeluKind, GeluApproximation>(
      "gelu approximation", getMaxEnumValForGeluApproximation(),
      symbolizeGeluApproximation, symbolizeGeluApproximation,
      stringifyGeluApproximation);
  expectSameCases<rt::PostOpKind, PostOpKind>(
      "post-op", getMaxEnumValForPostOpKind(), symbolizePostOpKind,
      symbolizePostOpKind, stringifyPostOpKind);
  expectSameCases<rt::PadMode, PadMode>("pad mode", getMaxEnumValForPadMode(),
                                        symbolizePadMode, symbolizePadMode,
                                        stringifyPadMode);
  expectSameCases<rt::ResizeMode, ResizeMode>(
      "resize mode", getMaxEnumValForResizeMode(), symbolizeResizeMode,
      symbolizeResizeMode, stringifyResizeMode);
  expectSameCases<rt::CoordinateTransform, CoordinateTransform>(
      "coordinate transformation", getMaxEnumValForCoordinateTransform(),
      symbolizeCoordinateTransform, symbolizeCoordinateTransform,
      stringifyCoordinateTransform);
  expectSameCases<rt::NearestMode, NearestMode>(
      "nearest mode", getMaxEnumValForNearestMode(), symbolizeNearestMode,
      symbolizeNearestMode, stringifyNearestMode);
  expectSameCases<rt::RnnCell, RnnCell>("rnn cell", getMaxEnumValForRnnCell(),
                                        symbolizeRnnCell, symbolizeRnnCell,
                                        stringifyRnnCell);
  expectSameCases<rt::ScatterReduction, ScatterReduction>(
      "scatter reduction", getMaxEnumValForScatterReduction(),
      symbolizeScatterReduction, symbolizeScatterReduction,
      stringifyScatterReduction);
  expectSameCases<rt::TfIdfMode, TfIdfMode>(
      "tf-idf mode", getMaxEnumValForTfIdfMode(), symbolizeTfIdfMode,
      symbolizeTfIdfMode, stringifyTfIdfMode);
}

/// Every executed osc op declares a runtime kind named like the op, each
/// kind has exactly one op, and the ops without the interface are the
/// documented non-executed ones.
TEST(KindsTable, ExecutedOpsMatchOpKinds) {
  MLIRContext context;
  context.loadDialect<osc::OscDialect>();
  std::set<std::string> covered, notExecuted;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "osc")
      continue;
    std::string mnemonic = name.stripDialect().str();
    auto *iface = name.getInterface<osc::ExecutableOpInterface>();
    if (!iface) {
      notExecuted.insert(mnemonic);
      continue;
    }
    rt::OpKind kind = iface->getRuntimeKind();
    EXPECT_EQ(std::string(rt::kindName(kind)), mnemonic)
        << "osc." << mnemonic << " declares runtime kind "
        << rt::kindName(kind);
    EXPECT_TRUE(covered.insert(rt::kindName(kind)).second)
        << "two ops declare runtime kind " << rt::kindName(kind);
  }
  for (size_t i = 0; i < rt::KindTraits<rt::OpKind>::size; ++i)
    EXPECT_TRUE(covered.count(rt::KindTraits<rt::OpKind>::names[i]))
        << "kinds.def op kind '" << rt::KindTraits<rt::OpKind>::names[i]
        << "' has no executed osc op";
  EXPECT_EQ(notExecuted,
            (std::set<std::string>{"constant", "reshape", "probe", "yield",
                                   "if", "loop"}));
}

/// The op attributes of the plan (attrs.def) against ODS, both ways: every
/// entry names an inherent attribute of its kind's op, and every inherent
/// attribute of an executed op has an entry (read by the runtime, or
/// carried by the plan only). The runtime's direction is OpContext's: it
/// refuses to read an attribute attrs.def does not list for the kind.
TEST(KindsTable, OpAttributesMatchBothWays) {
  MLIRContext context;
  context.loadDialect<osc::OscDialect>();
  std::set<std::pair<std::string, std::string>> table;
  for (const rt::OpAttr &a : rt::kOpAttrs) {
    std::string op = rt::kindName(a.kind);
    EXPECT_TRUE(table.insert({op, a.name}).second)
        << "attrs.def lists osc." << op << " '" << a.name << "' twice";
  }
  std::set<std::pair<std::string, std::string>> ods;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "osc" ||
        !name.getInterface<osc::ExecutableOpInterface>())
      continue;
    std::string op = name.stripDialect().str();
    for (StringAttr attr : name.getAttributeNames()) {
      // Variadic operand groups' sizes: structure, not an attribute.
      if (attr.getValue() == "operandSegmentSizes" ||
          attr.getValue() == "resultSegmentSizes")
        continue;
      ods.insert({op, attr.str()});
      EXPECT_TRUE(table.count({op, attr.str()}))
          << "osc." << op << " has attribute '" << attr.str()
          << "' in ODS but no entry in attrs.def (OPSCOPE_OP_ATTR if the "
             "runtime reads it, else OPSCOPE_PLAN_ONLY_ATTR)";
    }
  }
  for (const auto &[op, attr] : table)
    EXPECT_TRUE(ods.count({op, attr}))
        << "attrs.def lists '" << attr << "' for osc." << op
        << ", which ODS does not declare";
}

/// OpContext's side of the contract: the runtime's lookup accepts the
/// table's read attributes only, per kind.
TEST(KindsTable, RuntimeReadsOnlyListedAttributes) {
  EXPECT_TRUE(rt::runtimeReadsAttr(rt::OpKind::Softmax, "axis"));
  EXPECT_FALSE(rt::runtimeReadsAttr(rt::OpKind::Softmax, "epsilon"));
  EXPECT_FALSE(rt::runtimeReadsAttr(rt::OpKind::Where, "axis"));
  // Carried by the plan, not read.
  EXPECT_FALSE(rt::runtimeReadsAttr(rt::OpKind::Reduce, "keep_dims"));
}

} // namespace
