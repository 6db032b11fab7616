// The overflow-guard analysis (../shared/spec/cli.md, "Numerical safety"):
// for every `exp` of a program, at program level and in kernel bodies,
// whether its argument is provably never positive. softmax's expansion
// exp(x - reduce_max(x)) is; exp(x) of a logit is not, and in f16 it
// overflows once x passes about 11.
//
// The analysis is a sign analysis (non-negative / non-positive) together
// with a "covers" relation, M >= a element-wise under broadcasting, which
// holds for a maximum of a (reduce_max over a dim, scan(·, op=max) in the
// same iteration, a maximum of maxima), and is kept by shifts of M up or of
// a down by a non-negative amount and by scaling both with one positive
// constant. Every rule is also true in floating point, because rounding is
// monotone (fl(a - M) <= 0 when M >= a) and maxima are exact. A "guarded"
// answer that is wrong is the bug this analysis exists to prevent, so
// anything not matched by a rule is "not guarded"; structurally different
// recomputations of one value are not recognized as equal.
//
// The search's guard rule (search.cpp): when the input guards its
// exponentials, a candidate must guard all of its own.
#pragma once

#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::search {

struct ExpGuard {
  int kernelOp = -1;  // program-level op index of the kernel whose body holds the exp; -1 at program level
  int op = 0;         // index of the exp op in its graph (program or body)
  bool guarded = false;
};

// Every exp of g (program level and kernel bodies), in op order, a kernel's
// at the kernel's place.
std::vector<ExpGuard> analyzeExpGuards(const ir::Graph& g);

// Some exp of g has a provably non-positive argument, and none lacks one:
// the input asks its candidates to guard theirs. A program without exp, or
// with an unguarded exp (Mirage's benchmark form exp(QK)/Σexp(QK)), asks
// for nothing.
bool asksForGuard(const ir::Graph& input);

// Every exp of g has a provably non-positive argument (true without exp).
bool guardsAllExps(const ir::Graph& g);

}  // namespace mirage::search
