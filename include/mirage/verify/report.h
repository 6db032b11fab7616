// How a verdict is shown to users (mirage-equiv, the driver's reports): the
// answer line of ../shared/spec/cli.md, the bound line, and the exit status.
#pragma once

#include <string>

#include "mirage/verify/verifier.h"

namespace mirage::verify {

// "equivalent\n" or "not equivalent: NAME differs at [i, j]\n" or
// "not proven: REASON\n", the first two followed by the bound line, e.g. "error bound: 1.3e-19 (2 trials, seed 0)\n". A
// signature mismatch gives "" (it is an error, reported by errorMessage).
std::string formatVerdict(const Verdict& v, const Options& options);

// The message for a verdict that is an error (signature mismatch), else "".
std::string errorMessage(const Verdict& v);

// 0 equivalent, 1 not equivalent or not proven, 2 error (mismatched signatures).
int exitStatus(const Verdict& v);

}  // namespace mirage::verify
