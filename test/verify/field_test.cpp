// Field arithmetic against a plain 128-bit reference.
#include <catch2/catch.hpp>

#include <random>

#include "mirage/verify/field.h"

using namespace mirage::verify;

namespace {

u64 ref(u128 x, u64 m) { return static_cast<u64>(x % m); }

void checkField(const MontField& f, std::mt19937_64& rng) {
  const u64 m = f.modulus();
  for (int i = 0; i < 2000; ++i) {
    u64 a = rng() % m, b = rng() % m;
    u64 ma = f.toMont(a), mb = f.toMont(b);
    REQUIRE(f.fromMont(ma) == a);
    REQUIRE(f.fromMont(f.mul(ma, mb)) == ref(static_cast<u128>(a) * b, m));
    REQUIRE(f.fromMont(f.add(ma, mb)) == ref(static_cast<u128>(a) + b, m));
    REQUIRE(f.fromMont(f.sub(ma, mb)) == ref(static_cast<u128>(a) + m - b, m));
    REQUIRE(f.fromMont(f.neg(ma)) == ref(m - a, m));
    u64 x = rng();  // any 64-bit word
    REQUIRE(f.reduce64(x) == x % m);
    REQUIRE(f.fromMont(f.toMont(x)) == x % m);
    if (a != 0) REQUIRE(f.mul(f.inv(ma), ma) == f.one());
  }
  // Lazy dot products: up to 16 products of representatives in 128 bits.
  for (int i = 0; i < 200; ++i) {
    u128 acc = 0;
    u64 expect = 0;
    for (int k = 0; k < 16; ++k) {
      u64 a = rng() % m, b = rng() % m;
      u64 ma = f.toMont(a), mb = f.toMont(b);
      acc += static_cast<u128>(ma) * mb;
      expect = ref(static_cast<u128>(expect) + ref(static_cast<u128>(a) * b, m), m);
    }
    REQUIRE(f.fromMont(f.reduceWide(acc)) == expect);
  }
  // Worst case: sixteen products of m - 1.
  u128 acc = 0;
  for (int k = 0; k < 16; ++k) acc += static_cast<u128>(m - 1) * (m - 1);
  // reduceWide(acc) = acc * 2^-64; multiplying by 2^128 (Montgomery
  // multiplication divides by 2^64 once more) gives back acc mod m.
  REQUIRE(f.mul(f.reduceWide(acc), f.toMont(f.toMont(1))) == ref(acc, m));
  // pow agrees with repeated multiplication.
  u64 g = f.toMont(3);
  u64 r = f.one();
  for (int e = 0; e < 70; ++e) {
    REQUIRE(f.pow(g, static_cast<u64>(e)) == r);
    r = f.mul(r, g);
  }
}

}  // namespace

TEST_CASE("Montgomery arithmetic matches 128-bit reference arithmetic", "[field]") {
  std::mt19937_64 rng(42);
  MontField fixed;
  checkField(fixed, rng);
  for (u64 seed : {1ull, 2ull, 99ull}) {
    PrimePair pq = randomSafePrimePair(seed);
    checkField(MontField(pq.p), rng);
    checkField(MontField(pq.q), rng);
  }
}

TEST_CASE("random safe prime pairs are safe primes in range and depend on the seed", "[field]") {
  PrimePair a = randomSafePrimePair(1), b = randomSafePrimePair(2);
  for (PrimePair pq : {a, b}) {
    CHECK(isPrime64(pq.q));
    CHECK(isPrime64(pq.p));
    CHECK(pq.p == 2 * pq.q + 1);
    CHECK(pq.q > (u64{1} << 60));
    CHECK(pq.p < (u64{1} << 62));
  }
  CHECK(a.p != b.p);
  CHECK(randomSafePrimePair(1).p == a.p);
}

TEST_CASE("isPrime64 on known values", "[field]") {
  CHECK(isPrime64(2));
  CHECK(isPrime64(1000000007));
  CHECK(isPrime64((u64{1} << 61) - 1));
  CHECK(isPrime64((u64{1} << 62) - 10565));
  CHECK_FALSE(isPrime64(1));
  CHECK_FALSE(isPrime64(561));                        // Carmichael
  CHECK_FALSE(isPrime64(3825123056546413051ull));     // strong pseudoprime to small bases
  CHECK_FALSE(isPrime64(static_cast<u64>(1000000007) * 998244353));
}

TEST_CASE("decimal literals map exactly into the field", "[field]") {
  PrimePair pq = randomSafePrimePair(5);
  MontField P(pq.p), Q(pq.q);
  auto val = [&](const char* text) {
    auto c = decimalToField(text, P, Q);
    REQUIRE(c.has_value());
    return *c;
  };
  auto times = [&](FieldConstant c, u64 k) {
    return std::pair{P.mul(c.p, P.toMont(k)), Q.mul(c.q, Q.toMont(k))};
  };
  CHECK(times(val("0.125"), 8) == std::pair{P.one(), Q.one()});
  CHECK(times(val("0.1"), 10) == std::pair{P.one(), Q.one()});
  CHECK(times(val("1e-6"), 1000000) == std::pair{P.one(), Q.one()});
  CHECK(val("-1").p == P.neg(P.one()));
  CHECK(val("2.5e3").p == P.toMont(2500));
  CHECK(val("4096").q == Q.toMont(4096));
  CHECK(val("0.000001").p == val("1e-6").p);
  CHECK(val("0.50").p == val("0.5").p);
  CHECK(val("0.12").p != val("0.125").p);
  // A literal longer than 64 bits is reduced digit by digit: 10^30 exactly.
  CHECK(val("1000000000000000000000000000000").p == P.pow(P.toMont(10), 30));
  CHECK_FALSE(decimalToField("abc", P, Q).has_value());
  CHECK_FALSE(decimalToField("1e", P, Q).has_value());
  CHECK_FALSE(decimalToField("", P, Q).has_value());
  // Doubles are dyadic rationals, mapped exactly.
  CHECK(doubleToField(0.375, P, Q).p == val("0.375").p);
  CHECK(doubleToField(-6.0, P, Q).q == val("-6").q);
}
