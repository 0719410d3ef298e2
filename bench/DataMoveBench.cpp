//===- DataMoveBench.cpp - data movement against the copy bandwidth -------===//
//
// Part of opscope. The roofline of the ops that only move data or do one
// cheap operation per element, on 1024x1024 activations (16 channels of
// f32: 64 MiB a tensor, far beyond the caches): concat, bilinear 2x resize
// and pad, NCHW and channels-last as osc-conv-layout runs them, and the
// element-wise ops left alone between convolutions (every activation a
// model can leave unfused, with ONNX's default parameters, and a
// same-shaped Add). Each row's `copy_%` is its bytes (every input read
// once, the output written once) per second against this process's
// measured memcpy bandwidth of the same size: the goal is >= 50%.
// Runs at the tier in force (OPSCOPE_MAX_ISA lowers it), in rounds that
// alternate memcpy and the op. Prints figures; it never fails on them.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace opscope::rt;

namespace {
constexpr int64_t kC = 16, kH = 1024, kW = 1024;
constexpr int64_t kElems = kC * kH * kW;
constexpr double kTensorBytes = double(kElems) * sizeof(float);

/// Keeps the compiler from dropping a result nobody reads.
void escape(void *p) { asm volatile("" : : "g"(p) : "memory"); }

/// The median of `runs` timed calls of `f`, in seconds.
double medianSeconds(const std::function<void()> &f, int runs) {
  std::vector<double> s;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    s.push_back(std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                    .count());
  }
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  return s[s.size() / 2];
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// One row: what it runs and the bytes it must move (every input read
/// once, the output written once).
struct Case {
  std::string name;
  double bytes;
  std::function<void()> run;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  // Two 8-channel halves into one 16-channel tensor (an FPN's or a
  // U-block's channel concat). Channels-last the axis is the innermost.
  for (bool nhwc : {false, true}) {
    auto a = std::make_shared<std::vector<float>>(kElems / 2, 1.0f);
    auto b = std::make_shared<std::vector<float>>(kElems / 2, 2.0f);
    auto y = std::make_shared<std::vector<float>>(kElems);
    Shape half = nhwc ? Shape{1, kH, kW, kC / 2} : Shape{1, kC / 2, kH, kW};
    out.push_back({std::string("concat channels ") + (nhwc ? "nhwc" : "nchw"),
                   2 * kTensorBytes, [=] {
                     concat({a->data(), b->data()}, {half, half},
                            nhwc ? 3 : 1, y->data(), sizeof(float));
                     escape(y->data());
                   }});
  }
  // A 2x bilinear upsampling (half_pixel) from 512x512 to 1024x1024.
  for (bool nhwc : {false, true}) {
    ResizeParams p;
    p.mode = ResizeMode::Linear;
    p.transform = CoordinateTransform::HalfPixel;
    Shape in = {1, kC, kH / 2, kW / 2}, o = {1, kC, kH, kW};
    auto plan = std::make_shared<Resize2DPlan>(*planResize2D(p, in, o));
    auto x = std::make_shared<std::vector<float>>(numElements(in), 0.3f);
    auto y = std::make_shared<std::vector<float>>(kElems);
    out.push_back({std::string("resize linear 2x ") + (nhwc ? "nhwc" : "nchw"),
                   1.25 * kTensorBytes, [=] {
                     if (nhwc)
                       resize2DNhwc(*plan, kC, x->data(), y->data());
                     else
                       resize2D(*plan, x->data(), y->data());
                     escape(y->data());
                   }});
  }
  // A one-pixel zero border around 1022x1022 (a convolution's padding
  // exported as its own op) and a reflect border (a generator's).
  for (PadMode mode : {PadMode::Constant, PadMode::Reflect}) {
    Shape in = {1, kC, kH - 2, kW - 2}, o = {1, kC, kH, kW};
    auto x = std::make_shared<std::vector<float>>(numElements(in), 0.3f);
    auto y = std::make_shared<std::vector<float>>(kElems);
    out.push_back({std::string("pad 1 ") + kindName(mode),
                   double(numElements(in) + kElems) * sizeof(float), [=] {
                     pad(mode, DType::F32, x->data(), in,
                         {0, 0, 1, 1, 0, 0, 1, 1}, 0.0, y->data(), o);
                     escape(y->data());
                   }});
  }
  // The element-wise ops left alone between convolutions when they cannot
  // be post-ops; the memory order (NCHW, channels-last or oneDNN's blocked
  // layouts) does not matter to them.
  for (UnaryKind k :
       {UnaryKind::Clip, UnaryKind::Relu, UnaryKind::LeakyRelu,
        UnaryKind::HardSwish, UnaryKind::HardSigmoid, UnaryKind::Sigmoid,
        UnaryKind::Tanh, UnaryKind::Elu, UnaryKind::Softplus, UnaryKind::Mish,
        UnaryKind::Erf, UnaryKind::Exp}) {
    auto x = std::make_shared<std::vector<float>>(kElems);
    for (int64_t i = 0; i < kElems; ++i)
      (*x)[i] = float(i % 97) * 0.125f - 6.0f;
    auto y = std::make_shared<std::vector<float>>(kElems);
    // ONNX's defaults; Clip as relu6 (hardswish's exports).
    UnaryParams params = k == UnaryKind::Clip ? UnaryParams{0.0f, 6.0f}
                                              : defaultUnaryParams(k);
    out.push_back({std::string("unary ") + kindName(k), 2 * kTensorBytes, [=] {
                     unary(k, DType::F32, x->data(), y->data(), kElems,
                           params.alpha, params.beta);
                     escape(y->data());
                   }});
  }
  {
    Shape s = {1, kC, kH, kW};
    auto a = std::make_shared<std::vector<float>>(kElems, 1.0f);
    auto b = std::make_shared<std::vector<float>>(kElems, 2.0f);
    auto y = std::make_shared<std::vector<float>>(kElems);
    out.push_back({"binary add same shape", 3 * kTensorBytes, [=] {
                     binary(BinaryKind::Add, DType::F32, a->data(), s,
                            b->data(), s, y->data(), s);
                     escape(y->data());
                   }});
  }
  return out;
}
} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (argc > 2 || rounds < 1) {
    std::fprintf(stderr, "usage: bench-datamove [rounds (default 5)]\n");
    return 2;
  }
  std::vector<float> a(kElems, 1.0f), b(kElems, 0.0f);
  auto copy = [&] {
    std::memcpy(b.data(), a.data(), kTensorBytes);
    escape(b.data());
  };
  std::vector<Case> all = cases();
  // Rounds alternate memcpy and each case (5 timed calls each, medians):
  // the per-round ratio is what the noise of a shared host leaves alone.
  std::vector<std::vector<double>> ratio(all.size()), gbs(all.size());
  std::vector<double> copyGbs;
  for (int r = 0; r < rounds + 1; ++r) { // round 0 warms up
    for (size_t i = 0; i < all.size(); ++i) {
      double tc = medianSeconds(copy, 5);
      double tk = medianSeconds(all[i].run, 5);
      if (r == 0)
        continue;
      double copyRate = 2 * kTensorBytes / tc, rate = all[i].bytes / tk;
      copyGbs.push_back(copyRate / 1e9);
      gbs[i].push_back(rate / 1e9);
      ratio[i].push_back(100.0 * rate / copyRate);
    }
  }
  std::printf("CPU %s, kernel tier %s, %d rounds; 1024x1024 activations, 16 "
              "channels f32 (64 MiB a tensor)\n",
              hostCpu().model.c_str(), kernelTierName(), rounds);
  std::printf("memcpy (read + write): %.1f GB/s median\n", median(copyGbs));
  std::printf("%-28s %10s %10s %18s\n", "op", "GB/s", "copy_%", "copy_% range");
  for (size_t i = 0; i < all.size(); ++i) {
    auto [lo, hi] = std::minmax_element(ratio[i].begin(), ratio[i].end());
    std::printf("%-28s %10.1f %10.1f %8.1f - %-8.1f\n", all[i].name.c_str(),
                median(gbs[i]), median(ratio[i]), *lo, *hi);
  }
  return 0;
}
