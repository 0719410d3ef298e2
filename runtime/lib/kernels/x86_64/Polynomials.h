//===- Polynomials.h - the vector tiers' transcendental coefficients -*- C++ -*-===//
//
// Part of opscope's runtime (internal). The constants of exp, erf and tanh
// that the AVX2 and AVX-512 forms both evaluate (Avx2Kernels.cpp,
// Avx512Kernels.cpp), once, so that the two tiers cannot drift apart.
// Polynomials are in Horner order, the highest power first. Plain
// constants, no intrinsics.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_POLYNOMIALS_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_POLYNOMIALS_H

namespace opscope::rt::poly {

/// e^x = 2^n e^r, n the nearest integer to x log2 e, r = x - n ln 2 with ln
/// 2 in two parts (Cody and Waite), e^r = 1 + r + r^2 P(r) (Cephes' expf).
constexpr float kLog2e = 1.44269504f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f,
                           8.3334519073e-3f, 4.1665795894e-2f,
                           1.6666665459e-1f, 5.0000001201e-1f};
/// The clamps before the reduction: past them the result is 0 or inf
/// anyway, and n stays within [-150, 128].
constexpr float kExpLo = -104.0f, kExpHi = 89.0f;
/// Below this the flushing forms return 0 (expFlush512 says why).
constexpr float kExpFlush = -87.0f;

/// erf(x) = x P(x^2) / Q(x^2) below |x| = kErfOne, +-1 from it on: Eigen's
/// f32 erf (also XLA's). kErfOne is erfinv(1 - 2^-24), where erf reaches
/// the float just below 1; f32 erf rounds to 1 only from about 3.9192, so
/// between the two +-1 is one ulp off.
constexpr float kErfOne = 3.832506856900711f;
constexpr float kErfP[] = {2.2905065861350646e-4f, 3.4082910107109506e-3f,
                           5.0955695062380861e-2f, 1.8520832239976145e-1f,
                           1.128379143519084f};
constexpr float kErfQ[] = {-1.1791602954361697e-7f, 2.3547966471313185e-5f,
                           1.0179625278914885e-3f,  1.4070470171167667e-2f,
                           1.1098505178285362e-1f,  4.9746925110067538e-1f,
                           1.0f};

/// tanh(x) = x + x^3 P(x^2) below |x| = kTanhSmall (Cephes' tanhf), else
/// 1 - 2 / (e^{2x} + 1).
constexpr float kTanhSmall = 0.625f;
constexpr float kTanhP[] = {-5.70498872745e-3f, 2.06390887954e-2f,
                            -5.37397155531e-2f, 1.33314422036e-1f,
                            -3.33332819422e-1f};

/// log1p(u) = u P(u) for u in [0, 1] (softplus's log(1 + e^-|x|)): a
/// degree-9 fit of log1p(u) / u on [0, 1], weighted to even out its
/// relative error (4e-9 in double; 1.7e-7 evaluated in float by Horner),
/// so that no range reduction is needed.
constexpr float kLog1pP[] = {-3.338273382e-03f, 2.027521469e-02f,
                             -5.775330961e-02f, 1.068382636e-01f,
                             -1.535277367e-01f, 1.969224364e-01f,
                             -2.495729625e-01f, 3.333027065e-01f,
                             -4.999991357e-01f, 1.000000000e+00f};

} // namespace opscope::rt::poly

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_POLYNOMIALS_H
