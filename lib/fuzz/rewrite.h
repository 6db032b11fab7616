// Rebuilding a program through the checked builders with edits applied:
// values replaced by others, values cut into fresh inputs, a new output list,
// extents renamed. The generator uses it to drop dead operations and the
// shrinker to try each reduction; an edit that makes the program illegal
// (an extent that no longer divides, a matmul whose inner dims now differ)
// is reported, not repaired, so the shrinker simply tries the next one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::fuzz {

struct Edit {
  // replace[v] = w: every use of v reads w instead (w a value of the source
  // with v's shape). Missing entries: no replacement.
  std::map<ir::ValueId, ir::ValueId> replace;
  // Values turned into program inputs of the same shape (cutting off what
  // computed them).
  std::vector<ir::ValueId> cut;
  // The outputs, as values of the source; empty = the source's.
  std::vector<ir::ValueId> outputs;
  // Every extent E of an input shape becomes extents[E] (and a reduce_sum
  // size E becomes extents[E]).
  std::map<int64_t, int64_t> extents;
};

// The source with `edit` applied and every operation that no output depends
// on removed. Only program-level graphs without custom kernels. nullopt (and
// *why) when a builder rejects the result.
std::optional<ir::Graph> rebuild(const ir::Graph& src, const Edit& edit, std::string* why = nullptr);

}  // namespace mirage::fuzz
