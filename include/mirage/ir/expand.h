// Shorthand expansion: the one pass, run right after parsing, that replaces
// every shorthand op (rms_norm, layer_norm, softmax, ...: the Shorthand rows
// of ir/ops.def) by exactly the expansion mg-language.md gives. No other
// component sees a shorthand.
#pragma once

#include <optional>
#include <string>

#include "mirage/ir/graph.h"

namespace mirage::ir {

struct ExpandError {
  SourceLoc loc;  // the shorthand's position
  std::string message;
};

// Rebuilds g (and its kernel bodies) through the checked builders with each
// shorthand replaced by its expansion; every op of an expansion carries the
// shorthand's source position, and its last op the shorthand's result name.
// The checks of the shorthand op itself (ir/check.h) make an expansion legal,
// so an error here is an internal one; it is reported, not thrown.
std::optional<ExpandError> expandShorthands(Graph& g);

// Whether a number literal denotes zero: its digits before any exponent are
// all '0' (`0`, `-0.0`, `0e5`). A tiny literal such as 1e-400 is not zero,
// even though it underflows to zero as a double. (`eps=0` adds nothing.)
bool isZeroLiteral(std::string_view text);

}  // namespace mirage::ir
