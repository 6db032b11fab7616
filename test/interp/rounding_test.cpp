// f16 and bf16 round-to-nearest-even: edge cases computed by hand, and the
// bit-level conversion cross-checked against an independent arithmetic one.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "mirage/interp/rounding.h"

using namespace mirage;
using interp::floatToBf16Bits;
using interp::floatToHalfBits;
using interp::halfBitsToFloat;

TEST_CASE("f16: every half survives float and back", "[rounding]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfBitsToFloat(static_cast<uint16_t>(h));
    bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    if (nan) {
      REQUIRE(std::isnan(f));
      REQUIRE(std::isnan(halfBitsToFloat(floatToHalfBits(f))));
    } else {
      REQUIRE(floatToHalfBits(f) == h);
    }
  }
}

TEST_CASE("f16: values decoded by hand", "[rounding]") {
  CHECK(halfBitsToFloat(0x3c00) == 1.0f);
  CHECK(halfBitsToFloat(0xc000) == -2.0f);
  CHECK(halfBitsToFloat(0x7bff) == 65504.0f);
  CHECK(halfBitsToFloat(0x0001) == std::ldexp(1.0f, -24));
  CHECK(halfBitsToFloat(0x03ff) == 1023 * std::ldexp(1.0f, -24));
  CHECK(halfBitsToFloat(0x0400) == std::ldexp(1.0f, -14));
  CHECK(std::isinf(halfBitsToFloat(0x7c00)));
  CHECK(std::signbit(halfBitsToFloat(0x8000)));
}

TEST_CASE("f16: round to nearest, ties to even", "[rounding]") {
  // Near 1 the half ulp is 2^-10.
  CHECK(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie, 1.0 is even
  CHECK(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie, up to even
  CHECK(floatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3c01);  // above tie
  CHECK(floatToHalfBits(1.0f - std::ldexp(1.0f, -12)) == 0x3c00);  // 1 - 2^-12: a tie below 1, 1.0 is even
  CHECK(floatToHalfBits(0.1f) == 0x2e66);
  CHECK(floatToHalfBits(-0.0f) == 0x8000);
  CHECK(floatToHalfBits(0.0f) == 0x0000);
}

TEST_CASE("f16: overflow goes to infinity at 65520", "[rounding]") {
  CHECK(floatToHalfBits(65504.0f) == 0x7bff);
  CHECK(floatToHalfBits(65519.996f) == 0x7bff);  // below the tie
  CHECK(floatToHalfBits(65520.0f) == 0x7c00);    // tie: the even neighbour is 2^16, which is inf
  CHECK(floatToHalfBits(-65520.0f) == 0xfc00);
  CHECK(floatToHalfBits(1e30f) == 0x7c00);
  CHECK(floatToHalfBits(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(floatToHalfBits(-std::numeric_limits<float>::infinity()) == 0xfc00);
}

TEST_CASE("f16: subnormals", "[rounding]") {
  float unit = std::ldexp(1.0f, -24);  // the smallest subnormal half
  CHECK(floatToHalfBits(unit) == 0x0001);
  CHECK(floatToHalfBits(0.5f * unit) == 0x0000);    // tie with 0: 0 is even
  CHECK(floatToHalfBits(0.75f * unit) == 0x0001);
  CHECK(floatToHalfBits(0.25f * unit) == 0x0000);
  CHECK(floatToHalfBits(1.5f * unit) == 0x0002);    // tie: up to even
  CHECK(floatToHalfBits(2.5f * unit) == 0x0002);    // tie: down to even
  CHECK(floatToHalfBits(-1.5f * unit) == 0x8002);
  CHECK(floatToHalfBits(1023.5f * unit) == 0x0400);  // tie at the top: carries into the smallest normal
  CHECK(floatToHalfBits(1022.5f * unit) == 0x03fe);
  CHECK(floatToHalfBits(std::numeric_limits<float>::denorm_min()) == 0x0000);
  CHECK(floatToHalfBits(-std::numeric_limits<float>::denorm_min()) == 0x8000);
}

TEST_CASE("f16: NaN stays NaN", "[rounding]") {
  uint16_t h = floatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  CHECK((h & 0x7c00) == 0x7c00);
  CHECK((h & 0x3ff) != 0);
  // A signalling NaN whose payload lies only in the low bits must not become inf.
  float snan = std::bit_cast<float>(0x7f800001u);
  CHECK(std::isnan(halfBitsToFloat(floatToHalfBits(snan))));
}

TEST_CASE("bf16: round to nearest, ties to even", "[rounding]") {
  CHECK(floatToBf16Bits(1.0f) == 0x3f80);
  CHECK(floatToBf16Bits(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);      // tie, even
  CHECK(floatToBf16Bits(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);  // tie, up to even
  CHECK(floatToBf16Bits(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3f81);
  CHECK(floatToBf16Bits(-2.0f) == 0xc000);
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x7f7f0000u)) == 0x7f7f);  // largest bf16
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x7f7f7fffu)) == 0x7f7f);
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x7f7f8000u)) == 0x7f80);  // tie: rounds to inf
  CHECK(floatToBf16Bits(std::numeric_limits<float>::max()) == 0x7f80);
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x00008000u)) == 0x0000);  // subnormal tie
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x00018000u)) == 0x0002);
  CHECK(floatToBf16Bits(std::bit_cast<float>(0x80008001u)) == 0x8001);
  uint16_t nan = floatToBf16Bits(std::bit_cast<float>(0x7f800001u));
  CHECK(std::isnan(interp::bf16BitsToFloat(nan)));
}

TEST_CASE("bit-level rounding agrees with the arithmetic double rounding", "[rounding]") {
  // roundToDType(double) scales to a count of ulps and uses nearbyint: a
  // different method. Every float is exact as a double, so both must agree.
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4093) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(f)) continue;
    for (ir::DType t : {ir::DType::F16, ir::DType::BF16}) {
      float a = interp::roundToDType(f, t);
      float b = interp::roundToDType(static_cast<double>(f), t);
      if (std::bit_cast<uint32_t>(a) != std::bit_cast<uint32_t>(b)) {
        INFO("float bits " << std::hex << bits << " dtype " << ir::dtypeName(t));
        REQUIRE(a == b);
      }
    }
  }
}

TEST_CASE("doubles round once, not through float", "[rounding]") {
  // 1 + 2^-11 + 2^-40: just above the f16 tie between 1 and 1 + 2^-10. Through
  // float the 2^-40 is lost and the tie goes down to 1.
  double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(interp::roundToDType(x, ir::DType::F16) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(interp::roundToDType(static_cast<float>(x), ir::DType::F16) == 1.0f);
  CHECK(interp::roundToDType(65519.99, ir::DType::F16) == 65504.0f);
  CHECK(std::isinf(interp::roundToDType(65520.0, ir::DType::F16)));
  CHECK(std::isinf(interp::roundToDType(1e300, ir::DType::BF16)));
  CHECK(interp::roundToDType(1e-300, ir::DType::F16) == 0.0f);
  CHECK(std::isnan(interp::roundToDType(std::nan(""), ir::DType::F16)));
  CHECK(interp::roundToDType(0.1, ir::DType::F32) == 0.1f);
}

TEST_CASE("f16: the bit-pattern fast path agrees with the exact conversion at every rounding boundary",
          "[rounding]") {
  // roundToDType rounds normal halves on the float's own bits; the exact
  // conversions are the reference. Every float's upper 19 bits (sign,
  // exponent, the 10 kept significand bits), with the 13 dropped bits just
  // below, at and above the tie and at both ends.
  // roundInPlace rounds arrays in chunks, each gone over again where it
  // holds an overflow, inf or NaN: the same floats as one array (its length
  // not a multiple of a chunk) must round as one by one.
  const uint32_t lows[] = {0x0000u, 0x0001u, 0x0800u, 0x0fffu, 0x1000u, 0x1001u, 0x17ffu, 0x1fffu};
  std::vector<float> all;
  all.reserve((size_t{1} << 22) + 1);
  for (uint32_t hi = 0; hi < (1u << 19); ++hi)
    for (uint32_t low : lows) all.push_back(std::bit_cast<float>(hi << 13 | low));
  all.push_back(1.0f);
  std::vector<float> array = all;
  interp::roundInPlace(array.data(), static_cast<int64_t>(array.size()), ir::DType::F16);
  int64_t mismatches = 0;
  uint32_t first = 0;
  auto same = [](float a, float b) {
    return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
  };
  for (size_t i = 0; i < all.size(); ++i) {
    const float f = all[i];
    const float exact = interp::halfBitsToFloat(interp::floatToHalfBits(f));
    if ((!same(exact, interp::roundToDType(f, ir::DType::F16)) || !same(exact, array[i])) && mismatches++ == 0)
      first = std::bit_cast<uint32_t>(f);
  }
  INFO("first float bits " << std::hex << first);
  CHECK(mismatches == 0);
}

namespace {

// The arithmetic rounding of a double to a format (count ulps, nearbyint,
// scale back): the reference for the bit-pattern path of roundToDType(double).
double roundByUlps(double x, int mantBits, int minExp, double maxFinite) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);
  double ulp = std::ldexp(1.0, std::max(e - 1, minExp) - mantBits);
  double r = std::nearbyint(x / ulp) * ulp;
  return std::fabs(r) > maxFinite ? std::copysign(std::numeric_limits<double>::infinity(), x) : r;
}

}  // namespace

TEST_CASE("doubles: the bit-pattern path agrees with rounding by ulps at every tie", "[rounding]") {
  // For every finite value v of the format: v, the midpoint to its upper
  // neighbour (a tie), and the doubles just either side of both, with either
  // sign.
  struct Case {
    ir::DType dtype;
    int mantBits, minExp;
    double maxFinite;
    float (*decode)(uint16_t);
  };
  const Case cases[] = {{ir::DType::F16, 10, -14, 65504.0, interp::halfBitsToFloat},
                        {ir::DType::BF16, 7, -126, 0x1.fep127, interp::bf16BitsToFloat}};
  for (const Case& c : cases) {
    int64_t mismatches = 0;
    double first = 0;
    for (uint32_t h = 0; h < 0x7fffu; ++h) {
      const double v = c.decode(static_cast<uint16_t>(h)), next = c.decode(static_cast<uint16_t>(h + 1));
      if (!std::isfinite(v)) continue;
      const double mid = std::isfinite(next) ? v + (next - v) / 2 : v + (v - c.decode(static_cast<uint16_t>(h - 1))) / 2;
      for (double x : {v, mid}) {
        for (double y : {x, std::nextafter(x, 0.0), std::nextafter(x, std::numeric_limits<double>::infinity())}) {
          for (double s : {y, -y}) {
            const float got = interp::roundToDType(s, c.dtype);
            const double want = roundByUlps(s, c.mantBits, c.minExp, c.maxFinite);
            if (static_cast<double>(got) != want && !(std::isnan(got) && std::isnan(want)) && mismatches++ == 0)
              first = s;
          }
        }
      }
    }
    INFO(ir::dtypeName(c.dtype) << ": first value " << std::hexfloat << first);
    CHECK(mismatches == 0);
  }
}
