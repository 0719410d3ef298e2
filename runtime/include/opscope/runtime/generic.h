//===- generic.h - elementwise, reduction and data-movement kernels -*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The kernels behind every osc
// op that is neither oneDNN's nor one of the fused kernels of kernels.h:
// broadcasting elementwise arithmetic, comparisons, reductions, and data
// movement (transpose, gather, concat, slice, pad, cast, resize). Tensors are
// dense row-major; shapes are given in elements.
//
// Hot inner loops are compiled twice (AVX-512 and baseline x86-64, chosen
// per process by the loader's ifunc resolver via `target_clones`).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_GENERIC_H
#define OPSCOPE_RUNTIME_GENERIC_H

#include "opscope/runtime/kinds.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opscope::rt {

using Shape = std::vector<int64_t>;

/// The plan's name of an element type (`f32`, `i64`, `i1`, `u8`, ...).
inline const char *dtypeName(DType t) { return kindName(t); }
inline std::optional<DType> parseDType(const std::string &name) {
  return parseKind<DType>(name);
}
/// Whether the generic kernels compute on this type (not f16/bf16).
bool dtypeComputable(DType t);
int64_t numElements(const Shape &s);

/// How a kernel walks its output: dimensions of size 1 dropped and those
/// contiguous for every operand merged, with each operand's element strides
/// per merged dimension (operand 0 is the output) and start offsets. The
/// runtime builds one per op when a model is loaded, so the kernels taking a
/// walk do no setup per run.
struct StridedWalk {
  Shape dims;
  std::vector<Shape> strides;
  std::vector<int64_t> base;
};
/// The output `y` (contiguous) and each input broadcast to it (numpy rules).
StridedWalk broadcastWalk(const Shape &y, const std::vector<Shape> &inputs);
/// A contiguous output and the input read through a permutation.
StridedWalk transposeWalk(const Shape &x, const std::vector<int64_t> &perm);
/// A contiguous output and the input read from `starts` by `steps`.
StridedWalk sliceWalk(const Shape &x, const std::vector<int64_t> &starts,
                      const Shape &y, const std::vector<int64_t> &steps);
/// A copy whose contiguous output's innermost dimension is short (2 to 8)
/// while the input is contiguous along the output's next dimension: a
/// depth-to-space shuffle (ConvTranspose as 1x1 convolution plus
/// transpose). Row by row it would copy 2 elements at a time; this walks
/// `outer` (the walk without its innermost dimension) and copies each of
/// the `inner` interleaved lanes with contiguous reads.
struct ShortInnerWalk {
  StridedWalk outer;
  int64_t inner = 0, innerStride = 0; ///< extent, input stride (elements)
};
std::optional<ShortInnerWalk> shortInnerWalk(const StridedWalk &w);
void stridedCopyShortInner(const void *x, void *y, const ShortInnerWalk &w,
                           size_t elemSize);

/// The kernels below over a prebuilt walk (broadcastWalk of the operands;
/// stridedCopy takes any walk of one input).
void binary(BinaryKind k, DType t, const void *a, const void *b, void *y,
            const StridedWalk &w);
void compare(CompareKind k, DType t, const void *a, const void *b, uint8_t *y,
             const StridedWalk &w);
void where(const uint8_t *cond, const void *a, const void *b, void *y,
           const StridedWalk &w, size_t elemSize);
void stridedCopy(const void *x, void *y, const StridedWalk &w,
                 size_t elemSize);

/// y = f(x) over n elements of type t. alpha/beta as in osc.unary (leaky
/// slope, elu alpha, clip bounds, hard_sigmoid alpha/beta).
void unary(UnaryKind k, DType t, const void *x, void *y, int64_t n,
           float alpha, float beta);

/// y = a (op) b with numpy broadcasting of a and b to yShape.
void binary(BinaryKind k, DType t, const void *a, const Shape &aShape,
            const void *b, const Shape &bShape, void *y, const Shape &yShape);

/// y (i1) = a (cmp) b with numpy broadcasting; t is the operand type.
void compare(CompareKind k, DType t, const void *a, const Shape &aShape,
             const void *b, const Shape &bShape, uint8_t *y,
             const Shape &yShape);

/// y = cond ? a : b with broadcasting; elements of elemSize bytes.
void where(const uint8_t *cond, const Shape &cShape, const void *a,
           const Shape &aShape, const void *b, const Shape &bShape, void *y,
           const Shape &yShape, size_t elemSize);

/// Reduces x over `axes` (sorted, non-negative); y has x's shape with those
/// dimensions removed or kept as 1 (the element count is the same).
void reduce(ReduceKind k, DType t, const void *x, const Shape &xShape,
            const std::vector<int64_t> &axes, void *y);

/// ONNX ArgMax (or ArgMin with `min`): the index of the first (or with
/// `last` the last) extreme element along `axis`; y has x's shape without
/// that dimension.
void argReduce(bool min, bool last, DType t, const void *x,
               const Shape &xShape, int64_t axis, int64_t *y);

void transpose(const void *x, const Shape &xShape,
               const std::vector<int64_t> &perm, void *y, size_t elemSize);
/// A transpose that is `batch` matrix transposes of 32-bit elements:
/// y[b][c][r] = x[b][r][c], in 16 x 16 register blocks (AVX-512) or loops.
void transposeMatrices32(const void *x, int64_t batch, int64_t rows,
                         int64_t cols, void *y);
/// When `perm` on `shape` is such a transpose (an identity prefix, then the
/// remaining dims rotated), its batch, rows and cols.
bool asMatrixTranspose(const Shape &shape, const std::vector<int64_t> &perm,
                       int64_t &batch, int64_t &rows, int64_t &cols);
void broadcastTo(const void *x, const Shape &xShape, void *y,
                 const Shape &yShape, size_t elemSize);
/// ONNX Gather: indices (i32 or i64, negative counts from the end) select
/// along `axis`. Returns false, leaving y partly written, on an index out of
/// range (reported by the caller).
bool gather(const void *data, const Shape &dShape, const void *indices,
            DType indexType, int64_t numIndices, int64_t axis, void *y,
            size_t elemSize);
/// ONNX GatherElements: y (the indices' shape) takes data at each index's
/// position with `axis` replaced by the index (negative counts from the
/// end). Returns false on an index out of range.
bool gatherElements(const void *data, const Shape &dShape, const void *indices,
                    DType indexType, const Shape &iShape, int64_t axis,
                    void *y, size_t elemSize);
/// ONNX MaxUnpool: y (yElements of elemSize bytes) zeroed, then
/// y[indices[i]] = x[i] for each of the n inputs. False when an index is
/// outside [0, yElements).
bool maxUnpool(const void *x, const int64_t *indices, int64_t n, void *y,
               int64_t yElements, size_t elemSize);
void concat(const std::vector<const void *> &inputs,
            const std::vector<Shape> &shapes, int64_t axis, void *y,
            size_t elemSize);
/// Strided slice: y[i] = x[starts + i * steps] per dimension (steps may be
/// negative; starts already clamped by the compiler).
void slice(const void *x, const Shape &xShape, const std::vector<int64_t> &starts,
           const Shape &yShape, const std::vector<int64_t> &steps, void *y,
           size_t elemSize);
/// What pad() works out from the shapes alone, once (a kernel binds it at
/// load): the fill row of the constant, where each element of an output row
/// reads in its input row, and the middle [lo, hi) copied in one piece.
struct PadPlan {
  PadMode mode = PadMode::Constant;
  size_t elemSize = 0;
  Shape xShape, yShape, xStrides;
  std::vector<int64_t> pads;
  std::vector<char> fillRow;
  std::vector<int64_t> col;
  int64_t lo = 0, hi = 0;
};
/// pads = [begin_0..begin_n, end_0..end_n] (negative crops).
PadPlan planPad(PadMode mode, DType t, const Shape &xShape,
                const std::vector<int64_t> &pads, double value,
                const Shape &yShape);
void pad(const PadPlan &plan, const void *x, void *y);
/// planPad and pad in one call.
void pad(PadMode mode, DType t, const void *x, const Shape &xShape,
         const std::vector<int64_t> &pads, double value, void *y,
         const Shape &yShape);
/// Converts n elements. Float to int truncates toward zero; to i1 tests for
/// non-zero. f16 (an fp16 model's graph inputs and outputs) converts through
/// f32, to f16 rounding to nearest even.
void cast(DType from, const void *x, DType to, void *y, int64_t n);
/// Whether cast() runs the pair on the kernel table's vector loops (f32,
/// f64, i32, i64 among themselves; u8 and i8 to f32, i32, i64), not the
/// generic one.
bool castVectorized(DType from, DType to);

struct ResizeParams {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestMode nearest = NearestMode::RoundPreferFloor;
  float cubicA = -0.75f;
  bool excludeOutside = false;
  /// One per dimension; empty means output / input.
  std::vector<float> scales;
  /// tf_crop_and_resize: the box's starts, then its ends, one per
  /// dimension (fractions of input - 1); an output whose coordinate falls
  /// outside the input in any dimension is `extrapolationValue`.
  std::vector<float> roi;
  float extrapolationValue = 0.0f;
};
/// ONNX Resize over f32, every dimension independently (separable).
void resize(const ResizeParams &p, const float *x, const Shape &xShape,
            float *y, const Shape &yShape);

/// Nearest or linear resize of the last two dimensions only (every leading
/// dimension kept): the taps of each output row and column are planned
/// once, each source row is resampled horizontally once per plane, and
/// output rows blend (or, for nearest, copy) those.
struct Resize2DPlan {
  int64_t planes = 0, inH = 0, inW = 0, outH = 0, outW = 0;
  /// Two taps per output index (the second with weight 0 for nearest).
  std::vector<int64_t> rowSrc[2], colSrc[2];
  std::vector<float> rowW[2], colW[2];
  /// Every column takes one source column whole (nearest, or an integer
  /// scale): rows are resampled by copying.
  bool colCopy = false;
  /// Bilinear with ONNX Runtime's weights, blended in its order of
  /// operations (planResize2D, resize2D).
  bool ortOrder = false;
  /// With ortOrder, the columns in blocks of kWindowCols outputs (the
  /// tail past the last whole block has none), kWindowInts values a
  /// block: the source column of its first output's first tap, then each
  /// output's two taps as offsets from it, first taps then second taps;
  /// -1 first where some tap is not within kWindowCols columns of it.
  /// The vector tiers' row blends a block from one load of that window of
  /// each source row (KernelTable::resizeRowOrt).
  static constexpr int64_t kWindowCols = 8, kWindowInts = 1 + 2 * kWindowCols;
  std::vector<int32_t> colWindows;
};
/// The plan, or nullopt when `p` or the shapes need the general resize.
std::optional<Resize2DPlan> planResize2D(const ResizeParams &p,
                                         const Shape &xShape,
                                         const Shape &yShape);
void resize2D(const Resize2DPlan &plan, const float *x, float *y);
/// The same resize of `N x C x H x W` tensors held channels-last (NHWC in
/// memory) in both `x` and `y`; `plan.planes` is N * C.
void resize2DNhwc(const Resize2DPlan &plan, int64_t channels, const float *x,
                  float *y);

/// Inference batch norm over N x C x ...: y = (x - mean) / sqrt(var + eps)
/// * scale + bias.
void batchNorm(const float *x, const Shape &shape, const float *scale,
               const float *bias, const float *mean, const float *var,
               float eps, float *y);
/// ONNX Einsum's general form (osc.einsum): `labels` holds each input's
/// labels, one per dimension, then the output's; y[output labels] is the
/// sum over the other labels of the inputs' product (a label repeated in an
/// input: its diagonal; size 1 in an input: broadcast). y must not overlap
/// an input. f32, f64, i32 and i64; false for other types.
bool einsum(DType type, const std::vector<const void *> &inputs,
            const std::vector<Shape> &shapes, const Shape &labels,
            const Shape &outShape, void *y);
/// ONNX Det: the determinant of each of the ... x n x n input's matrices
/// (n >= 0; an empty matrix's is 1), by LU factorisation with partial
/// pivoting in double. f32 and f64; false for other types.
bool det(DType type, const void *x, const Shape &shape, void *y);
/// ONNX GridSample of an N x C x D1..Dk input `x` at the N x O1..Ok x k
/// `grid` (x, the last dimension's coordinate, first) into N x C x O1..Ok:
/// nearest (half to even), linear or cubic (A = -0.75) taps, padded as
/// zeros (Constant), border (Edge) or reflection (Reflect).
void gridSample(const float *x, const Shape &xs, const float *grid,
                const Shape &gs, ResizeMode mode, PadMode pad,
                bool alignCorners, float *y);
/// ONNX RoiAlign of an N x C x H x W input into numRois x C x outH x outW:
/// each bin the average (or with isMax the maximum) of its bilinear
/// samples. False when a batch index is outside [0, N).
bool roiAlign(const float *x, const Shape &xs, const float *rois,
              const int64_t *batchIndices, int64_t numRois, int64_t outH,
              int64_t outW, int64_t samplingRatio, float spatialScale,
              bool halfPixel, bool isMax, float *y);
/// ONNX InstanceNormalization of an N x C x ... input: each sample's
/// channel normalized over its spatial positions (biased variance), then
/// scaled and shifted by the channel's scale and bias. The kernel table's
/// row, the rows split over the threads.
void instanceNorm(const float *x, const Shape &shape, const float *scale,
                  const float *bias, float eps, float *y);
/// ONNX LRN of an N x C x ... input: each element divided by (bias +
/// alpha / size * the sum of squares over its channel window)^beta, the
/// window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to the
/// channels. `y` must not overlap `x`. The kernel table's row per channel,
/// split over the threads.
void lrn(const float *x, const Shape &shape, int64_t size, float alpha,
         float beta, float bias, float *y);
/// Max or average over all spatial dims of N x C x ...; y is N x C.
void globalPool(bool isMax, const float *x, const Shape &shape, float *y);
/// 2-D max pooling of channels-last buffers: `input` and `output` are the
/// N x C x H x W shapes, held N x H x W x C; `pads` begin then end, as
/// ONNX's (padded positions never win; a window entirely in padding gives
/// the lowest float, as oneDNN's). The kernel table's pixel maximum.
void maxPool2DNhwc(const float *x, const Shape &input, const Shape &output,
                   const Shape &kernel, const Shape &strides,
                   const Shape &pads, const Shape &dilations, float *y);
/// The same over plain N x C x H x W buffers, row by row: where oneDNN has
/// only its scalar `simple_nchw` kernel (plain layouts above about 64x64,
/// AVX-512 tier: 155 ms for a 1x64x512x512 2x2 pool).
void maxPool2DNchw(const float *x, const Shape &input, const Shape &output,
                   const Shape &kernel, const Shape &strides,
                   const Shape &pads, const Shape &dilations, float *y);
/// ONNX MaxPool where oneDNN's pooling does not serve (osc.indexed_max_pool):
/// f32, f64, i8 or u8 elements of type `t`, 1 to 3 spatial dimensions,
/// `pads` begin then end (padded cells never win). With `indices`, each
/// output's argmax (the first in window order on ties) flat over the input:
/// row major, or column major within each image's spatial dimensions
/// (`columnMajor`, ONNX's storage_order 1). A window with no input cell
/// gives the type's lowest value and index -1, as ONNX Runtime does.
/// Returns false for an element type it does not cover.
bool indexedMaxPool(DType t, const void *x, const Shape &input,
                    const Shape &output, const Shape &kernel,
                    const Shape &strides, const Shape &pads,
                    const Shape &dilations, bool columnMajor, void *y,
                    int64_t *indices);
/// Softmax along any axis (the last axis should use rt::softmax instead).
void softmaxAxis(const float *x, const Shape &shape, int64_t axis, bool log,
                 float *y);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_GENERIC_H
