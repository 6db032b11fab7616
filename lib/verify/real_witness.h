// A refutation over the reals for what the fields cannot refute: an output
// that depends on an exp of a value without residue (nested_exp.h) may differ
// in its fingerprints although the programs are equal. Such a difference is
// reported "not equivalent" only when evaluating both programs on real
// inputs shows it too (docs/verifier.md, "Nested exps").
#pragma once

#include <cstddef>
#include <string>

#include "mirage/ir/graph.h"

namespace mirage::verify {

// True when output `o` of `a` and `b` (same signature) differs clearly at two
// independent draws of real inputs, each uniform in [-1, 1): the reference
// interpreter in f32 (no rounding to the program dtype), an element whose
// difference exceeds 1e-3 of the larger output's magnitude, in both draws.
// False when it does not, when an output is not finite, or when the programs
// are too large to evaluate quickly (more than ~2^31 multiply-adds); then
// `why` says which. On true, `why` gives the witness.
bool differsOverReals(const ir::Graph& a, const ir::Graph& b, size_t o, std::string* why);

}  // namespace mirage::verify
