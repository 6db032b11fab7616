// Which outputs depend on an `exp` of a value without an exact residue mod Q
// (an exp of something computed from another exp, "nested exps"). The
// verifier evaluates such an exp as a random function of its argument's
// value (tensor_ops.cpp), which is not a homomorphism: exp(y - m) and
// exp(y)·exp(-m) get unrelated fingerprints although they are equal over the
// reals. Equal fingerprints still prove equality (an uninterpreted function
// is a sound abstraction), but different fingerprints of such an output
// refute nothing by themselves (docs/verifier.md, "Nested exps").
#pragma once

#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::verify {

// One entry per output of `g`: whether its value depends on an exp whose
// argument has no residue lane. Follows the lane rules of the evaluation
// exactly (inputs, constants, random functions and maxima have a residue;
// an exp result or a rescaled sum has none; sums, products, quotients,
// reductions, transposes, tiles and saves have one when all operands have),
// inside kernel bodies too.
std::vector<char> outputsAfterUninterpretedExp(const ir::Graph& g);

}  // namespace mirage::verify
