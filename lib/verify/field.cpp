// Exact decimal literals in the fields (see field.h).
#include "mirage/verify/field.h"

#include "hash.h"

#include <cmath>
#include <cstring>

namespace mirage::verify {
namespace {

// num * 10^exp10 with num already reduced, in both fields.
FieldConstant scaleByPowerOfTen(const MontField& P, const MontField& Q, u64 numP, u64 numQ,
                                bool negative, int64_t exp10) {
  auto apply = [&](const MontField& f, u64 num) {
    u64 ten = f.toMont(10);
    u64 mag = f.pow(ten, static_cast<u64>(exp10 < 0 ? -exp10 : exp10));
    u64 v = exp10 < 0 ? f.mul(num, f.inv(mag)) : f.mul(num, mag);
    return negative ? f.neg(v) : v;
  };
  return {apply(P, numP), apply(Q, numQ)};
}

}  // namespace

std::optional<FieldConstant> decimalToField(std::string_view text, const MontField& P,
                                            const MontField& Q) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  u64 numP = 0, numQ = 0;
  u64 ten[2] = {P.toMont(10), Q.toMont(10)};
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
    numP = P.add(P.mul(numP, ten[0]), P.toMont(static_cast<u64>(c - '0')));
    numQ = Q.add(Q.mul(numQ, ten[1]), Q.toMont(static_cast<u64>(c - '0')));
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
  return scaleByPowerOfTen(P, Q, numP, numQ, negative, exp10);
}

FieldConstant doubleToField(double value, const MontField& P, const MontField& Q) {
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
  return {apply(P), apply(Q)};
}

bool isPrime64(u64 n) {
  if (n < 2) return false;
  for (u64 small : {2u, 3u, 5u, 7u, 11u, 13u, 17u, 19u, 23u, 29u, 31u, 37u}) {
    if (n % small == 0) return n == small;
  }
  if (n < 37 * 37) return true;
  // Montgomery arithmetic needs n < 2^62; above that use plain 128-bit math.
  auto mulmod = [n](u64 a, u64 b) { return static_cast<u64>(static_cast<u128>(a) * b % n); };
  u64 d = n - 1;
  int r = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++r;
  }
  // Bases that make Miller-Rabin exact for all n < 2^64 (Jim Sinclair).
  for (u64 a : {2ull, 325ull, 9375ull, 28178ull, 450775ull, 9780504ull, 1795265022ull}) {
    a %= n;
    if (a == 0) continue;
    u64 x = 1, base = a, e = d;
    while (e) {
      if (e & 1) x = mulmod(x, base);
      base = mulmod(base, base);
      e >>= 1;
    }
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < r && composite; ++i) {
      x = mulmod(x, x);
      if (x == n - 1) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

PrimePair randomSafePrimePair(u64 seed) {
  // Candidates q = 2^60 + (random 60-bit odd offset); a cheap sieve by small
  // primes on q and 2q + 1 first, then the exact test.
  static constexpr u64 kSmall[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67};
  for (u64 counter = 0;; ++counter) {
    u64 h = mix64(seed ^ mix64(counter + 0x5afe5afe5afeULL));
    u64 q = (u64{1} << 60) | (h & ((u64{1} << 60) - 1)) | 1;
    bool sieved = false;
    for (u64 s : kSmall) {
      if (q % s == 0 || (2 * q + 1) % s == 0) {
        sieved = true;
        break;
      }
    }
    if (sieved) continue;
    if (isPrime64(q) && isPrime64(2 * q + 1)) return {2 * q + 1, q};
  }
}

}  // namespace mirage::verify
