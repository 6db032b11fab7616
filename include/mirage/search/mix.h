// The search's 64-bit hash finalizer (splitmix64): signatures of body
// values, keys of move outcomes, slots of its open-addressed tables
// (FlatMemo's among them, which the public expression table holds).
#pragma once

#include <cstdint>

namespace mirage::search {

inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace mirage::search
