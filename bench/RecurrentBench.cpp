//===- RecurrentBench.cpp - own recurrent kernel vs oneDNN's RNN -----------===//
//
// Part of opscope. The two implementations of osc.rnn side by side, on the
// layers both compute (no sequence_lens, default activations): opscope's
// kernel (kernels.h rnnLayer) and oneDNN's RNN primitive (DnnlRnnLayer).
// Rounds alternate the two; each round times `--iterations` runs of each
// and keeps the median; the report gives the medians over rounds and the
// spread of the per-round ratios. Run pinned (`taskset -c 0`).
//
//   bench-recurrent [--rounds N] [--iterations N]
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/cpu.h"
#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace opscope::rt;

namespace {
struct Shape {
  const char *what;
  RnnCell cell;
  int64_t seq, batch, input, hidden, dirs;
  bool linearBeforeReset = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double timeMs(const std::function<void()> &f, int iterations) {
  std::vector<double> t;
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count());
  }
  return median(t);
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 7, iterations = 20;
  for (int i = 1; i < argc; i += 2) {
    bool known = !std::strcmp(argv[i], "--rounds") ||
                 !std::strcmp(argv[i], "--iterations");
    if (!known || i + 1 >= argc) {
      std::fprintf(stderr, "bench-recurrent: %s '%s'\n",
                   known ? "missing value for" : "unknown flag", argv[i]);
      return 2;
    }
    (argv[i][2] == 'r' ? rounds : iterations) = std::atoi(argv[i + 1]);
  }
  if (rounds < 1 || iterations < 1) {
    std::fprintf(stderr, "bench-recurrent: --rounds and --iterations must be positive\n");
    return 2;
  }
  setDenseThreads(1);
  std::printf("CPU: %s; oneDNN %s; one thread; %d rounds x %d iterations\n",
              opscope::rt::hostCpu().model.c_str(),
              denseLibraryVersion().c_str(), rounds, iterations);
  const Shape shapes[] = {
      {"VAD LSTM (seq 4, batch 1, 64 -> 64)", RnnCell::Lstm, 4, 1, 64, 64, 1},
      {"speech LSTM (seq 100, batch 1, 80 -> 256, bidirectional)",
       RnnCell::Lstm, 100, 1, 80, 256, 2},
      {"batched LSTM (seq 50, batch 16, 256 -> 512)", RnnCell::Lstm, 50, 16,
       256, 512, 1},
      {"GRU (seq 100, batch 1, 128 -> 256)", RnnCell::Gru, 100, 1, 128, 256,
       1},
      {"GRU, linear before reset (PyTorch's export), same sizes", RnnCell::Gru,
       100, 1, 128, 256, 1, true},
  };
  std::printf("%-58s %10s %10s %8s %17s  %s\n", "layer", "own_ms", "onednn_ms",
              "ratio", "round_ratios", "onednn_impl");
  for (const Shape &s : shapes) {
    RnnDesc d;
    d.cell = s.cell;
    d.seq = s.seq, d.batch = s.batch, d.input = s.input, d.hidden = s.hidden;
    d.dirs = s.dirs;
    d.linearBeforeReset = s.linearBeforeReset;
    std::vector<RnnActivation> acts =
        s.cell == RnnCell::Lstm
            ? std::vector<RnnActivation>{RnnActivation::Sigmoid,
                                         RnnActivation::Tanh,
                                         RnnActivation::Tanh}
            : std::vector<RnnActivation>{RnnActivation::Sigmoid,
                                         RnnActivation::Tanh};
    for (int64_t i = 0; i < d.dirs; ++i)
      d.activations.insert(d.activations.end(), acts.begin(), acts.end());
    d.alpha.assign(d.activations.size(), 0.0f);
    d.beta.assign(d.activations.size(), 0.0f);
    int64_t G = (s.cell == RnnCell::Lstm ? 4 : 3) * d.hidden;
    std::mt19937 rng(1);
    std::normal_distribution<float> dist(0.0f, 0.1f);
    auto random = [&](int64_t n) {
      std::vector<float> v(n);
      for (float &x : v)
        x = dist(rng);
      return v;
    };
    auto x = random(d.seq * d.batch * d.input);
    auto w = random(d.dirs * G * d.input), r = random(d.dirs * G * d.hidden);
    auto b = random(d.dirs * 2 * G);
    auto h0 = random(d.dirs * d.batch * d.hidden);
    auto c0 = random(d.dirs * d.batch * d.hidden);
    std::vector<float> y(d.seq * d.dirs * d.batch * d.hidden), yh(h0.size()),
        yc(h0.size());
    bool lstm = s.cell == RnnCell::Lstm;
    RnnBuffers io;
    io.x = x.data(), io.w = w.data(), io.r = r.data(), io.b = b.data();
    io.h0 = h0.data(), io.c0 = lstm ? c0.data() : nullptr;
    io.y = y.data(), io.yh = yh.data(), io.yc = lstm ? yc.data() : nullptr;
    DnnlRnnLayer layer(d, w.data(), r.data(), b.data(), nullptr, true, lstm);
    auto own = [&] { rnnLayer(d, io); };
    auto dnnl = [&] {
      layer.run(x.data(), h0.data(), lstm ? c0.data() : nullptr, y.data(),
                yh.data(), lstm ? yc.data() : nullptr);
    };
    own(), dnnl(); // warm up
    std::vector<double> ownMs, dnnlMs, ratios;
    for (int round = 0; round < rounds; ++round) {
      ownMs.push_back(timeMs(own, iterations));
      dnnlMs.push_back(timeMs(dnnl, iterations));
      ratios.push_back(dnnlMs.back() / ownMs.back());
    }
    char spread[64];
    std::snprintf(spread, sizeof spread, "%.2f-%.2f",
                  *std::min_element(ratios.begin(), ratios.end()),
                  *std::max_element(ratios.begin(), ratios.end()));
    std::printf("%-58s %10.3f %10.3f %8.2f %17s  %s\n", s.what, median(ownMs),
                median(dnnlMs), median(ratios), spread,
                layer.implementation().c_str());
  }
  std::printf("ratio: oneDNN time / own time (below 1: oneDNN faster)\n");
  return 0;
}
