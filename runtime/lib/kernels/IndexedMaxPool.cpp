//===- IndexedMaxPool.cpp - ONNX MaxPool with indices, integer MaxPool ----===//
//
// Part of opscope's runtime. The window scan behind osc.indexed_max_pool:
// what oneDNN's pooling does not give, ONNX's Indices output and i8/u8
// elements. Scalar (named `reference`): each output compares its window's
// cells one by one to keep the first maximum's position.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/generic.h"

#include <cstring>
#include <limits>
#include <type_traits>

using namespace opscope::rt;

namespace {
template <typename T>
void maxPoolImpl(const T *x, const Shape &input, const Shape &output,
                 const Shape &kernel, const Shape &strides, const Shape &pads,
                 const Shape &dilations, bool columnMajor, T *y,
                 int64_t *indices) {
  size_t k = input.size() - 2;
  // Up to three spatial dimensions; missing ones are size 1.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, ker[3] = {1, 1, 1},
          str[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  for (size_t d = 0; d < k; ++d) {
    in[d] = input[2 + d], out[d] = output[2 + d], ker[d] = kernel[d];
    str[d] = strides[d], pad[d] = pads[d], dil[d] = dilations[d];
  }
  // Element strides of the spatial dimensions in the flat index: row major
  // (the last dimension fastest) or column major (the first fastest).
  int64_t step[3];
  if (columnMajor) {
    step[0] = 1, step[1] = in[0], step[2] = in[0] * in[1];
  } else {
    step[2] = 1, step[1] = in[2], step[0] = in[1] * in[2];
  }
  // Memory offsets are always row major.
  int64_t mem[3] = {in[1] * in[2], in[2], 1};
  int64_t image = in[0] * in[1] * in[2], outImage = out[0] * out[1] * out[2];
  int64_t planes = input[0] * input[1];
  for (int64_t p = 0; p < planes; ++p) {
    const T *xp = x + p * image;
    T *yp = y + p * outImage;
    int64_t *ip = indices ? indices + p * outImage : nullptr;
    int64_t o = 0;
    for (int64_t o0 = 0; o0 < out[0]; ++o0)
      for (int64_t o1 = 0; o1 < out[1]; ++o1)
        for (int64_t o2 = 0; o2 < out[2]; ++o2, ++o) {
          int64_t s0 = o0 * str[0] - pad[0], s1 = o1 * str[1] - pad[1],
                  s2 = o2 * str[2] - pad[2];
          T best = std::numeric_limits<T>::lowest();
          int64_t at = -1;
          for (int64_t k0 = 0; k0 < ker[0]; ++k0) {
            int64_t i0 = s0 + k0 * dil[0];
            if (i0 < 0 || i0 >= in[0])
              continue;
            for (int64_t k1 = 0; k1 < ker[1]; ++k1) {
              int64_t i1 = s1 + k1 * dil[1];
              if (i1 < 0 || i1 >= in[1])
                continue;
              for (int64_t k2 = 0; k2 < ker[2]; ++k2) {
                int64_t i2 = s2 + k2 * dil[2];
                if (i2 < 0 || i2 >= in[2])
                  continue;
                T v = xp[i0 * mem[0] + i1 * mem[1] + i2 * mem[2]];
                // The first cell, then only a strictly larger one.
                if (at < 0 || v > best) {
                  best = v;
                  at = i0 * step[0] + i1 * step[1] + i2 * step[2];
                }
              }
            }
          }
          yp[o] = best;
          if (ip)
            ip[o] = at < 0 ? -1 : p * image + at;
        }
  }
}
} // namespace

bool opscope::rt::indexedMaxPool(DType t, const void *x, const Shape &input,
                                 const Shape &output, const Shape &kernel,
                                 const Shape &strides, const Shape &pads,
                                 const Shape &dilations, bool columnMajor,
                                 void *y, int64_t *indices) {
  if (input.size() < 3 || input.size() > 5)
    return false;
  Shape begins(pads.begin(), pads.begin() + (input.size() - 2));
  auto run = [&](auto *typed) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(typed)>>;
    maxPoolImpl<T>(static_cast<const T *>(x), input, output, kernel, strides,
                   begins, dilations, columnMajor, static_cast<T *>(y),
                   indices);
    return true;
  };
  switch (t) {
  case DType::F32:
    return run(static_cast<float *>(nullptr));
  case DType::F64:
    return run(static_cast<double *>(nullptr));
  case DType::I8:
    return run(static_cast<int8_t *>(nullptr));
  case DType::U8:
    return run(static_cast<uint8_t *>(nullptr));
  default:
    return false;
  }
}
