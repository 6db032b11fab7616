// The randomness of one trial (see fingerprint.h).
#include "hash.h"
#include "mirage/verify/fingerprint.h"

namespace mirage::verify {

Trial::Trial(u64 seed, u64 trial, u64 attempt) {
  id_ = hashCombine(hashCombine(mix64(seed ^ 0x6d69726167652d76ULL), trial), attempt);
  for (size_t i = 0; i < keys_.size(); ++i) keys_[i] = hashCombine(id_, 0x1000 + i);
  // w = h^2 for a random h != 0, +-1: a uniformly random element of order Q
  // (the squares form the subgroup of prime order Q).
  u64 counter = 0;
  do {
    u64 h = kFieldP.fromRandom(keyedHash(id_ ^ 0x0e0e0e0eULL, counter++));
    omega_ = kFieldP.mul(h, h);
  } while (omega_ == 0 || omega_ == kFieldP.one());
  omegaTable_.resize(8 * 256);
  u64 base = omega_;  // w^(256^i)
  for (int i = 0; i < 8; ++i) {
    u64 acc = kFieldP.one();
    for (int j = 0; j < 256; ++j) {
      omegaTable_[static_cast<size_t>(i * 256 + j)] = acc;
      acc = kFieldP.mul(acc, base);
    }
    base = acc;  // base^256
  }
}

u64 Trial::randomP(KeyKind k, u64 x) const { return kFieldP.fromRandom(keyedHash(key(k), x)); }

u64 Trial::randomQ(KeyKind k, u64 x) const {
  return kFieldQ.fromRandom(keyedHash(rotl64(key(k), 17) ^ 0x5151515151515151ULL, x));
}

u64 Trial::expOmega(u64 e) const {
  const u64* t = omegaTable_.data();
  u64 r = t[e & 255];
  for (int i = 1; i < 8; ++i) r = kFieldP.mul(r, t[i * 256 + ((e >> (8 * i)) & 255)]);
  return r;
}

FTensor Trial::input(const std::string& name, const ir::Shape& shape) const {
  FTensor t;
  t.shape = shape;
  int64_t n = ir::numElements(shape);
  t.p.resize(static_cast<size_t>(n));
  t.q.resize(static_cast<size_t>(n));
  u64 nameHash = hashString(name);
  u64 kp = keyedHash(key(KeyKind::InputP), nameHash);
  u64 kq = keyedHash(key(KeyKind::InputQ), nameHash);
  for (int64_t i = 0; i < n; ++i) {
    t.p[static_cast<size_t>(i)] = kFieldP.fromRandom(keyedHash(kp, static_cast<u64>(i)));
    t.q[static_cast<size_t>(i)] = kFieldQ.fromRandom(keyedHash(kq, static_cast<u64>(i)));
  }
  return t;
}

}  // namespace mirage::verify
