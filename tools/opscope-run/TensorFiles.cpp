//===- TensorFiles.cpp - tensors from .npy and ONNX .pb files -------------===//
//
// Part of opscope-run. ONNX TensorProto files are how the ONNX backend test
// data ships its inputs and expected outputs.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "opscope/runtime/model.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace opscope;
using namespace opscope::rt;

namespace {
template <typename T, typename Src>
void fill(std::vector<char> &out, const Src &values) {
  out.resize(values.size() * sizeof(T));
  T *p = reinterpret_cast<T *>(out.data());
  for (int i = 0; i < values.size(); ++i)
    p[i] = static_cast<T>(values.Get(i));
}
} // namespace

rt::HostTensor opscope::readTensorFile(const std::string &path) {
  if (path.size() < 3 || path.substr(path.size() - 3) != ".pb")
    return readNpy(path);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  onnx::TensorProto t;
  if (!t.ParseFromIstream(&in))
    throw Error(path + ": not an ONNX TensorProto");
  HostTensor h;
  for (int64_t d : t.dims())
    h.shape.push_back(d);
  using TP = onnx::TensorProto;
  switch (t.data_type()) {
  case TP::FLOAT: h.dtype = DType::F32; break;
  case TP::DOUBLE: h.dtype = DType::F64; break;
  case TP::INT64: h.dtype = DType::I64; break;
  case TP::INT32: h.dtype = DType::I32; break;
  case TP::INT16: h.dtype = DType::I16; break;
  case TP::INT8: h.dtype = DType::I8; break;
  case TP::UINT8: h.dtype = DType::U8; break;
  case TP::UINT16: h.dtype = DType::U16; break;
  case TP::UINT32: h.dtype = DType::U32; break;
  case TP::UINT64: h.dtype = DType::U64; break;
  case TP::BOOL: h.dtype = DType::I1; break;
  case TP::FLOAT16: h.dtype = DType::F16; break;
  case TP::BFLOAT16: h.dtype = DType::BF16; break;
  default:
    throw Error(path + ": unsupported tensor data type " +
                std::to_string(t.data_type()));
  }
  size_t bytes = h.elements() * dtypeSize(h.dtype);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      throw Error(path + ": raw data has " + std::to_string(t.raw_data().size()) +
                  " bytes, expected " + std::to_string(bytes));
    h.data.assign(t.raw_data().begin(), t.raw_data().end());
    return h;
  }
  switch (h.dtype) {
  case DType::F32: fill<float>(h.data, t.float_data()); break;
  case DType::F64: fill<double>(h.data, t.double_data()); break;
  case DType::I64: fill<int64_t>(h.data, t.int64_data()); break;
  case DType::I32: fill<int32_t>(h.data, t.int32_data()); break;
  case DType::I16: fill<int16_t>(h.data, t.int32_data()); break;
  case DType::I8: fill<int8_t>(h.data, t.int32_data()); break;
  case DType::U8: fill<uint8_t>(h.data, t.int32_data()); break;
  // ONNX keeps uint16 in int32_data, uint32 and uint64 in uint64_data.
  case DType::U16: fill<uint16_t>(h.data, t.int32_data()); break;
  case DType::U32: fill<uint32_t>(h.data, t.uint64_data()); break;
  case DType::U64: fill<uint64_t>(h.data, t.uint64_data()); break;
  case DType::I1: fill<uint8_t>(h.data, t.int32_data()); break;
  default: fill<uint16_t>(h.data, t.int32_data()); break;
  }
  if (h.data.size() != bytes)
    throw Error(path + ": tensor holds " + std::to_string(h.data.size()) +
                " bytes, expected " + std::to_string(bytes));
  return h;
}
