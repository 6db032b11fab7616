// The search's view of the layout operators (reshape, concat, slice): the
// simple, sound version of "seeing through" them. A program that has any is
// cut at them into segments of ordinary operators; each segment is searched
// as a program of its own (its inputs are the program's inputs and the
// tensors earlier segments and layout ops produce), and the best μGraph of
// every segment is stitched back between the layout ops, which codegen then
// makes views (reshape) or copy kernels (slice, concat). Segments are the
// weakly connected pieces of each *stage*: a layout op's result is one
// stage later than its operand, an ordinary operator is in the latest stage
// of its operands, so every segment depends only on earlier stages.
#pragma once

#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::search {

struct Segment {
  ir::Graph program;                // ordinary operators only; names kept where the program has them
  std::vector<ir::ValueId> inputs;  // per segment input: the value of the whole program it stands for
  std::vector<ir::ValueId> outputs; // per segment output: the same
  int stage = 0;
};

// The segments of `program` in an order that respects their dependences;
// empty when the program has no layout operator (search it whole).
std::vector<Segment> splitAtLayoutOps(const ir::Graph& program);

// The whole program again, with segment i replaced by `chosen[i]` (a graph
// with the segment's inputs and outputs, in order, such as a verified
// candidate for it). Returns an empty string, or why it could not be built.
std::string stitchSegments(const ir::Graph& program, const std::vector<Segment>& segments,
                           const std::vector<const ir::Graph*>& chosen, ir::Graph& out);

}  // namespace mirage::search
