// f16/bf16 round-to-nearest-even on bit patterns; see rounding.h.
#include "mirage/interp/rounding.h"

#include <bit>
#include <cmath>
#include <limits>

namespace mirage::interp {

uint16_t floatToHalfBits(float x) {
  uint32_t f = std::bit_cast<uint32_t>(x);
  uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  uint32_t a = f & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN (quiet)
  // 65520 = 65504 + half an ulp: ties go to the even neighbour, which is
  // 2^16, beyond the largest half, so everything from 65520 up is infinity.
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t exp = a >> 23;
  if (exp < 113) {
    // Below 2^-14, the smallest normal half: a subnormal half counts units
    // of 2^-24. The float is m * 2^(exp-150) with m the 24-bit significand
    // (implicit bit included, or none for a float subnormal); in units of
    // 2^-24 that is m >> (126 - exp), rounded to nearest even.
    uint32_t m = (a & 0x7fffffu) | (exp ? 0x800000u : 0);
    uint32_t shift = 126 - (exp ? exp : 1);
    if (shift > 24) return sign;  // below a quarter unit: rounds to zero
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;  // may carry into the smallest normal
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits,
  // rounding to nearest even; a carry out of the mantissa correctly bumps the
  // exponent.
  uint32_t h = ((exp - 112) << 10) | ((a & 0x7fffffu) >> 13);
  uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float halfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));  // inf/NaN
  if (exp == 0) {
    // Zero or subnormal: man * 2^-24, exact in float.
    float v = static_cast<float>(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t floatToBf16Bits(float x) {
  uint32_t f = std::bit_cast<uint32_t>(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  // Add just under half an ulp of bf16, plus one when the kept part is odd
  // (ties to even); the carry may run into the exponent (and up to infinity),
  // which is the correct rounding.
  f += 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>(f >> 16);
}

float bf16BitsToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

float roundToDType(float x, ir::DType t) {
  switch (t) {
    case ir::DType::F16: return halfBitsToFloat(floatToHalfBits(x));
    case ir::DType::BF16: return bf16BitsToFloat(floatToBf16Bits(x));
    case ir::DType::F32: return x;
  }
  return x;
}

namespace {

// Rounds a double to a binary format with `mantBits` stored mantissa bits,
// smallest normal exponent `minExp` and largest finite value `maxFinite`,
// with ties to even: the value is a multiple of the format's ulp at its
// binade (or of the subnormal ulp below minExp), so scale it to an integer
// count of ulps, round that with nearbyint (ties to even in the default
// rounding mode) and scale back; the scalings by powers of two are exact.
double roundDoubleToFormat(double x, int mantBits, int minExp, double maxFinite) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);  // |x| = f * 2^e, f in [0.5, 1): the leading bit is 2^(e-1)
  int binade = std::max(e - 1, minExp);
  double ulp = std::ldexp(1.0, binade - mantBits);
  double r = std::nearbyint(x / ulp) * ulp;
  if (std::fabs(r) > maxFinite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

}  // namespace

float roundToDType(double x, ir::DType t) {
  switch (t) {
    case ir::DType::F16: return static_cast<float>(roundDoubleToFormat(x, 10, -14, 65504.0));
    case ir::DType::BF16:
      return static_cast<float>(roundDoubleToFormat(x, 7, -126, 0x1.fep127));
    case ir::DType::F32: return static_cast<float>(x);  // the C++ conversion rounds to nearest even
  }
  return static_cast<float>(x);
}

void roundInPlace(float* data, int64_t n, ir::DType t) {
  if (t == ir::DType::F32) return;
  for (int64_t i = 0; i < n; ++i) data[i] = roundToDType(data[i], t);
}

}  // namespace mirage::interp
