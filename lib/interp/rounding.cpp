// f16/bf16 round-to-nearest-even on bit patterns; see rounding.h.
#include "mirage/interp/rounding.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
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

namespace {

// A binary format narrower than float: stored significand bits, smallest
// normal exponent, largest finite value, and the overflow threshold (the
// largest finite value plus half its ulp: from there on ties and all go to
// infinity).
struct NarrowFormat {
  int mantBits;
  int minExp;
  double smallestNormal;
  double maxFinite;
  double overflow;
};
constexpr NarrowFormat kHalf{10, -14, 0x1p-14, 65504.0, 65520.0};
constexpr NarrowFormat kBf16{7, -126, 0x1p-126, 0x1.fep127, 0x1.ffp127};

// kHalf's thresholds as float bit patterns, and the float significand bits a
// half drops.
constexpr uint32_t kHalfSmallestNormalBits = std::bit_cast<uint32_t>(static_cast<float>(kHalf.smallestNormal));
constexpr uint32_t kHalfOverflowBits = std::bit_cast<uint32_t>(static_cast<float>(kHalf.overflow));
constexpr int kHalfDroppedBits = 23 - kHalf.mantBits;

// The nearest half to the float with bits a, as a float's bits, for
// |x| < 65520 (from there on, ties included, it is infinity), without a
// branch so that loops over arrays vectorize:
//  - normal halves (|x| >= 2^-14): round the float's 23-bit significand to
//    10 bits, ties to even, on the bit pattern; a carry out of the
//    significand bumps the exponent, which is the right result;
//  - below, the halves are the multiples of 2^-24: (|x| + 0.75) - 0.75 in
//    float arithmetic rounds |x| to one, ties to even (the sum lies in
//    [0.5, 1), whose ulp is 2^-24, and 0.75 is an even multiple of it; the
//    subtraction is exact), and the sign is put back (a negative value that
//    rounds to zero is -0, as the conversion gives).
static_assert(FLT_EVAL_METHOD == 0, "the subnormal halves are rounded in float arithmetic without excess precision");
inline uint32_t roundBitsToHalf(uint32_t a) {
  const uint32_t sign = a & 0x80000000u, mag = a & 0x7fffffffu;
  constexpr uint32_t dropped = (1u << kHalfDroppedBits) - 1;
  const uint32_t normal = (a + (dropped >> 1) + ((a >> kHalfDroppedBits) & 1u)) & ~dropped;
  const float small = (std::bit_cast<float>(mag) + 0.75f) - 0.75f;
  const uint32_t isSmall = 0u - static_cast<uint32_t>(mag < kHalfSmallestNormalBits);  // all ones or zero
  return ((std::bit_cast<uint32_t>(small) | sign) & isSmall) | (normal & ~isSmall);
}

// The nearest half to x, as a float: roundBitsToHalf, and the exact
// conversions for overflow, infinities and NaN. The interpreter rounds every
// value it computes at f16, so this is its hottest path (the numerics check
// spent half its time in the two conversions).
inline float roundFloatToHalf(float x) {
  const uint32_t a = std::bit_cast<uint32_t>(x);
  if ((a & 0x7fffffffu) < kHalfOverflowBits) return std::bit_cast<float>(roundBitsToHalf(a));
  return halfBitsToFloat(floatToHalfBits(x));
}

inline float roundFloatToBf16(float x) { return bf16BitsToFloat(floatToBf16Bits(x)); }

// Rounds a double to format f with ties to even. Normal results: round the
// double's 52-bit significand to f.mantBits bits on the bit pattern (as
// roundFloatToHalf does; a carry bumps the exponent). The rest (zero,
// subnormals, overflow, inf, NaN): the value is a multiple of the format's
// ulp at its binade (or of the subnormal ulp below minExp), so scale it to an
// integer count of ulps, round that with nearbyint (ties to even in the
// default rounding mode) and scale back; the scalings by powers of two are
// exact.
double roundDoubleToFormat(double x, const NarrowFormat& f) {
  const double mag = std::fabs(x);
  if (mag >= f.smallestNormal && mag < f.overflow) {
    const int drop = 52 - f.mantBits;
    uint64_t b = std::bit_cast<uint64_t>(x);
    b += ((uint64_t{1} << (drop - 1)) - 1) + ((b >> drop) & 1u);
    return std::bit_cast<double>(b & ~((uint64_t{1} << drop) - 1));
  }
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);  // |x| = f * 2^e, f in [0.5, 1): the leading bit is 2^(e-1)
  int binade = std::max(e - 1, f.minExp);
  double ulp = std::ldexp(1.0, binade - f.mantBits);
  double r = std::nearbyint(x / ulp) * ulp;
  if (std::fabs(r) > f.maxFinite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

// roundFloatToHalf over an array, in chunks the compiler vectorizes: a
// chunk is rounded by roundBitsToHalf, and only a chunk that held an
// overflow, an infinity or a NaN is gone over again element by element from
// the values kept aside. Bit operations and float additions only (no
// product a fused multiply-add could take), so a clone for wider vectors
// gives the same bits (the numerics check rounds every intermediate of the
// input and the candidate, four times over).
__attribute__((target_clones("avx512f", "avx2", "default"))) void roundArrayToHalf(float* data, int64_t n) {
  constexpr int64_t kChunk = 64;  // a fixed trip count, so that -O2 vectorizes the loop
  uint32_t before[kChunk], after[kChunk];
  int64_t at = 0;
  for (; at + kChunk <= n; at += kChunk) {
    std::memcpy(before, data + at, sizeof before);
    uint32_t outside = 0;
    for (int64_t i = 0; i < kChunk; ++i) {
      outside |= static_cast<uint32_t>((before[i] & 0x7fffffffu) >= kHalfOverflowBits);
      after[i] = roundBitsToHalf(before[i]);
    }
    if (outside)
      for (int64_t i = 0; i < kChunk; ++i)
        after[i] = std::bit_cast<uint32_t>(roundFloatToHalf(std::bit_cast<float>(before[i])));
    std::memcpy(data + at, after, sizeof after);
  }
  for (; at < n; ++at) data[at] = roundFloatToHalf(data[at]);
}

}  // namespace

float roundToDType(float x, ir::DType t) {
  switch (t) {
    case ir::DType::F16: return roundFloatToHalf(x);
    case ir::DType::BF16: return roundFloatToBf16(x);
    case ir::DType::F32: return x;
  }
  return x;
}

float roundToDType(double x, ir::DType t) {
  switch (t) {
    case ir::DType::F16: return static_cast<float>(roundDoubleToFormat(x, kHalf));
    case ir::DType::BF16: return static_cast<float>(roundDoubleToFormat(x, kBf16));
    case ir::DType::F32: return static_cast<float>(x);  // the C++ conversion rounds to nearest even
  }
  return static_cast<float>(x);
}

void roundInPlace(float* data, int64_t n, ir::DType t) {
  switch (t) {
    case ir::DType::F16:
      roundArrayToHalf(data, n);
      return;
    case ir::DType::BF16:
      for (int64_t i = 0; i < n; ++i) data[i] = roundFloatToBf16(data[i]);
      return;
    case ir::DType::F32: return;
  }
}

}  // namespace mirage::interp
