// The randomness of one trial (see fingerprint.h).
#include "hash.h"
#include "mirage/verify/fingerprint.h"

namespace mirage::verify {

Trial::Trial(u64 seed, u64 trial, u64 attempt) {
  id_ = hashCombine(hashCombine(mix64(seed ^ 0x6d69726167652d76ULL), trial), attempt);
  PrimePair primes = randomSafePrimePair(id_);
  p_ = MontField(primes.p);
  q_ = MontField(primes.q);
  for (size_t i = 0; i < keys_.size(); ++i) keys_[i] = hashCombine(id_, 0x1000 + i);
  // w = h^2 for a random h != 0, +-1: a uniformly random element of order Q
  // (the squares form the subgroup of prime order Q).
  u64 counter = 0;
  do {
    u64 h = p_.fromRandom(keyedHash(id_ ^ 0x0e0e0e0eULL, counter), keyedHash(id_ ^ 0x0f0f0f0fULL, counter));
    ++counter;
    omega_ = p_.mul(h, h);
  } while (omega_ == 0 || omega_ == p_.one());
  omegaTable_.resize(8 * 256);
  u64 base = omega_;  // w^(256^i)
  for (int i = 0; i < 8; ++i) {
    u64 acc = p_.one();
    for (int j = 0; j < 256; ++j) {
      omegaTable_[static_cast<size_t>(i * 256 + j)] = acc;
      acc = p_.mul(acc, base);
    }
    base = acc;  // base^256
  }
}

// Each result draws 128 bits (two keyed hashes) so that it is uniform in the
// field up to 2^-66.
u64 Trial::randomP(KeyKind k, u64 x) const {
  return p_.fromRandom(keyedHash(key(k), x), keyedHash(rotl64(key(k), 7) ^ 0x2727272727272727ULL, x));
}

u64 Trial::randomQ(KeyKind k, u64 x) const {
  return q_.fromRandom(keyedHash(rotl64(key(k), 17) ^ 0x5151515151515151ULL, x),
                       keyedHash(rotl64(key(k), 41) ^ 0x3939393939393939ULL, x));
}

u64 Trial::expOmega(u64 e) const {
  const u64* t = omegaTable_.data();
  u64 r = t[e & 255];
  for (int i = 1; i < 8; ++i) r = p_.mul(r, t[i * 256 + ((e >> (8 * i)) & 255)]);
  return r;
}

Trial::InputKeys Trial::inputKeys(const std::string& name) const {
  u64 nameHash = hashString(name, key(KeyKind::InputP));
  return {keyedHash(key(KeyKind::InputP), nameHash), keyedHash(key(KeyKind::InputQ), nameHash)};
}

u64 Trial::inputP(const InputKeys& k, int64_t i) const {
  u64 e = static_cast<u64>(i) << 1;
  return p_.fromRandom(keyedHash(k.p, e), keyedHash(k.p, e | 1));
}

u64 Trial::inputQ(const InputKeys& k, int64_t i) const {
  u64 e = static_cast<u64>(i) << 1;
  return q_.fromRandom(keyedHash(k.q, e), keyedHash(k.q, e | 1));
}

FTensor Trial::input(const std::string& name, const ir::Shape& shape, bool withResidue) const {
  FTensor t;
  t.shape = shape;
  int64_t n = ir::numElements(shape);
  t.p.resize(static_cast<size_t>(n));
  if (withResidue) t.q.resize(static_cast<size_t>(n));
  InputKeys k = inputKeys(name);
  for (int64_t i = 0; i < n; ++i) {
    t.p[static_cast<size_t>(i)] = inputP(k, i);
    if (withResidue) t.q[static_cast<size_t>(i)] = inputQ(k, i);
  }
  return t;
}

}  // namespace mirage::verify
