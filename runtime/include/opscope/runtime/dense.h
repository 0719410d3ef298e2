//===- dense.h - oneDNN-backed dense kernels --------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). Dense compute goes through
// oneDNN, which picks AMX, AVX-512 BF16/VNNI or AVX2 at run time. Every
// primitive is created, and its weights reordered into oneDNN's preferred
// (blocked) layout, once when the kernel is constructed; run() only binds
// pointers and executes.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_DENSE_H
#define OPSCOPE_RUNTIME_DENSE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opscope::rt {

/// Post-operations, in the order they apply (mirrors osc's post_ops).
enum class PostOp { Relu, GeluErf, GeluTanh, Sigmoid, Tanh, HardSwish, Sum };

/// y[M x N] = post_ops(x[M x K] * W^T + b), W given as N x K (row-major),
/// as osc.inner_product holds it.
class InnerProduct {
public:
  /// Builds the primitive and packs `weights` (N x K, copied). `bias` (N) is
  /// copied too; either may be released by the caller afterwards.
  InnerProduct(int64_t m, int64_t k, int64_t n, const float *weights,
               const float *bias, std::vector<PostOp> postOps);
  ~InnerProduct();
  InnerProduct(const InnerProduct &) = delete;
  InnerProduct &operator=(const InnerProduct &) = delete;

  /// Runs on `x` (M x K) into `y` (M x N). With a Sum post-op, `sum` (M x N)
  /// is added; it may alias `y`.
  void run(const float *x, float *y, const float *sum = nullptr);

  /// oneDNN's implementation name (e.g. `brgemm:avx512_core`), for reports.
  std::string implementation() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_DENSE_H
