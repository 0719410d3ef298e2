//===- npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of opscope's runtime. Reads and writes version 1.0/2.0 `.npy` files
// of the element types the runtime uses (little-endian, C order).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_NPY_H
#define OPSCOPE_RUNTIME_NPY_H

#include "opscope/runtime/generic.h"

#include <string>
#include <vector>

namespace opscope::rt {

struct HostTensor {
  DType dtype = DType::F32;
  Shape shape;
  std::vector<char> data;
  int64_t elements() const { return numElements(shape); }
};

/// Reads `path`; throws opscope::Error naming the file on any problem
/// (missing, not .npy, Fortran order, unsupported dtype, truncated).
HostTensor readNpy(const std::string &path);
/// Writes atomically (temporary file renamed into place).
void writeNpy(const std::string &path, const HostTensor &t);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_NPY_H
