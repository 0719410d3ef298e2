//===- kernels.h - opscope's own CPU kernels --------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The kernels oneDNN does not
// provide, over row-major f32 data. Each runs the form of the kernel table's
// tier (kernelTier): AVX-512, AVX2 + FMA, or the reference C++. The vector
// forms use polynomial exp/erf/tanh (within 2e-7 absolute of the libm
// values on the ranges that matter, see the tests), the reference uses
// libm.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_KERNELS_H
#define OPSCOPE_RUNTIME_KERNELS_H

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/kinds.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opscope::rt {

/// The ISA cap for A/B comparisons, in oneDNN's names: `OPSCOPE_MAX_ISA`
/// (or, when unset, `DNNL_MAX_CPU_ISA`) = sse41, avx2, avx512_core,
/// avx512_core_vnni, avx512_core_bf16, avx512_core_amx or all (IsaLevel,
/// cpu.h). Read once per process; opscope's kernels and oneDNN (which gets
/// the same cap before its first primitive) both honour it. An unknown
/// value is reported on stderr once and ignored.
IsaLevel maxIsa();
inline bool isaAllowed(IsaLevel level) { return level <= maxIsa(); }
/// This CPU's best level within the cap: what oneDNN runs at, and the
/// highest tier of opscope's own kernel table.
inline IsaLevel cpuTier() { return levelWithin(maxIsa()); }
/// The cap's oneDNN name ("all" when there is none).
const char *isaLevelName(IsaLevel level);

/// The tier of opscope's own kernels in this process: the level their
/// table (runtime/lib/kernels/KernelTable.h) was filled for, the CPU's best
/// within the cap unless setKernelTier chose a lower one. The kernel table
/// has forms for the reference (plain C++, any CPU: Sse41 here), avx2
/// (AVX2 + FMA), avx512_core, and the VNNI levels (avx2_vnni,
/// avx512_core_vnni) and BF16 level for the sparse s8 and bf16 kernels.
IsaLevel kernelTier();
/// The name of the tier whose f32 kernels run ("reference", "avx2",
/// "avx512"), as kernel names carry it (`opscope:layer_norm:avx2`).
const char *kernelTierName();
/// Rebuilds the table at `level`, lowered to what the CPU and the cap
/// allow, and returns the level it got (tests and benchmarks compare the
/// tiers; do not call it while kernels run).
IsaLevel setKernelTier(IsaLevel level);
/// Every level the kernel table has forms for, lowest first: the
/// reference (Sse41), avx2, avx2_vnni, avx512_core, and the VNNI and BF16
/// levels of the sparse s8 and bf16 kernels. What tests, bench-kernels and
/// fuzz-kernels walk through with setKernelTier.
inline const std::vector<IsaLevel> &kernelTableLevels() {
  static const std::vector<IsaLevel> levels = {
      IsaLevel::Sse41,      IsaLevel::Avx2,           IsaLevel::Avx2Vnni,
      IsaLevel::Avx512Core, IsaLevel::Avx512CoreVnni, IsaLevel::Avx512CoreBf16};
  return levels;
}

/// y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta, for each of
/// `rows` rows of `cols` elements. `beta` may be null.
void layerNorm(const float *x, const float *gamma, const float *beta, float *y,
               int64_t rows, int64_t cols, float eps);

/// The same with a bf16 output (a bf16 chain's hand-over, osc-bf16-chains):
/// computed in f32 a block of rows at a time, then rounded to nearest even.
void layerNorm(const float *x, const float *gamma, const float *beta,
               uint16_t *y, int64_t rows, int64_t cols, float eps);

/// The same normalization in the transposed layout the sparse chains keep
/// (osc-sparse-layout): x and y are `cols x rows` (hidden x tokens), and
/// every column is normalized over its `cols` elements; gamma and beta have
/// `cols` elements, one per row of x.
void layerNormTransposed(const float *x, const float *gamma, const float *beta,
                         float *y, int64_t rows, int64_t cols, float eps);

/// Row-wise softmax (or log-softmax) of x + mask. When `mask` is non-null,
/// row r adds mask row `r / maskRowGroup` (of `cols` elements): a
/// `B x 1 x 1 x S` attention mask over `B x H x S x S` scores has
/// maskRowGroup = H * S.
void softmax(const float *x, const float *mask, int64_t maskRowGroup,
             float *y, int64_t rows, int64_t cols, bool log);
/// The same with a bf16 output (osc-bf16-chains), computed in f32 a block
/// of rows at a time, then rounded to nearest even.
void softmax(const float *x, const float *mask, int64_t maskRowGroup,
             uint16_t *y, int64_t rows, int64_t cols, bool log);

/// softmax()'s `maskRowGroup` for a mask of `maskShape` broadcast over
/// scores of `shape` (softmax over the last axis), when the mask varies
/// only over leading dimensions and the last one (B x 1 x 1 x S over B x H
/// x S x S: H * S); 0 when it varies otherwise (it needs a broadcast add).
inline int64_t softmaxMaskRowGroup(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &maskShape) {
  size_t rank = shape.size();
  if (rank < 1 || maskShape.size() > rank)
    return 0;
  std::vector<int64_t> m(rank - maskShape.size(), 1);
  m.insert(m.end(), maskShape.begin(), maskShape.end());
  if (m.back() != shape.back())
    return 0;
  size_t k = 0;
  while (k + 1 < rank && m[k] == shape[k])
    ++k;
  int64_t group = 1;
  for (size_t i = k; i + 1 < rank; ++i) {
    if (m[i] != 1)
      return 0;
    group *= shape[i];
  }
  return group;
}

/// GELU over n elements: erf form 0.5 x (1 + erf(x / sqrt 2)), or the tanh
/// form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu(const float *x, float *y, int64_t n, bool tanhForm);

/// Rounds n floats to bfloat16 (nearest even).
void roundToBf16(const float *x, uint16_t *y, int64_t n);
/// The same rounding, kept in f32 (the low 16 bits zero): what bf16
/// products computed on f32 units read, so that they equal the bf16 ones.
void roundToBf16AsF32(const float *x, float *y, int64_t n);
/// bf16 to f32 (exact).
void bf16ToF32(const uint16_t *x, float *y, int64_t n);
/// Whether the CPU multiplies bf16 in hardware (AVX512-BF16, which every
/// AMX CPU has too) within the ISA cap. Without it oneDNN's bf16 kernels
/// emulate it (measured ~3x slower than f32 on an Ice Lake Xeon), and the
/// bf16 inner products, matmuls and convolutions run f32 kernels on the
/// bf16-rounded weights and the f32 activations as they are instead: f32
/// speed (block-sparse bf16 rounds its activations too, sparse.h).
bool nativeBf16();

/// Quantizes n floats to u8 (int8 inner products): q = clamp(round(x /
/// scale) + zeroPoint, 0, 255), rounding to nearest even. NaN quantizes
/// to 0.
void quantizeU8(const float *x, uint8_t *q, int64_t n, float scale,
                int32_t zeroPoint);
/// Quantizes n floats to s8 symmetrically: q = clamp(round(x / scale),
/// -128, 127), rounding to nearest even.
void quantizeS8(const float *x, int8_t *q, int64_t n, float scale);
/// Whether int8 dot products cannot saturate at the tier in force. AVX-VNNI
/// and AVX-512 VNNI (vpdpbusd) and AMX accumulate u8 x s8 products in
/// int32; without them oneDNN's int8 kernels multiply with vpmaddubsw,
/// which saturates the sum of two u8 x s8 products at 16 bits (oneDNN's
/// "Nuances of int8 computations") unless every |w| <= 64: 2 x 255 x 64 =
/// 32640.
inline bool int8SaturationFree() { return hasVnni(cpuTier()); }
/// The largest |w| int8 weights may have for oneDNN's int8 kernels at the
/// tier in force: 127, or 64 where they would saturate (7-bit weights, as
/// ONNX Runtime's reduce_range).
inline int int8WeightLimit() { return int8SaturationFree() ? 127 : 64; }

/// The largest |x| of n floats (0 for n = 0; NaN is skipped), for dynamic
/// quantization.
float maxAbs(const float *x, int64_t n);

/// Elementwise transcendental functions over n f32 elements (the unfused
/// forms of GELU, sigmoid and softmax use them).
enum class Transcendental { Exp, Erf, Tanh, Sigmoid };
void transcendental(Transcendental f, const float *x, float *y, int64_t n);

/// One recurrent layer (osc.rnn, ONNX LSTM/GRU/RNN semantics).
struct RnnDesc {
  RnnCell cell = RnnCell::Lstm;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false, batchFirst = false, inputForget = false,
       linearBeforeReset = false;
  float clip = 0; ///< 0: no clipping
  /// Per direction, in ONNX order (LSTM f g h, GRU f g, RNN f).
  std::vector<RnnActivation> activations;
  std::vector<float> alpha, beta;
};
struct RnnBuffers {
  const float *x = nullptr, *w = nullptr, *r = nullptr;
  const float *b = nullptr, *h0 = nullptr, *c0 = nullptr, *p = nullptr;
  const int64_t *lens = nullptr; ///< per batch element, or null (all seq)
  float *y = nullptr, *yh = nullptr, *yc = nullptr;
};
/// Runs the layer: y gets every hidden state (zero past a sequence's
/// length), yh and yc (when non-null) the last ones.
void rnnLayer(const RnnDesc &desc, const RnnBuffers &io);

/// The same layer on oneDNN's RNN primitive (lstm_forward, gru_forward,
/// lbr_gru_forward, vanilla_rnn_forward), built once: weights put in
/// oneDNN's gate order and packed at construction, run() only binds
/// pointers. Only for the layers fits() accepts.
class DnnlRnnLayer {
public:
  /// Whether oneDNN computes `desc` as ONNX does: default activations (an
  /// RNN's one tanh, relu or sigmoid), no clip, no input_forget, no
  /// sequence lengths, and batch-first only with one direction.
  static bool fits(const RnnDesc &desc, bool hasLengths);
  /// `w`, `r`, `b`, `p` as ONNX holds them (b and p may be null); whether
  /// run() will get initial states. Throws std::invalid_argument when the
  /// layer does not fit and oneDNN's exceptions when it cannot build it.
  DnnlRnnLayer(const RnnDesc &desc, const float *w, const float *r,
               const float *b, const float *p, bool hasH0, bool hasC0);
  ~DnnlRnnLayer();
  DnnlRnnLayer(const DnnlRnnLayer &) = delete;
  DnnlRnnLayer &operator=(const DnnlRnnLayer &) = delete;
  /// ONNX's layouts; h0/c0 as promised at construction, yc only for LSTM.
  void run(const float *x, const float *h0, const float *c0, float *y,
           float *yh, float *yc);
  /// oneDNN's implementation name (`ref:any`, `brgemm:...`).
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_KERNELS_H
