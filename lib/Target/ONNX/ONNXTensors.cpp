//===- ONNXTensors.cpp - ONNX tensors and node attributes -----------------===//
//
// Part of opscope. Decoding ONNX TensorProtos (inline, raw and external data)
// into osc constants, element types, and NodeContext: what a converter sees
// of its node (attributes, constant inputs, errors that name the node). The
// graph walk is in ImportONNX.cpp.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "opscope/Target/ONNX/ModelFile.h"
#include "opscope/runtime/half.h"

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace mlir;
using namespace opscope;
using namespace opscope::onnx_import;

/// Integer constants up to this size stay dense so shape computations fold;
/// float constants up to kDenseFloatLimit do too (scalars, small vectors).
/// Anything larger is a weight and becomes a dense_resource blob.
static constexpr int64_t kDenseIntLimit = 4096;
static constexpr int64_t kDenseFloatLimit = 16;

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

Type opscope::onnx_import::elementTypeFor(int32_t t, MLIRContext *ctx) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    // fp16 models compute in f32: their f16 weights are widened once, on
    // import (decodeTensor), and every f16 value is an f32 one (an f16
    // Cast then converts nothing and folds away). docs/precision.md.
    return b.getF32Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

Type opscope::onnx_import::boundaryTypeFor(int32_t t, MLIRContext *ctx) {
  if (t == onnx::TensorProto::FLOAT16)
    return Builder(ctx).getF16Type();
  return elementTypeFor(t, ctx);
}

std::string opscope::onnx_import::onnxTypeName(int32_t t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(t));
  return "type " + std::to_string(t);
}

/// Copies `count` typed-field values into little-endian element bytes.
template <typename From, typename To>
static void copyField(const google::protobuf::RepeatedField<From> &field,
                      std::vector<char> &bytes) {
  bytes.resize(field.size() * sizeof(To));
  for (int i = 0; i < field.size(); ++i) {
    To v = static_cast<To>(field.Get(i));
    std::memcpy(bytes.data() + i * sizeof(To), &v, sizeof(To));
  }
}

static std::string sanitizeBlobName(StringRef name) {
  std::string s = name.empty() ? "tensor" : name.str();
  for (char &ch : s)
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.')
      ch = '_';
  if (isdigit(static_cast<unsigned char>(s[0])))
    s = "t" + s;
  return s;
}

/// Largest power of two (up to 64) that `p` is aligned to.
static size_t alignmentOf(const void *p) {
  size_t align = 64;
  while (align > 1 && reinterpret_cast<uintptr_t>(p) % align)
    align /= 2;
  return align;
}

ElementsAttr opscope::onnx_import::decodeTensor(const onnx::TensorProto &t,
                                                StringRef modelDir,
                                                MLIRContext *ctx,
                                                std::string &error,
                                                onnx::TensorProto *steal) {
  std::string what = "tensor '" + t.name() + "'";
  Type elem = elementTypeFor(t.data_type(), ctx);
  if (!elem) {
    error = what + " has unsupported element type " +
            onnxTypeName(t.data_type());
    return {};
  }
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      error = what + " has a negative dimension";
      return {};
    }
    if (__builtin_mul_overflow(count, d, &count)) {
      error = what + " has more elements than opscope can address";
      return {};
    }
  }
  bool isBool = elem.isInteger(1);
  const bool isHalf = t.data_type() == onnx::TensorProto::FLOAT16;
  int64_t width = isBool ? 1 : isHalf ? 2 : elem.getIntOrFloatBitWidth() / 8;
  int64_t expected = 0;
  if (__builtin_mul_overflow(count, width, &expected)) {
    error = what + " has more bytes than opscope can address";
    return {};
  }

  std::vector<char> owned;
  StringRef bytes;
  // Keeps an external-data file mapped while its bytes are in use.
  std::shared_ptr<llvm::MemoryBuffer> mapped;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    // The model is untrusted: ModelFile checks that its external data is a
    // regular file inside the model's directory and that offset and length
    // lie within it.
    onnx_model::ExternalData data;
    if (!onnx_model::resolveExternalData(t, modelDir.str(), data, error))
      return {};
    auto buffer = llvm::MemoryBuffer::getFile(data.realPath, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error = what + " reads external data from '" + data.path +
              "': " + buffer.getError().message();
      return {};
    }
    uint64_t offset = data.offset, length = data.length;
    if (offset + length > (*buffer)->getBufferSize()) {
      // The file shrank since it was checked.
      error = what + " reads past the end of external data file '" + data.path +
              "'";
      return {};
    }
    bytes = (*buffer)->getBuffer().substr(offset, length);
    mapped = std::move(*buffer);
  } else if (t.has_raw_data()) {
    bytes = t.raw_data();
  } else {
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      copyField<float, float>(t.float_data(), owned);
      break;
    case onnx::TensorProto::DOUBLE:
      copyField<double, double>(t.double_data(), owned);
      break;
    case onnx::TensorProto::INT64:
      copyField<int64_t, int64_t>(t.int64_data(), owned);
      break;
    case onnx::TensorProto::INT32:
      copyField<int32_t, int32_t>(t.int32_data(), owned);
      break;
    case onnx::TensorProto::INT16:
      copyField<int32_t, int16_t>(t.int32_data(), owned);
      break;
    // ONNX keeps uint16 in int32_data, uint32 and uint64 in uint64_data.
    case onnx::TensorProto::UINT16:
      copyField<int32_t, uint16_t>(t.int32_data(), owned);
      break;
    case onnx::TensorProto::UINT32:
      copyField<uint64_t, uint32_t>(t.uint64_data(), owned);
      break;
    case onnx::TensorProto::UINT64:
      copyField<uint64_t, uint64_t>(t.uint64_data(), owned);
      break;
    case onnx::TensorProto::INT8:
      copyField<int32_t, int8_t>(t.int32_data(), owned);
      break;
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      copyField<int32_t, uint8_t>(t.int32_data(), owned);
      break;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      // Stored as their 16-bit patterns in int32_data.
      copyField<int32_t, uint16_t>(t.int32_data(), owned);
      break;
    default:
      break;
    }
    bytes = StringRef(owned.data(), owned.size());
  }
  if (static_cast<int64_t>(bytes.size()) != expected) {
    error = what + " of shape " + osc::formatShape(shape) + " and type " +
            onnxTypeName(t.data_type()) + " needs " + std::to_string(expected) +
            " bytes but holds " + std::to_string(bytes.size()) +
            " (truncated or malformed model?)";
    return {};
  }

  if (isHalf) {
    // Widened to f32 here, once: the runtime computes fp16 models in f32.
    std::vector<char> wide(count * sizeof(float));
    rt::halvesToFloats(bytes.data(), reinterpret_cast<float *>(wide.data()),
                       count);
    owned = std::move(wide);
    bytes = StringRef(owned.data(), owned.size());
    mapped.reset();
    steal = nullptr;
  }
  auto type = RankedTensorType::get(shape, elem);
  if (isBool) {
    SmallVector<bool> values;
    for (char ch : bytes)
      values.push_back(ch != 0);
    return DenseElementsAttr::get(type, values);
  }
  bool isFloat = isa<FloatType>(elem);
  if (count <= (isFloat ? kDenseFloatLimit : kDenseIntLimit)) {
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, ArrayRef<char>(bytes.data(), bytes.size()), splat)) {
      error = what + " has an invalid data buffer";
      return {};
    }
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data(), bytes.size()));
  }
  // Weights become blobs without another copy where possible: the parsed
  // raw_data string, or the mapped external-data file, is handed to the blob
  // (for a 265 MB model each copy costs about a second here).
  ArrayRef<char> data(bytes.data(), bytes.size());
  AsmResourceBlob blob;
  if (mapped) {
    blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        data, alignmentOf(data.data()),
        [mapped](void *, size_t, size_t) mutable { mapped.reset(); });
  } else if (steal && steal->has_raw_data()) {
    std::string *raw = steal->release_raw_data();
    blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        ArrayRef<char>(raw->data(), raw->size()), alignmentOf(raw->data()),
        [raw](void *, size_t, size_t) { delete raw; });
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(data, /*align=*/64);
  }
  return DenseResourceElementsAttr::get(type, sanitizeBlobName(t.name()),
                                        std::move(blob));
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

InFlightDiagnostic NodeContext::error() {
  return emitError(loc) << "node '" << name() << "' (" << node.op_type()
                        << "): ";
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(StringRef name, int64_t def) const {
  const auto *a = attr(name);
  return a && a->has_i() ? a->i() : def;
}

float NodeContext::floatAttr(StringRef name, float def) const {
  const auto *a = attr(name);
  return a && a->has_f() ? a->f() : def;
}

std::string NodeContext::stringAttr(StringRef name, StringRef def) const {
  const auto *a = attr(name);
  return a && a->has_s() ? a->s() : def.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::intsAttr(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<float>>
NodeContext::floatsAttr(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}

std::optional<SmallVector<int64_t>> NodeContext::constInts(unsigned i) {
  DenseElementsAttr attr;
  if (!hasInput(i) || !matchPattern(input(i), m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  if (isa<IntegerType>(attr.getElementType())) {
    for (const APInt &v : attr.getValues<APInt>())
      values.push_back(v.getSExtValue());
  } else {
    for (const APFloat &v : attr.getValues<APFloat>()) {
      // Converting a value beyond int64 (or NaN) is undefined behaviour:
      // such a constant is not a list of integers (requireConstInts says
      // so, naming the input).
      double d = v.convertToDouble();
      if (!(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18))
        return std::nullopt;
      values.push_back(static_cast<int64_t>(d));
    }
  }
  return values;
}

std::optional<SmallVector<double>> NodeContext::constFloats(unsigned i) {
  DenseElementsAttr attr;
  if (!hasInput(i) || !matchPattern(input(i), m_Constant(&attr)))
    return std::nullopt;
  SmallVector<double> values;
  if (auto ft = dyn_cast<FloatType>(attr.getElementType())) {
    for (APFloat v : attr.getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v.convertToDouble());
    }
  } else {
    for (const APInt &v : attr.getValues<APInt>())
      values.push_back(static_cast<double>(v.getSExtValue()));
  }
  return values;
}

FailureOr<SmallVector<int64_t>> NodeContext::requireConstInts(unsigned i,
                                                              StringRef what) {
  if (!hasInput(i)) {
    error() << "missing input '" << what << "'";
    return failure();
  }
  auto v = constInts(i);
  DenseElementsAttr constant;
  if (!v && matchPattern(input(i), m_Constant(&constant))) {
    error() << "input '" << what << "' ('" << node.input(i)
            << "') holds a value that is not an integer in the int64 range";
    return failure();
  }
  if (!v) {
    // With static shapes, a shape operand that did not fold is computed
    // from the values (not the shapes) of graph inputs: the fix is to give
    // those values, not more shapes.
    std::vector<std::string> inputs;
    llvm::SmallVector<Value> work{input(i)};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value cur = work.pop_back_val();
      if (!seen.insert(cur).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(cur)) {
        if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
          if (!llvm::is_contained(inputs, name.getName().str()))
            inputs.push_back(name.getName().str());
      } else if (Operation *def = cur.getDefiningOp()) {
        work.append(def->operand_begin(), def->operand_end());
      }
    }
    auto diag = error();
    diag << "input '" << what << "' ('" << node.input(i)
         << "') is not a compile-time constant";
    if (inputs.empty()) {
      diag << "; opscope needs static shapes (give --input-shape for every "
              "dynamic input)";
    } else {
      diag << ": it is computed from the value of graph input";
      diag << (inputs.size() > 1 ? "s " : " ");
      for (auto [k, name] : llvm::enumerate(inputs))
        diag << (k ? ", '" : "'") << name << "'";
      diag << "; give that value at compile time with --freeze-input "
           << inputs.front() << "=FILE.pb (an ONNX TensorProto)";
    }
    return failure();
  }
  return *v;
}

FailureOr<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank,
                                              StringRef what) {
  int64_t n = axis < 0 ? axis + rank : axis;
  if (n < 0 || n >= rank) {
    error() << what << " " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return n;
}

FailureOr<SmallVector<int64_t>>
NodeContext::normalizeAxes(ArrayRef<int64_t> axes, int64_t rank,
                           StringRef what) {
  SmallVector<int64_t> out;
  SmallVector<bool> seen(std::max<int64_t>(rank, 0), false);
  for (int64_t a : axes) {
    auto d = normalizeAxis(a, rank, what);
    if (failed(d))
      return failure();
    if (seen[*d]) {
      error() << "axis " << *d << " appears more than once in axes";
      return failure();
    }
    seen[*d] = true;
    out.push_back(*d);
  }
  return out;
}

