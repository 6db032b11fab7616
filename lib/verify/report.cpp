// Text form of verdicts (see report.h).
#include "mirage/verify/report.h"

#include <fmt/format.h>

namespace mirage::verify {

std::string formatVerdict(const Verdict& v, const Options& options) {
  if (v.signatureMismatch) return {};
  std::string out;
  if (v.equivalent) {
    out = "equivalent\n";
    out += fmt::format("error bound: {:.3g} (probability that 'equivalent' is wrong; {} trials, seed {})\n",
                       v.errorBound, v.trials, options.seed);
    return out;
  }
  // Not evidence of a difference: say so rather than "fingerprints differ".
  if (v.cancelled) return fmt::format("inconclusive: {}\n", v.message);
  if (v.notProven) return fmt::format("not proven: {}\n", v.message);
  if (!v.index.empty() || !v.output.empty()) {
    if (v.index.empty())
      out = fmt::format("not equivalent: {}\n", v.message);
    else
      out = fmt::format("not equivalent: {} differs at [{}]\n", v.output, fmt::join(v.index, ", "));
  } else {
    out = fmt::format("not equivalent: {}\n", v.message);
  }
  // The checker is sound but incomplete: a difference means the programs
  // differ as formal expressions over the identities it knows
  // (docs/verifier.md), which for programs of sums, products, quotients and
  // exp means they differ as real functions.
  out += fmt::format("fingerprints differ in trial {} (seed {})\n", v.trials, options.seed);
  if (!v.realWitness.empty())
    out += fmt::format("the output depends on an exp of an exp, and the programs also differ {}\n", v.realWitness);
  return out;
}

std::string errorMessage(const Verdict& v) { return v.signatureMismatch ? v.message : std::string(); }

int exitStatus(const Verdict& v) {
  if (v.signatureMismatch) return 2;
  return v.equivalent ? 0 : 1;
}

}  // namespace mirage::verify
