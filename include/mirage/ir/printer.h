// Writes a Graph as `.mg` text that the parser reads back to the same graph.
// One binding per line; unnamed intermediates get fresh names `tN` that do
// not collide with any name of the program, constants are printed inline, so
// printing, reading and printing again gives the same text.
#pragma once

#include <string>

#include "mirage/ir/graph.h"

namespace mirage::ir {

std::string printGraph(const Graph& g);

// Shortest decimal text for a double that reads back to the same value.
std::string formatNumber(double v);

}  // namespace mirage::ir
