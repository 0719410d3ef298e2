//===- Precision.cpp - osc-precision --------------------------------------===//
//
// Part of opscope. `--precision bf16|int8`: inner products compute in bf16
// or int8 with their weights converted once, at compile time; int8 takes
// its activation ranges from a calibration (calibration.h). See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include "opscope/runtime/calibration.h"
#include "opscope/runtime/sparse_format.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>

namespace opscope::osc {
#define GEN_PASS_DEF_OSCPRECISION
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
struct PrecisionPass : osc::impl::OscPrecisionBase<PrecisionPass> {
  using OscPrecisionBase::OscPrecisionBase;

  /// Inner products or convolutions: converted, kept in fp32 by
  /// keep-fp32, seen.
  struct Counts {
    unsigned converted = 0, kept = 0, total = 0;
  };

  /// int8: how ranges are chosen from the calibration.
  std::optional<calibration::Method> method;

  void runOnOperation() override {
    if (precision != "fp32" && precision != "bf16" && precision != "int8") {
      emitError(getOperation()->getLoc(),
                "osc-precision: precision must be fp32, bf16 or int8, got '")
          << precision << "'";
      return signalPassFailure();
    }
    if (weightBits != 8 && weightBits != 7) {
      emitError(getOperation()->getLoc(),
                "osc-precision: weight-bits must be 8 or 7, got ")
          << static_cast<int>(weightBits);
      return signalPassFailure();
    }
    llvm::Regex keep(keepFp32);
    std::string regexError;
    if (!keepFp32.empty() && !keep.isValid(regexError)) {
      emitError(getOperation()->getLoc(),
                "osc-precision: invalid keep-fp32 regex '")
          << keepFp32 << "': " << regexError;
      return signalPassFailure();
    }
    std::map<std::string, const calibration::TensorStats *> stats;
    std::optional<calibration::Calibration> calib;
    if (precision == "int8") {
      method = calibration::Method::parse(calibrationMethod);
      if (!method) {
        emitError(getOperation()->getLoc(),
                  "osc-precision: calibration-method must be minmax or "
                  "percentile:P with 50 < P <= 100, got '")
            << calibrationMethod << "'";
        return signalPassFailure();
      }
      std::string error;
      calib = loadCalibration(error);
      if (!calib) {
        emitError(getOperation()->getLoc(), "osc-precision: ") << error;
        return signalPassFailure();
      }
      for (const calibration::TensorStats &t : calib->tensors)
        stats[t.key()] = &t;
    }
    unsigned qdqIps = fuseQdq<InnerProductOp>(keep);
    unsigned qdqConvs = fuseQdq<ConvOp>(keep) + fuseQdq<ConvTransposeOp>(keep);
    unsigned qdq = qdqIps + qdqConvs;
    Counts ips, convs, deconvs;
    std::vector<std::string> uncalibrated;
    double before = 0, after = 0;
    // Inner products and convolutions: the weight converted once here, the
    // f32 input converted inside the kernel.
    auto convert = [&](auto op, Counts &counts) {
      ++counts.total;
      auto wType = cast<RankedTensorType>(op.getWeight().getType());
      if (!wType.getElementType().isF32() ||
          !cast<RankedTensorType>(op.getInput().getType())
               .getElementType()
               .isF32())
        return;
      std::vector<std::string> sources = sourceNodes(op.getLoc());
      if (keptInFp32(keep, op.getLoc())) {
        ++counts.kept;
        return;
      }
      if (!constantBias(op))
        return;
      const calibration::TensorStats *st = nullptr;
      if (precision == "int8") {
        auto it = stats.find(calibration::TensorStats::joinKey(sources));
        if (it == stats.end()) {
          uncalibrated.push_back(sources.empty() ? tensorName(op.getOutput())
                                                 : sources.front());
          return;
        }
        st = it->second;
      }
      auto values = readF32Constant(op.getWeight());
      if (!values)
        return;
      auto c = op.getWeight().template getDefiningOp<ConstantOp>();
      OpBuilder b(c);
      before += 4.0 * wType.getNumElements();
      if (precision == "bf16") {
        auto type = RankedTensorType::get(wType.getShape(), b.getBF16Type());
        auto bf = b.create<ConstantOp>(
            c.getLoc(),
            makeBf16Weight(type, *values,
                           derivedWeightName(op.getWeight(), ".bf16")));
        op.getWeightMutable().assign(bf.getOutput());
        after += 2.0 * type.getNumElements();
      } else {
        quantizeWeights(op, c, *values, b, weightBits);
        calibration::U8Params p = calibration::chooseU8(*st, *method);
        op.setInputScaleAttr(b.getF32FloatAttr(p.scale));
        op.setInputZeroPointAttr(b.getI32IntegerAttr(p.zeroPoint));
        after += 1.0 * wType.getNumElements() +
                 4.0 * op.getWeightScalesAttr().size();
      }
      if (c->use_empty())
        c.erase();
      ++counts.converted;
    };
    if (precision != "fp32") {
      getOperation().walk([&](InnerProductOp op) { convert(op, ips); });
      getOperation().walk([&](ConvOp op) { convert(op, convs); });
      getOperation().walk([&](ConvTransposeOp op) { convert(op, deconvs); });
    }
    // bf16 / int8 matmuls (attention's Q.K^T and P.V): both operands are
    // activations, rounded to bf16 or quantized (from their ranges on each
    // run) inside the kernel. int8 only where each quantized element feeds
    // enough products to pay for its quantization (intensityForInt8).
    unsigned matmuls = 0, matmulsConverted = 0, matmulsLowIntensity = 0;
    getOperation().walk([&](MatMulOp op) {
      ++matmuls;
      if (precision == "fp32" ||
          !cast<RankedTensorType>(op.getLhs().getType())
               .getElementType()
               .isF32() ||
          !cast<RankedTensorType>(op.getRhs().getType())
               .getElementType()
               .isF32())
        return;
      if (keptInFp32(keep, op.getLoc()))
        return;
      if (precision == "int8" && !intensityForInt8(op)) {
        ++matmulsLowIntensity;
        return;
      }
      if (precision == "bf16")
        op.setComputeBf16(true);
      else
        op.setComputeInt8(true);
      ++matmulsConverted;
    });
    if (!uncalibrated.empty()) {
      std::string names;
      for (size_t i = 0; i < uncalibrated.size() && i < 5; ++i)
        names += (i ? ", " : "") + uncalibrated[i];
      if (uncalibrated.size() > 5)
        names += ", ...";
      emitWarning(getOperation()->getLoc(), "osc-precision: ")
          << uncalibrated.size()
          << " inner products or convolutions have no calibration "
             "statistics and stay fp32 ("
          << names << "); was the calibration made from this model?";
    }
    if (report && qdq)
      llvm::outs() << "osc-precision: " << qdq
                   << " inner products or convolutions of the model's "
                      "QuantizeLinear/DequantizeLinear pairs run in int8 with "
                      "the model's activation scales\n";
    if (report && precision != "fp32") {
      llvm::outs() << "osc-precision: " << precision;
      if (calib)
        llvm::outs() << " (calibration " << calibration << ", "
                     << method->str() << ")";
      llvm::outs() << ", " << ips.converted << " of " << ips.total
                   << " inner products";
      if (convs.total)
        llvm::outs() << " and " << convs.converted << " of " << convs.total
                     << " convolutions";
      if (deconvs.total)
        llvm::outs() << " and " << deconvs.converted << " of "
                     << deconvs.total << " transposed convolutions";
      llvm::outs() << " in " << precision;
      if (unsigned kept = ips.kept + convs.kept + deconvs.kept)
        llvm::outs() << " (" << kept << " kept in fp32 by keep-fp32)";

      if (!uncalibrated.empty())
        llvm::outs() << " (" << uncalibrated.size()
                     << " without calibration statistics, fp32)";
      llvm::outs() << ", their weights "
                   << llvm::format("%.1f", before / (1 << 20)) << " -> "
                   << llvm::format("%.1f", after / (1 << 20)) << " MiB; "
                   << ips.converted + convs.converted + deconvs.converted
                   << (precision == "int8"
                           ? " f32-to-u8 quantization"
                           : " f32-to-bf16 conversion")
                   << (ips.converted + convs.converted + deconvs.converted == 1
                           ? ""
                           : "s")
                   << " (one inside each " << precision << " kernel"
                   << (precision == "int8"
                           ? "; osc-int8-chains removes those between int8 "
                             "ops)"
                           : "; osc-bf16-chains moves those its chains "
                             "carry into the producers)");
      if (precision == "bf16")
        llvm::outs() << "; " << matmulsConverted << " of " << matmuls
                     << " matmuls in bf16";
      else if (matmuls)
        llvm::outs() << "; " << matmulsConverted << " of " << matmuls
                     << " matmuls in int8 (quantized on each run from their "
                        "operands' ranges)";
      if (precision == "int8" && matmulsLowIntensity)
        llvm::outs() << ", " << matmulsLowIntensity
                     << " fp32 (fewer than 64 products per quantized element)";
      llvm::outs() << "\n";
    }
    // For a target without VNNI (weight-bits=7) oneDNN's int8
    // kernels would saturate 8-bit weights: say which int8 form each kind
    // of weight runs in there, as the kernel names will (docs/precision.md,
    // int8 without VNNI).
    unsigned quantizedHere =
        precision == "int8"
            ? ips.converted + convs.converted + deconvs.converted
            : 0;
    unsigned int8MatMuls = precision == "int8" ? matmulsConverted : 0;
    if (report && weightBits == 7 && (quantizedHere || int8MatMuls || qdq)) {
      llvm::outs() << "osc-precision: int8 without VNNI on the "
                      "target (8-bit weights would saturate):";
      const char *sep = " ";
      if (quantizedHere) {
        llvm::outs() << sep << quantizedHere
                     << " inner products or convolutions with 7-bit weights "
                        "([-64, 64], :s8w7)";
        sep = "; ";
      }
      if (int8MatMuls) {
        llvm::outs() << sep << int8MatMuls
                     << " matmuls with a 7-bit right operand (:s8w7)";
        sep = "; ";
      }
      if (qdqIps) {
        llvm::outs() << sep << qdqIps
                     << " inner products with the model's 8-bit weights, "
                        "exact: on opscope's s16 GEMM (gemm:s16), or at one "
                        "row, above 384 or with OPSCOPE_GEMM=onednn split in "
                        "two 7-bit halves (:s8w7x2)";
        sep = "; ";
      }
      if (qdqConvs)
        llvm::outs() << sep << qdqConvs
                     << " convolutions with the model's 8-bit weights "
                        "computed in f32 (:f32)";
      llvm::outs() << "\n";
    }
  }

  std::optional<calibration::Calibration> loadCalibration(std::string &error) {
    if (calibration.empty()) {
      error = "precision=int8 needs a calibration (opscope-compile "
              "--calibration-inputs DIR, or --calibration FILE)";
      return std::nullopt;
    }
    auto buf = llvm::MemoryBuffer::getFile(calibration);
    if (!buf) {
      error = "cannot read the calibration '" + calibration.getValue() +
              "': " + buf.getError().message();
      return std::nullopt;
    }
    auto j = nlohmann::json::parse((*buf)->getBuffer().begin(),
                                   (*buf)->getBuffer().end(), nullptr,
                                   /*allow_exceptions=*/false);
    std::string why;
    auto c = calibration::fromJson(j, why);
    if (!c)
      error = "calibration '" + calibration.getValue() + "': " + why;
    return c;
  }

  /// An int8 matmul quantizes both f32 operands on every run (two reads of
  /// each); that pays only when each quantized element feeds enough
  /// multiply-adds: M x N x K / (M x K + K x N) = M N / (M + N) >= 64.
  /// Attention's Q.K^T (M = N = sequence) qualifies from sequence 128;
  /// P.V (N = head size 64) never does: on an Ice Lake core DistilBERT's
  /// Q.K^T took 0.84 ms in int8 against 1.2 ms in f32 for six layers at
  /// sequence 128 (20 against 25-30 ms at 512), and P.V in int8 lost
  /// (its 12 x S x S probabilities are read twice more than in f32).
  static bool intensityForInt8(MatMulOp op) {
    auto out = cast<RankedTensorType>(op.getOutput().getType()).getShape();
    if (out.size() < 2)
      return false;
    double m = static_cast<double>(out[out.size() - 2]),
           n = static_cast<double>(out.back());
    return m * n / (m + n) >= 64.0;
  }

  /// Whether keep-fp32 names one of the op's source nodes.
  bool keptInFp32(llvm::Regex &keep, Location loc) const {
    if (keepFp32.empty())
      return false;
    for (const std::string &src : sourceNodes(loc))
      if (keep.match(src))
        return true;
    return false;
  }

  /// The one value of a constant 1-element tensor (as double).
  static std::optional<double> scalarConstant(Value v) {
    DenseElementsAttr attr;
    if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
      return std::nullopt;
    if (isa<FloatType>(attr.getElementType()))
      return (*attr.getValues<APFloat>().begin()).convertToDouble();
    // (Not one conditional expression: its common type, uint64_t, would
    // turn a negative i8 zero point into 2^64 - z.)
    APInt i = *attr.getValues<APInt>().begin();
    if (attr.getElementType().isUnsignedInteger())
      return static_cast<double>(i.getZExtValue());
    return static_cast<double>(i.getSExtValue());
  }

  /// QDQ models (quantized by another tool, e.g. ONNX Runtime's
  /// quantize_static): an inner product or convolution whose input is
  /// dequantize_linear(quantize_linear(x)) with one constant scale and zero
  /// point runs in int8 on x itself, with the model's scale and zero point
  /// (an i8 zero point z is the u8 z + 128: the same grid shifted). Its
  /// weight, the dequantized constant, is quantized per row or output
  /// channel (which gives back a per-channel symmetric model's integers
  /// exactly; per-tensor, asymmetric or, for a grouped transposed
  /// convolution, axis-1 scales shared across groups are requantized, so
  /// results differ slightly from the model's own integers).
  template <typename OpT> unsigned fuseQdq(llvm::Regex &keep) {
    unsigned fused = 0;
    getOperation().walk([&](OpT op) {
      auto dq = op.getInput().template getDefiningOp<DequantizeLinearOp>();
      auto q = dq ? dq.getInput().template getDefiningOp<QuantizeLinearOp>()
                  : QuantizeLinearOp();
      auto wType = cast<RankedTensorType>(op.getWeight().getType());
      if (!q || !wType.getElementType().isF32())
        return;
      if (keptInFp32(keep, op.getLoc()))
        return;
      if (!constantBias(op))
        return;
      auto qs = scalarConstant(q.getScale()), ds = scalarConstant(dq.getScale());
      auto qz = q.getZeroPoint() ? scalarConstant(q.getZeroPoint()) : 0.0;
      auto dz = dq.getZeroPoint() ? scalarConstant(dq.getZeroPoint()) : 0.0;
      if (!qs || !ds || !qz || !dz || *qs != *ds || *qz != *dz || !(*qs > 0))
        return;
      bool s8 = cast<RankedTensorType>(q.getType()).getElementType()
                    .isSignedInteger(8) ||
                cast<RankedTensorType>(q.getType()).getElementType()
                    .isSignlessInteger(8);
      auto values = readF32Constant(op.getWeight());
      if (!values)
        return;
      auto c = op.getWeight().template getDefiningOp<ConstantOp>();
      OpBuilder b(c);
      // The model's own 8-bit integers, whatever the target (a runtime
      // whose int8 kernels would saturate them computes them in f32).
      quantizeWeights(op, c, *values, b, /*bits=*/8);
      op.setInputScaleAttr(b.getF32FloatAttr(static_cast<float>(*qs)));
      op.setInputZeroPointAttr(b.getI32IntegerAttr(
          static_cast<int32_t>(*qz) + (s8 ? 128 : 0)));
      op.getInputMutable().assign(q.getInput());
      if (c->use_empty())
        c.erase();
      if (dq->use_empty())
        dq.erase();
      if (q->use_empty())
        q.erase();
      ++fused;
    });
    return fused;
  }

  /// Whether `op` has no bias or a constant one: the bf16 and int8 kernels
  /// pack their bias once, so a bias that is a model input keeps the op
  /// fp32.
  template <typename OpT> static bool constantBias(OpT op) {
    Value bias = op.getBias();
    return !bias || bias.template getDefiningOp<ConstantOp>();
  }

  /// The output channel of weight element `i`: its row (inner product,
  /// convolution: N x K, OC x C/g x k...), or for a transposed convolution
  /// (C x OC/g x k...) `g * OC/g + j` of element [c, j, ...], g = c /
  /// (C/g). `count` is the channel count.
  struct OutputChannels {
    int64_t count, rowElems;       // rows: i / rowElems
    int64_t ocg = 0, cg = 0, inner = 0; // transposed (ocg > 0)
    int64_t operator()(int64_t i) const {
      if (!ocg)
        return i / rowElems;
      int64_t ci = i / (ocg * inner), j = (i / inner) % ocg;
      return ci / cg * ocg + j;
    }
  };
  template <typename OpT> static OutputChannels outputChannels(OpT op) {
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    int64_t n = wType.getNumElements();
    if constexpr (std::is_same_v<OpT, ConvTransposeOp>) {
      int64_t c = wType.getDimSize(0), ocg = wType.getDimSize(1);
      int64_t groups = op.getGroups();
      return {ocg * groups, 0, ocg, c / groups, n / (c * ocg)};
    } else {
      int64_t rows = wType.getDimSize(0);
      return {rows, n / rows};
    }
  }

  /// The weight per row (inner product) or output channel (convolutions),
  /// symmetric, to i8 with weight_scales.
  template <typename OpT>
  void quantizeWeights(OpT op, ConstantOp c, ArrayRef<float> values,
                       OpBuilder &b, int bits) {
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    OutputChannels channelOf = outputChannels(op);
    // rt::sparse::symmetricScale per channel (which need not be contiguous
    // here): max |w| / 127, 1 for zeros; with weight-bits=7, max |w| / 64
    // (a target whose int8 kernels would saturate 8-bit weights).
    const float limit = bits == 7 ? 64.0f : 127.0f;
    std::vector<float> scales(channelOf.count, 0.0f);
    for (size_t i = 0; i < values.size(); ++i) {
      float &sc = scales[channelOf(int64_t(i))];
      sc = std::max(sc, std::fabs(values[i]));
    }
    for (float &sc : scales)
      sc = sc > 0.0f ? sc / limit : 1.0f;
    std::vector<int8_t> q(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      q[i] = rt::sparse::quantizeS8(values[i], scales[channelOf(int64_t(i))]);
    auto type = RankedTensorType::get(wType.getShape(), b.getIntegerType(8));
    auto w8 = b.create<ConstantOp>(
        c.getLoc(),
        makeS8Weight(type, q, derivedWeightName(op.getWeight(), ".s8")));
    op.getWeightMutable().assign(w8.getOutput());
    op.setWeightScalesAttr(b.getDenseF32ArrayAttr(scales));
  }
};
} // namespace
