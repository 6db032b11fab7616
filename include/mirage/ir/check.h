// Shape inference and the legality rules of the `.mg` language, shared by
// every producer of graphs (the parser, the search, tests). Each function
// returns an empty string when the operation is legal, else one message that
// says what was expected or which shapes disagree; the caller attaches the
// source position.
#pragma once

#include <string>

#include "mirage/ir/graph.h"

namespace mirage::ir {

using Error = std::string;  // empty = no problem

inline constexpr int kMaxRank = 4;
inline constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// Maps a possibly negative dim (-1 = last) onto [0, rank); -1 if out of range.
int normalizeDim(int dim, int rank);

// NumPy broadcasting of two shapes; error when a pair of extents differs and
// neither is 1.
Error broadcastShapes(const Shape& a, const Shape& b, Shape& out);

// Checks `op` (whose inputs are values of g) and appends it to g. Negative
// dims in the attributes are normalized in place; in imap, omap and fmap -1
// means "unmapped", so a caller holding a user's -1 there (the last dim)
// normalizes it first, as the parser does. `kernel` is the enclosing
// kernel's configuration when g is a kernel body, else null. On success
// *result is the new value (kNoValue for save). Does not handle Kernel ops:
// see addKernel.
Error addOp(Graph& g, Op op, const KernelConfig* kernel, ValueId* result,
            const std::string& name = "");

// Appends a program input.
Error addInput(Graph& g, const std::string& name, const Shape& shape, ValueId* result,
               SourceLoc loc = {});

// Appends a scalar constant (rank 0). `text` is the literal as written.
ValueId addConst(Graph& g, const std::string& text, SourceLoc loc = {});

// Checks a finished kernel body against its arguments and configuration
// (every result written by exactly one save, saves depend on an accum, …),
// infers the result shapes and appends the Kernel op to g. `op.inputs` are the
// arguments (values of g), `op.body` the body whose inputs correspond to them
// one to one. On success `results` holds the new values.
Error addKernel(Graph& g, Op op, int numResults, const std::vector<std::string>& resultNames,
                std::vector<ValueId>* results);

// The rule on program outputs beyond their existence: a kernel result saved
// with dtype=f32 cannot be one.
Error checkOutput(const Graph& g, ValueId v);

// Whole-graph check of a program: at least one output, every value's shape
// within limits, every kernel legal. Used on graphs that were not built
// through the functions above (for example, read back from a cache).
Error checkProgram(const Graph& g);

// True when value v of body graph g depends on an accum (it is computed once,
// after the for-loop).
bool isAfterLoop(const Graph& body, ValueId v);

// The shape of the tile a block sees of an argument of shape `full`.
Shape tileShape(const Shape& full, const DimMap& imap, int fmap, const KernelConfig& k);

}  // namespace mirage::ir
