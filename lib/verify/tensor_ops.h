// The fingerprint rule of every pre-defined operator on whole tensors (see
// fingerprint.h for the lanes). Used for program-level ops and, on tiles,
// inside kernel bodies.
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"

namespace mirage::verify {

// A rank-0 tensor holding a constant (from its literal text, exactly).
FTensor makeConstant(const ir::Op& op, const MontField& P, const MontField& Q);

// Computes `op` (a pre-defined operator: matmul, element-wise, reduction or
// transpose) on `ins` into `out`, whose shape is `outShape`. Returns false
// when a divisor is zero in the field (the trial must be resampled). With
// wantQ false the residue lane is not computed (see demand.h).
bool applyOp(const ir::Op& op, const std::vector<const FTensor*>& ins, const ir::Shape& outShape,
             const Trial& trial, ThreadPool* pool, FTensor& out, bool wantQ = true);

// Copies the box of extent `box` at offset `srcOff` of src into dst at
// offset `dstOff`, for every lane src has (dst's lanes must be allocated).
void copyBox(const FTensor& src, const std::vector<int64_t>& srcOff, FTensor& dst,
             const std::vector<int64_t>& dstOff, const ir::Shape& box);

// Replaces every element by its inverse (batched: three multiplications per
// element and one exponentiation per chunk). False if some element is 0.
bool invertAll(std::vector<u64>& v, const MontField& f, ThreadPool* pool);

// Max-accumulation helpers shared by reduce_max and accum(op=max): the
// multiset hash contribution of element i of x, and the value of a maximum
// from its multiset hash.
u64 maxContribution(const FTensor& x, int64_t i, const Trial& trial);
u64 maxElementHash(u64 value, const Trial& trial);  // the contribution of a plain value
void finishMaximum(FTensor& t, const Trial& trial, bool wantQ = true);

// The keyed random function that stands for a non-algebraic unary operator
// (sqrt and rsqrt share one: rsqrt is its inverse).
KeyKind randomKey(ir::OpKind kind);

}  // namespace mirage::verify
