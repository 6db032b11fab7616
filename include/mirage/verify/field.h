// Prime-field arithmetic for the verifier: Montgomery multiplication in
// 64-bit words (no division by a variable anywhere on the hot path), lazy
// 128-bit accumulation of products for dot products, exact mapping of the
// language's decimal literals into the field, and the two moduli the checker
// uses: P = 2^62 - 10565 (values) and Q = (P - 1) / 2 (exponents of `exp`,
// which is modelled as x -> w^x with w of order Q in Z_P*). Both are prime.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mirage::verify {

using u64 = uint64_t;
using u128 = unsigned __int128;

// The value field and the exponent field. P is a safe prime, so Q is prime
// and divides P - 1; the subgroup of order Q is the quadratic residues.
inline constexpr u64 kPrimeP = (u64{1} << 62) - 10565;
inline constexpr u64 kPrimeQ = (kPrimeP - 1) / 2;

// Z_m for a prime modulus 2^60 < m < 2^62 that lies just below a power of
// two (m = 2^k - d, d < 2^20; both P and Q do), elements kept in Montgomery form
// (x is represented by x * 2^64 mod m). Every operation takes and returns
// representatives in [0, m).
class MontField {
 public:
  explicit constexpr MontField(u64 m)
      : m_(m), minv_(negInverse(m)), r2_(computeR2(m)), bits_(bitWidth(m)) {}

  constexpr u64 modulus() const { return m_; }
  constexpr u64 zero() const { return 0; }
  constexpr u64 one() const { return toMont(1); }

  // t < m * 2^64  ->  t * 2^-64 mod m.
  constexpr u64 redc(u128 t) const {
    u64 u = static_cast<u64>(t) * minv_;
    u64 r = static_cast<u64>((t + static_cast<u128>(u) * m_) >> 64);
    return r >= m_ ? r - m_ : r;
  }
  // Any 128-bit t (for example a sum of up to 16 products of
  // representatives)  ->  t * 2^-64 mod m. Products of Montgomery
  // representatives summed this way give the Montgomery form of the sum.
  constexpr u64 reduceWide(u128 t) const {
    u64 hi = static_cast<u64>(t >> 64);
    // m = 2^bits - d with d tiny, so this leaves hi < 2^bits + 8d < 2m.
    hi -= (hi >> bits_) * m_;
    if (hi >= m_) hi -= m_;
    if (hi >= m_) hi -= m_;
    return redc((static_cast<u128>(hi) << 64) | static_cast<u64>(t));
  }

  constexpr u64 mul(u64 a, u64 b) const { return redc(static_cast<u128>(a) * b); }
  constexpr u64 add(u64 a, u64 b) const {
    u64 r = a + b;
    return r >= m_ ? r - m_ : r;
  }
  constexpr u64 sub(u64 a, u64 b) const { return a >= b ? a - b : a + m_ - b; }
  constexpr u64 neg(u64 a) const { return a == 0 ? 0 : m_ - a; }

  // Plain integer x (any 64-bit value) -> Montgomery form.
  constexpr u64 toMont(u64 x) const {
    if (x >= m_) x = reduceU64(x);
    return mul(x, r2_);
  }
  // Montgomery form -> plain residue in [0, m).
  constexpr u64 fromMont(u64 a) const { return redc(a); }

  constexpr u64 pow(u64 a, u64 e) const {
    u64 r = one();
    while (e) {
      if (e & 1) r = mul(r, a);
      a = mul(a, a);
      e >>= 1;
    }
    return r;
  }
  // a != 0 (Fermat: a^(m-2)).
  constexpr u64 inv(u64 a) const { return pow(a, m_ - 2); }

  // A 64-bit pseudo-random word -> an element, uniform up to a statistical
  // distance below 2^-40 (the top bits above the modulus' size are dropped,
  // the few values in [m, 2^k) wrap around).
  constexpr u64 fromRandom(u64 h) const {
    u64 x = h >> (64 - bits_);
    return x >= m_ ? x - m_ : x;
  }

 private:
  static constexpr u64 negInverse(u64 m) {
    u64 inv = m;  // Newton iteration: correct to 3 bits for odd m, doubles each step
    for (int i = 0; i < 6; ++i) inv *= 2 - m * inv;
    return ~inv + 1;
  }
  static constexpr u64 computeR2(u64 m) {
    // 2^128 mod m by doubling 2^64 mod m sixty-four times (constant-evaluated).
    u128 r = (static_cast<u128>(1) << 64) % m;
    for (int i = 0; i < 64; ++i) r = (r * 2) % m;
    return static_cast<u64>(r);
  }
  static constexpr int bitWidth(u64 m) {
    int b = 0;
    while (b < 64 && (m >> b) != 0) ++b;
    return b;
  }
  constexpr u64 reduceU64(u64 x) const {
    x -= (x >> bits_) * m_;  // as in reduceWide
    while (x >= m_) x -= m_;
    return x;
  }

  u64 m_;
  u64 minv_;
  u64 r2_;
  int bits_;
};

inline constexpr MontField kFieldP{kPrimeP};
inline constexpr MontField kFieldQ{kPrimeQ};

// An exact rational number num/den with den > 0, as decoded from a literal.
// The literal "0.125" becomes 125/1000, "1e-6" becomes 1/10^6, "-1" is -1/1;
// in the field it is num * den^-1 (den is a product of 2s and 5s, never 0 mod
// P or Q). Digits are reduced mod the modulus as they are read, so literals
// of any length map exactly.
struct FieldConstant {
  u64 p = 0;  // Montgomery form in Z_P
  u64 q = 0;  // Montgomery form in Z_Q
};

// Parses a decimal literal (sign, digits, optional fraction, optional
// exponent). Returns nullopt when the text is not such a literal.
std::optional<FieldConstant> decimalToField(std::string_view text);

// The exact value of a finite double (a dyadic rational) in both fields; used
// for constants that carry no literal text.
FieldConstant doubleToField(double value);

}  // namespace mirage::verify
