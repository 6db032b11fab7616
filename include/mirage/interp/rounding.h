// Rounding of f32 (and f64) values to the program dtypes f16, bf16 and f32,
// round-to-nearest-even as IEEE 754 defines it: subnormals are kept, values at
// or beyond the overflow threshold become infinity, NaN stays NaN (quiet).
// The conversions are written on the bit patterns by hand so that they do not
// depend on compiler support for _Float16 or on the FPU's rounding mode. The
// rounding functions take a faster path where they can (docs/interpreter.md),
// part of which, like the arithmetic rounding of doubles, assumes the default
// rounding mode (to nearest), which nothing in mirage-opt changes.
#pragma once

#include <cstdint>

#include "mirage/ir/graph.h"

namespace mirage::interp {

// IEEE binary16: bit pattern of the nearest half to x (ties to even).
uint16_t floatToHalfBits(float x);
float halfBitsToFloat(uint16_t h);  // exact

// bfloat16 (the upper 16 bits of a binary32): nearest, ties to even.
uint16_t floatToBf16Bits(float x);
float bf16BitsToFloat(uint16_t b);  // exact

// x rounded to the nearest value of dtype t, returned as a float (exact for
// every dtype). F32 is the identity.
float roundToDType(float x, ir::DType t);

// The same for a double, rounded once (not through float, which could round
// twice): used for float64 .npy input.
float roundToDType(double x, ir::DType t);

// Rounds every element of [data, data + n) in place.
void roundInPlace(float* data, int64_t n, ir::DType t);

}  // namespace mirage::interp
