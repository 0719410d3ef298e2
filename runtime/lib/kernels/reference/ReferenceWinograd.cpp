//===- ReferenceWinograd.cpp - Winograd convolutions, the reference tier --===//
//
// Part of opscope's runtime. Plain C++ forms of the Winograd convolutions'
// steps (KernelTable.h): what the tests compare the vector tiers against.
// B and A are Lavin and Gray's F(2, 3) and F(4, 3) matrices ("Fast
// Algorithms for Convolutional Neural Networks", 2016); WinogradConv.cpp
// transforms the weights (G g G^T) and drives the tiles.
//
//===----------------------------------------------------------------------===//

#include "../KernelTable.h"

using namespace opscope;
using namespace opscope::rt;

namespace {

/// v = B^T d B for one channel: d is the 4x4 patch (row-major).
void inputTile(const float d[16], float v[16]) {
  float t[16];
  for (int j = 0; j < 4; ++j) {
    t[0 + j] = d[0 + j] - d[8 + j];
    t[4 + j] = d[4 + j] + d[8 + j];
    t[8 + j] = d[8 + j] - d[4 + j];
    t[12 + j] = d[4 + j] - d[12 + j];
  }
  for (int i = 0; i < 4; ++i) {
    const float *r = t + 4 * i;
    v[4 * i + 0] = r[0] - r[2];
    v[4 * i + 1] = r[1] + r[2];
    v[4 * i + 2] = r[2] - r[1];
    v[4 * i + 3] = r[1] - r[3];
  }
}

void winogradInput(const float *const *px, int64_t channels, float *v,
                   int64_t ldv) {
  float d[16], out[16];
  for (int64_t c = 0; c < channels; ++c) {
    for (int i = 0; i < 16; ++i)
      d[i] = px[i][c];
    inputTile(d, out);
    for (int i = 0; i < 16; ++i)
      v[i * ldv + c] = out[i];
  }
}

void winogradGemm(const float *v, const float *u, float *m, int64_t rows,
                  int64_t channels, int64_t kp, int64_t panel) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < kp; ++k) {
      const float *up = u + (k / panel) * channels * panel + k % panel;
      float acc = 0.0f;
      for (int64_t c = 0; c < channels; ++c)
        acc += v[r * channels + c] * up[c * panel];
      m[r * kp + k] = acc;
    }
}

void winogradOutput(const float *m, int64_t ldm, const float *bias, float *y,
                    int64_t outC) {
  for (int64_t k = 0; k < outC; ++k) {
    float s[8]; // A^T m: two rows of four
    for (int j = 0; j < 4; ++j) {
      float m0 = m[(0 + j) * ldm + k], m1 = m[(4 + j) * ldm + k],
            m2 = m[(8 + j) * ldm + k], m3 = m[(12 + j) * ldm + k];
      s[j] = m0 + m1 + m2;
      s[4 + j] = m1 - m2 - m3;
    }
    float b = bias ? bias[k] : 0.0f;
    for (int i = 0; i < 2; ++i) {
      const float *r = s + 4 * i;
      y[(2 * i + 0) * outC + k] = r[0] + r[1] + r[2] + b;
      y[(2 * i + 1) * outC + k] = r[1] - r[2] - r[3] + b;
    }
  }
}

/// F(4x4, 3x3): t = B^T d for one column of six values.
void inputColumn6(const float d[6], float t[6]) {
  float a = d[4] - 4.0f * d[2], b = d[3] - 4.0f * d[1];
  float c = d[4] - d[2], e = 2.0f * (d[3] - d[1]);
  t[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
  t[1] = a + b;
  t[2] = a - b;
  t[3] = c + e;
  t[4] = c - e;
  t[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
}

void winograd4Input(const float *const *px, int64_t channels, float *v,
                    int64_t ldv) {
  for (int64_t c = 0; c < channels; ++c) {
    float rows[36], col[6], out[6];
    // B^T d B: each row of the patch, then each column of that.
    for (int i = 0; i < 6; ++i) {
      float d[6];
      for (int j = 0; j < 6; ++j)
        d[j] = px[6 * i + j][c];
      inputColumn6(d, rows + 6 * i);
    }
    for (int j = 0; j < 6; ++j) {
      for (int i = 0; i < 6; ++i)
        col[i] = rows[6 * i + j];
      inputColumn6(col, out);
      for (int i = 0; i < 6; ++i)
        v[(6 * i + j) * ldv + c] = out[i];
    }
  }
}

/// F(4x4, 3x3): y = A^T m for six values.
void outputColumn6(const float m[6], float y[4]) {
  float p12 = m[1] + m[2], m12 = m[1] - m[2];
  float p34 = m[3] + m[4], m34 = m[3] - m[4];
  y[0] = m[0] + p12 + p34;
  y[1] = m12 + 2.0f * m34;
  y[2] = p12 + 4.0f * p34;
  y[3] = m12 + 8.0f * m34 + m[5];
}

void winograd4Output(const float *m, int64_t ldm, const float *bias, float *y,
                     int64_t outC) {
  for (int64_t k = 0; k < outC; ++k) {
    float rows[24], col[6], out[4];
    for (int i = 0; i < 6; ++i) {
      float r[6];
      for (int j = 0; j < 6; ++j)
        r[j] = m[(6 * i + j) * ldm + k];
      outputColumn6(r, rows + 4 * i);
    }
    float b = bias ? bias[k] : 0.0f;
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 6; ++i)
        col[i] = rows[4 * i + j];
      outputColumn6(col, out);
      for (int i = 0; i < 4; ++i)
        y[(4 * i + j) * outC + k] = out[i] + b;
    }
  }
}

} // namespace

void opscope::rt::fillReferenceWinogradKernels(KernelTable &t) {
  t.winogradInput = winogradInput;
  t.winogradGemm = winogradGemm;
  t.winogradOutput = winogradOutput;
  t.winograd4Input = winograd4Input;
  t.winograd4Output = winograd4Output;
  t.winogradPreferred = false; // oneDNN's direct kernels are faster
}
