//===- sparse_format.h - block-sparse weight format -------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM), header-only so that the
// compiler packs weights with the same code the runtime reads them with.
//
// A weight W is N x K, row-major, as osc.inner_product holds it (N outputs,
// K the reduction). A block shape R x C groups R consecutive outputs and C
// consecutive reduction elements; opscope's kernels run 1 x 4 blocks (four
// consecutive input features of one output: issue 13's "1x4"; Intel's
// sparse models group four outputs at one k, docs/sparsity.md)
// and 4 x 4 blocks (four such blocks of four consecutive outputs at the same
// k), which a weight pruned in 4x4 blocks packs into (chooseBlockRows): the
// kernels then load each activation vector once for four outputs instead of
// once per output, which is what lets VNNI's int8 run at its peak.
//
// The packed form is one self-describing blob, stored in `.weights` as the
// op's weight buffer and read in place from the mapped file:
//
//   header (128 bytes)   magic "OSCSPRS1", version, element type, block
//                        shape, N, K, slab width, row group, number of
//                        non-zero blocks, offsets
//   With R = block rows (1 or 4) and Q = N / R block rows ("rows" below):
//   row_start[S * Q + 1] int32: first block of the j-th row of K-slab s at
//                        [s * Q + j] (a CSR per slab, slabs in order)
//   row_index[S * Q]     int32: the first output row of the j-th row of
//                        slab s
//   cols[nnz]            int32: the k of each block's first element
//   values[nnz * R * 4]  the block's weights, output by output (four per
//                        output), in the element type:
//                          f32   as is;
//                          s8    one dword per output, the operand of one
//                                `vpdpbusd` lane (VNNI);
//                          bf16  two dwords per output, pairs for
//                                `vdpbf16ps`.
//   row_scale[N]         f32, s8 only: the per-output dequantization scale
//   row_sum[N]           int32, s8 only: sum of the row's weights (the
//                        zero-point compensation of u8 activations)
//
// The reduction is cut into S slabs of `slab` consecutive k (the last one
// shorter) so that the kernels keep one slab of the packed activations in
// L1 while they run every output row's blocks in it (defaultSlab): for 1x4
// blocks 128 k for f32 (64 tokens x 128 x 4 bytes = 32 KiB), 1024 for s8
// (64 KiB), 256 for bf16; 4x4 blocks take up to 4096 k in one slab.
//
// Within a slab, rows are ordered by group of `group` (64) consecutive
// outputs, the kernels' output tile, and inside a group by their number of
// blocks in that slab. The kernels run rows two at a time: with the rows
// sorted, both rows of a pair have (nearly) the same trip count, and so does
// the next pair, which turns the loop exits the branch predictor missed on
// every row (at 90% sparsity a slab row has ~3 blocks) into predicted ones.
// Every section starts on a 64-byte boundary. Block columns are multiples of
// 4 (a block never straddles two rows' blocks of the activation pack).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_SPARSE_FORMAT_H
#define OPSCOPE_RUNTIME_SPARSE_FORMAT_H

#include "opscope/runtime/half.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace opscope::rt::sparse {

/// Element type of the packed values.
enum class ValueType : uint8_t { F32 = 0, S8 = 1, BF16 = 2 };

inline const char *valueTypeName(ValueType t) {
  switch (t) {
  case ValueType::F32:
    return "f32";
  case ValueType::S8:
    return "s8";
  case ValueType::BF16:
    return "bf16";
  }
  return "?";
}

/// R consecutive outputs x C consecutive reduction elements.
struct BlockShape {
  int64_t rows = 1, cols = 4;
  bool operator==(const BlockShape &o) const {
    return rows == o.rows && cols == o.cols;
  }
  std::string str() const {
    return std::to_string(rows) + "x" + std::to_string(cols);
  }
};

/// Parses "RxC" (e.g. "1x4"); false on anything else.
inline bool parseBlockShape(const std::string &s, BlockShape &b) {
  size_t x = s.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == s.size())
    return false;
  int64_t v[2] = {0, 0};
  const std::string parts[2] = {s.substr(0, x), s.substr(x + 1)};
  for (int i = 0; i < 2; ++i) {
    if (parts[i].size() > 6)
      return false;
    for (char c : parts[i]) {
      if (c < '0' || c > '9')
        return false;
      v[i] = v[i] * 10 + (c - '0');
    }
    if (v[i] <= 0)
      return false;
  }
  b.rows = v[0];
  b.cols = v[1];
  return true;
}

/// How many R x C blocks of an N x K weight are all zero. Blocks at the
/// edges (when R or C does not divide N or K) are the partial ones.
struct BlockSparsity {
  int64_t blocks = 0, zeroBlocks = 0;
  double ratio() const {
    return blocks ? static_cast<double>(zeroBlocks) / blocks : 0.0;
  }
};

inline BlockSparsity measure(const float *w, int64_t n, int64_t k,
                             BlockShape b) {
  BlockSparsity s;
  for (int64_t r0 = 0; r0 < n; r0 += b.rows)
    for (int64_t c0 = 0; c0 < k; c0 += b.cols) {
      bool zero = true;
      for (int64_t r = r0; zero && r < std::min(n, r0 + b.rows); ++r)
        for (int64_t c = c0; c < std::min(k, c0 + b.cols); ++c)
          if (w[r * k + c] != 0.0f) {
            zero = false;
            break;
          }
      ++s.blocks;
      s.zeroBlocks += zero;
    }
  return s;
}

constexpr char kMagic[8] = {'O', 'S', 'C', 'S', 'P', 'R', 'S', '1'};
constexpr uint32_t kVersion = 1;
constexpr int64_t kBlockCols = 4; // the kernels' block: 1 x 4
constexpr int64_t kRowGroup = 64;  // the kernels' output tile

struct Header {
  char magic[8];
  uint32_t version;
  uint8_t valueType;
  uint8_t blockRows, blockCols, reserved0;
  int64_t n, k, nnz, slab, group;
  uint64_t rowStartOffset, rowIndexOffset, colsOffset, valuesOffset,
      scaleOffset, rowSumOffset, totalBytes;
  uint8_t reserved[128 - 8 - 4 - 4 - 5 * 8 - 7 * 8];

  int64_t slabs() const { return (k + slab - 1) / slab; }
};
static_assert(sizeof(Header) == 128, "sparse header is 128 bytes");

inline uint64_t alignUp(uint64_t v) { return (v + 63) & ~uint64_t(63); }

inline uint64_t valueBytes(ValueType t) {
  return t == ValueType::F32 ? 4 : t == ValueType::S8 ? 1 : 2;
}

/// The K-slab width the kernels of a value type and block shape are tuned
/// for (bench-sparse, AMD EPYC Zen 5, docs/sparsity.md). 4x4 blocks load
/// each activation vector once per four outputs, so L2 feeds them well
/// enough: one slab up to K = 4096 (a 768x3072 int8 weight at 90%: 7.8x
/// with one slab, 6.8x with 1024-wide ones). 1x4 blocks load one per
/// output and want the slab in L1 (f32, 64 tokens x 128 x 4 bytes) or
/// close to it (s8: 1024 k is 64 KiB; 2.2x against 1.9x with 256 at 80%).
inline int64_t defaultSlab(ValueType t, int64_t blockRows = 1) {
  if (blockRows == 4)
    return 4096;
  return t == ValueType::F32 ? 128 : t == ValueType::S8 ? 1024 : 256;
}

/// The layout of a packed blob with `nnz` non-zero blocks of `blockRows`
/// x 4 (blockRows 1 or 4; 4 needs N to be a multiple of 4).
inline Header layout(ValueType t, int64_t n, int64_t k, int64_t nnz,
                     int64_t blockRows = 1) {
  Header h;
  std::memset(&h, 0, sizeof(h));
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.valueType = static_cast<uint8_t>(t);
  h.blockRows = static_cast<uint8_t>(blockRows);
  h.blockCols = kBlockCols;
  h.n = n;
  h.k = k;
  h.nnz = nnz;
  h.slab = defaultSlab(t, blockRows);
  h.group = kRowGroup;
  uint64_t off = sizeof(Header);
  h.rowStartOffset = off;
  int64_t q = n / blockRows;
  off = alignUp(off + 4 * uint64_t(h.slabs() * q + 1));
  h.rowIndexOffset = off;
  off = alignUp(off + 4 * uint64_t(h.slabs() * q));
  h.colsOffset = off;
  off = alignUp(off + 4 * uint64_t(nnz));
  h.valuesOffset = off;
  off = alignUp(off + blockRows * kBlockCols * valueBytes(t) * uint64_t(nnz));
  if (t == ValueType::S8) {
    h.scaleOffset = off;
    off = alignUp(off + 4 * uint64_t(n));
    h.rowSumOffset = off;
    off = alignUp(off + 4 * uint64_t(n));
  }
  h.totalBytes = off;
  return h;
}

/// Number of non-zero blockRows x 4 blocks (k padded to a multiple of 4
/// with zeros).
inline int64_t countNonZeroBlocks(const float *w, int64_t n, int64_t k,
                                  int64_t blockRows = 1) {
  BlockSparsity s = measure(w, n, k, {blockRows, kBlockCols});
  return s.blocks - s.zeroBlocks;
}

/// The block rows a weight packs best in: 4 when N is a multiple of 4 and
/// its non-zero 1x4 blocks line up in 4x4 blocks (a weight pruned with
/// `--block 4x4`, or a dense one), so that packing 4x4 adds at most 1/8
/// zero blocks to the work; otherwise 1.
inline int64_t chooseBlockRows(const float *w, int64_t n, int64_t k) {
  if (n % 4)
    return 1;
  int64_t nz1 = countNonZeroBlocks(w, n, k, 1);
  int64_t nz4 = countNonZeroBlocks(w, n, k, 4);
  return 8 * 4 * nz4 <= 9 * nz1 ? 4 : 1;
}

/// Rounds to bfloat16, nearest even (NaN stays NaN).
inline uint16_t toBf16(float f) { return floatToBfloat(f); }

inline float fromBf16(uint16_t b) { return bfloatToFloat(b); }

/// The symmetric s8 scale of one row of weights: max |w| / 127 (1 for an
/// all-zero row), and a weight quantized with it to [-127, 127].
inline float symmetricScale(const float *row, int64_t k) {
  float amax = 0.0f;
  for (int64_t c = 0; c < k; ++c)
    amax = std::max(amax, std::fabs(row[c]));
  return amax > 0.0f ? amax / 127.0f : 1.0f;
}
inline int8_t quantizeS8(float v, float scale) {
  float q = std::nearbyint(v / scale);
  return static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, q)));
}

/// Packs W (N x K, f32) in blocks of `blockRows` x 4 into `out`, which has
/// `layout(t, n, k, countNonZeroBlocks(w, n, k, blockRows),
/// blockRows).totalBytes` bytes (zeroed by the caller is not required). For
/// S8 the weights are quantized per output row, symmetric, to [-127, 127]
/// (the scales are in the blob). Returns the header written.
inline Header pack(const float *w, int64_t n, int64_t k, ValueType t,
                   void *out, int64_t blockRows = 1) {
  const int64_t br = blockRows;
  int64_t nnz = countNonZeroBlocks(w, n, k, br);
  Header h = layout(t, n, k, nnz, br);
  auto *base = static_cast<uint8_t *>(out);
  std::memset(base, 0, h.totalBytes);
  std::memcpy(base, &h, sizeof(h));
  auto *rowStart = reinterpret_cast<int32_t *>(base + h.rowStartOffset);
  auto *cols = reinterpret_cast<int32_t *>(base + h.colsOffset);
  uint8_t *values = base + h.valuesOffset;
  float *scale = t == ValueType::S8
                     ? reinterpret_cast<float *>(base + h.scaleOffset)
                     : nullptr;
  int32_t *rowSum = t == ValueType::S8
                        ? reinterpret_cast<int32_t *>(base + h.rowSumOffset)
                        : nullptr;
  // Per-row quantization scales first (s8): a row spans every slab.
  for (int64_t r = 0; r < n && scale; ++r) {
    scale[r] = symmetricScale(w + r * k, k);
    rowSum[r] = 0;
  }
  auto *rowIndex = reinterpret_cast<int32_t *>(base + h.rowIndexOffset);
  // Is the block of rows [r0, r0 + br) at c0 all zero?
  auto isZero = [&](int64_t r0, int64_t c0) {
    for (int64_t r = r0; r < r0 + br; ++r)
      for (int64_t j = 0; j < kBlockCols && c0 + j < k; ++j)
        if (w[r * k + c0 + j] != 0.0f)
          return false;
    return true;
  };
  const int64_t q = n / br, perBlock = br * kBlockCols;
  int64_t b = 0;
  std::vector<std::pair<int64_t, int64_t>> order; // (blocks, first row)
  for (int64_t s = 0; s < h.slabs(); ++s) {
    int64_t c1 = std::min(k, (s + 1) * h.slab);
    for (int64_t g0 = 0; g0 < n; g0 += h.group) {
      order.clear();
      for (int64_t r = g0; r < std::min(n, g0 + h.group); r += br) {
        int64_t count = 0;
        for (int64_t c0 = s * h.slab; c0 < c1; c0 += kBlockCols)
          count += !isZero(r, c0);
        order.emplace_back(count, r);
      }
      std::stable_sort(order.begin(), order.end());
      for (size_t j = 0; j < order.size(); ++j) {
        int64_t r0 = order[j].second, pos = s * q + g0 / br + j;
        rowStart[pos] = static_cast<int32_t>(b);
        rowIndex[pos] = static_cast<int32_t>(r0);
        for (int64_t c0 = s * h.slab; c0 < c1; c0 += kBlockCols) {
          if (isZero(r0, c0))
            continue;
          cols[b] = static_cast<int32_t>(c0);
          for (int64_t i = 0; i < br; ++i) {
            int64_t r = r0 + i;
            for (int64_t j2 = 0; j2 < kBlockCols; ++j2) {
              float v = c0 + j2 < k ? w[r * k + c0 + j2] : 0.0f;
              int64_t at = b * perBlock + i * kBlockCols + j2;
              if (t == ValueType::F32) {
                std::memcpy(values + at * 4, &v, 4);
              } else if (t == ValueType::BF16) {
                uint16_t h16 = toBf16(v);
                std::memcpy(values + at * 2, &h16, 2);
              } else {
                int8_t q8 = quantizeS8(v, scale[r]);
                values[at] = static_cast<uint8_t>(q8);
                rowSum[r] += q8;
              }
            }
          }
          ++b;
        }
      }
    }
  }
  rowStart[h.slabs() * q] = static_cast<int32_t>(b);
  return h;
}

/// The dense N x K weight a blob holds (`w` has N * K floats): f32 values
/// as they are, bf16 widened, s8 times its row's scale; zero elsewhere.
inline void unpack(const void *blob, float *w) {
  Header h;
  std::memcpy(&h, blob, sizeof(h));
  auto *base = static_cast<const uint8_t *>(blob);
  auto *rowStart = reinterpret_cast<const int32_t *>(base + h.rowStartOffset);
  auto *rowIndex = reinterpret_cast<const int32_t *>(base + h.rowIndexOffset);
  auto *cols = reinterpret_cast<const int32_t *>(base + h.colsOffset);
  const uint8_t *values = base + h.valuesOffset;
  auto *scale = h.scaleOffset
                    ? reinterpret_cast<const float *>(base + h.scaleOffset)
                    : nullptr;
  auto t = static_cast<ValueType>(h.valueType);
  const int64_t br = h.blockRows, q = h.n / br, perBlock = br * kBlockCols;
  std::fill(w, w + h.n * h.k, 0.0f);
  for (int64_t pos = 0; pos < h.slabs() * q; ++pos)
    for (int32_t b = rowStart[pos]; b < rowStart[pos + 1]; ++b)
      for (int64_t i = 0; i < br; ++i)
        for (int64_t j = 0; j < kBlockCols && cols[b] + j < h.k; ++j) {
          int64_t r = rowIndex[pos] + i, at = b * perBlock + i * kBlockCols + j;
          float v;
          if (t == ValueType::F32) {
            std::memcpy(&v, values + at * 4, 4);
          } else if (t == ValueType::BF16) {
            uint16_t h16;
            std::memcpy(&h16, values + at * 2, 2);
            v = fromBf16(h16);
          } else {
            v = static_cast<int8_t>(values[at]) * scale[r];
          }
          w[r * h.k + cols[b] + j] = v;
        }
}

/// Checks a blob read from a file: magic, version, sizes and every index.
/// Returns an empty string when it is well formed, else what is wrong.
inline std::string validate(const void *blob, uint64_t bytes) {
  if (bytes < sizeof(Header))
    return "shorter than its header";
  Header h;
  std::memcpy(&h, blob, sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0)
    return "not a packed sparse weight (bad magic)";
  if (h.version != kVersion)
    return "packed sparse weight version " + std::to_string(h.version) +
           ", this runtime reads " + std::to_string(kVersion);
  if (h.valueType > 2 || (h.blockRows != 1 && h.blockRows != 4) ||
      h.blockCols != kBlockCols)
    return "unsupported element type or block shape";
  const int64_t br = h.blockRows;
  if (h.n <= 0 || h.k <= 0 || h.nnz < 0 || h.n > (int64_t(1) << 31) ||
      h.k > (int64_t(1) << 31) || h.n % br ||
      h.nnz > h.n / br * ((h.k + 3) / 4))
    return "bad dimensions";
  Header want =
      layout(static_cast<ValueType>(h.valueType), h.n, h.k, h.nnz, br);
  if (std::memcmp(&want, &h, sizeof(h)) != 0 || h.totalBytes != bytes)
    return "inconsistent section offsets or size";
  auto *base = static_cast<const uint8_t *>(blob);
  auto *rowStart = reinterpret_cast<const int32_t *>(base + h.rowStartOffset);
  auto *cols = reinterpret_cast<const int32_t *>(base + h.colsOffset);
  auto *rowIndex = reinterpret_cast<const int32_t *>(base + h.rowIndexOffset);
  const int64_t q = h.n / br, rows = h.slabs() * q;
  if (rowStart[0] != 0 || rowStart[rows] != h.nnz)
    return "bad row starts";
  std::vector<int64_t> seen(h.n, -1);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t s = i / q, j = i % q * br, g0 = j / h.group * h.group;
    int64_t r = rowIndex[i];
    if (r < g0 || r >= std::min(h.n, g0 + h.group) || r % br || seen[r] == s)
      return "row index " + std::to_string(r) + " out of its group or repeated";
    seen[r] = s;
    if (rowStart[i + 1] < rowStart[i])
      return "row starts decrease at row " + std::to_string(r);
    for (int32_t b = rowStart[i]; b < rowStart[i + 1]; ++b)
      if (cols[b] < s * h.slab || cols[b] % kBlockCols ||
          cols[b] >= std::min(h.k, (s + 1) * h.slab))
        return "block column out of range at row " + std::to_string(r);
  }
  return {};
}

} // namespace opscope::rt::sparse

#endif // OPSCOPE_RUNTIME_SPARSE_FORMAT_H
