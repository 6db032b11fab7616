// Structural equality of graphs, for round-trip tests ("parse, print, parse
// gives the same graph") and for anything else that must tell whether two
// graphs are the same program. Two graphs are equal when their operations
// (constants aside) pair up in order with the same kind, attributes, operand
// structure and result shapes, constants are compared by their literal text,
// kernel bodies are equal recursively, and every name the first graph gives
// a value is given to the paired value of the second (the second may name
// values the first leaves unnamed, as the printer does).
#pragma once

#include <string>

#include "mirage/ir/graph.h"

namespace mirage::ir {

// True when `a` and `b` are the same program in the sense above; otherwise
// false, and *why (if given) says where they first differ.
bool sameGraph(const Graph& a, const Graph& b, std::string* why = nullptr);

}  // namespace mirage::ir
