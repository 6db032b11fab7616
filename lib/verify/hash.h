// Keyed 64-bit hashing used as the verifier's random functions and input
// generator. Each round of mix64 is a bijection of 64-bit words, so a keyed
// hash never maps two distinct arguments to the same word; its outputs stand
// in for independent uniform values (see docs/verifier.md on this model).
#pragma once

#include <cstdint>
#include <string_view>

namespace mirage::verify {

// The finalizer of SplitMix64 (Stafford's variant 13): a bijection with full
// avalanche.
inline constexpr uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

inline constexpr uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Two keyed rounds: for a fixed key, a bijection of v.
inline constexpr uint64_t keyedHash(uint64_t key, uint64_t v) {
  return mix64(mix64(v ^ key) + rotl64(key, 29));
}

inline constexpr uint64_t hashCombine(uint64_t h, uint64_t v) {
  return mix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

inline uint64_t hashString(std::string_view s, uint64_t seed = 0xcbf29ce484222325ULL) {
  uint64_t h = seed;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return mix64(h ^ s.size());
}

}  // namespace mirage::verify
