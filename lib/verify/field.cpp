// Exact decimal literals in the fields (see field.h).
#include "mirage/verify/field.h"

#include <cmath>
#include <cstring>

namespace mirage::verify {
namespace {

// num * 10^exp10 with num already reduced, in both fields.
FieldConstant scaleByPowerOfTen(u64 numP, u64 numQ, bool negative, int64_t exp10) {
  auto apply = [&](const MontField& f, u64 num) {
    u64 ten = f.toMont(10);
    u64 mag = f.pow(ten, static_cast<u64>(exp10 < 0 ? -exp10 : exp10));
    u64 v = exp10 < 0 ? f.mul(num, f.inv(mag)) : f.mul(num, mag);
    return negative ? f.neg(v) : v;
  };
  return {apply(kFieldP, numP), apply(kFieldQ, numQ)};
}

}  // namespace

std::optional<FieldConstant> decimalToField(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  u64 numP = 0, numQ = 0;
  u64 ten[2] = {kFieldP.toMont(10), kFieldQ.toMont(10)};
  int64_t exp10 = 0;
  int digits = 0;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !fraction) {
      fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    numP = kFieldP.add(kFieldP.mul(numP, ten[0]), kFieldP.toMont(static_cast<u64>(c - '0')));
    numQ = kFieldQ.add(kFieldQ.mul(numQ, ten[1]), kFieldQ.toMont(static_cast<u64>(c - '0')));
    if (fraction) --exp10;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool expNegative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) expNegative = text[i++] == '-';
    int64_t e = 0;
    int expDigits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++expDigits) {
      if (e > (int64_t{1} << 40)) return std::nullopt;  // absurd exponent
      e = e * 10 + (text[i] - '0');
    }
    if (expDigits == 0) return std::nullopt;
    exp10 += expNegative ? -e : e;
  }
  if (i != text.size()) return std::nullopt;
  return scaleByPowerOfTen(numP, numQ, negative, exp10);
}

FieldConstant doubleToField(double value) {
  // value = mantissa * 2^exponent exactly, with an integer mantissa < 2^53.
  int exponent = 0;
  double frac = std::frexp(std::fabs(value), &exponent);
  auto mantissa = static_cast<u64>(std::ldexp(frac, 53));
  exponent -= 53;
  auto apply = [&](const MontField& f) {
    u64 v = f.toMont(mantissa);
    u64 two = f.toMont(2);
    u64 scale = f.pow(two, static_cast<u64>(exponent < 0 ? -exponent : exponent));
    v = exponent < 0 ? f.mul(v, f.inv(scale)) : f.mul(v, scale);
    return value < 0 ? f.neg(v) : v;
  };
  return {apply(kFieldP), apply(kFieldQ)};
}

}  // namespace mirage::verify
