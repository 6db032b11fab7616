// Layout simplification before a program is cut into segments (lib/search/segments.h):
// exact identities that move `concat` towards the consumers that can absorb
// it and push `slice` down to the program inputs, where a slice that only
// kernels read is a view (no launch, ir::isLayoutView). This is what lets
// RoPE's rotate_half (a concat of two slices) disappear into the attention
// that follows it: S = [Q1 Q2]·[K1; K2] = Q1·K1 + Q2·K2.
//
// Rules (each an identity over the reals; all but the matmul split are exact
// in floating point too, while the split rounds its parts where they are
// stored, which the numerics check weighs like any candidate's rounding):
//  * concat through element-wise operators: f(concat(a1, a2), b) =
//    concat(f(a1, b1), f(a2, b2)) where b1, b2 are b's parts at the same
//    split points (b a concat at the same points, or a value that slices
//    cheaply: an input, a slice of one, an element-wise operator of such
//    values); an operand broadcast along the dim (extent 1, or missing)
//    is used whole;
//  * a slice that falls within one part of a concat is a slice of that part;
//    a slice of an element-wise operator is the operator of the slices; a
//    slice of a slice is one slice;
//  * a matmul whose contracted dim is a concat (on one operand, the other
//    sliceable, or on both at the same points) is the sum of the matmuls of
//    the parts;
//  * sign peepholes the rotation leaves: mul(x, -1) = neg(x),
//    mul(neg(a), b) = neg(mul(a, b)),
//    add(x, neg(y)) = sub(x, y), sub(x, neg(y)) = add(x, y), neg(neg(x)) = x.
// Equal operations are merged and dead ones dropped. The program's inputs
// and outputs (order, names, shapes) are kept. The result is verified
// against the input like every candidate the search makes.
#pragma once

#include "mirage/ir/graph.h"

namespace mirage::search {

// The simplified program in `out`; false (and `out` unspecified) when no
// rule applies or the program has custom kernels (only plain programs are
// rewritten).
bool simplifyLayout(const ir::Graph& program, ir::Graph& out);

// Whether runSearch would search `program` in segments of its layout
// simplification (a rule applied) none of which has more than `maxOps`
// operators. The driver then searches it so rather than by regions:
// regions count the slices as operators and cut RoPE's concats away from
// the matmul that absorbs them.
bool simplifiesIntoSmallSegments(const ir::Graph& program, int maxOps);

}  // namespace mirage::search
