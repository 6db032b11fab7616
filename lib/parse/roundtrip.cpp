// The printer's round-trip property, checked by reading its output back.
#include <fmt/format.h>

#include "mirage/ir/equal.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"

namespace mirage::parse {

bool roundTrips(const ir::Graph& g, std::string* why) {
  auto fail = [&](std::string msg) {
    if (why) *why = std::move(msg);
    return false;
  };
  std::string first = ir::printGraph(g);
  Diagnostics diags("<printed>", first);
  std::optional<ir::Graph> again = parseProgram(first, diags);
  if (!again)
    return fail(fmt::format("the printed program does not parse:\n{}{}", diags.str(), first));
  std::string reason;
  if (!ir::sameGraph(g, *again, &reason))
    return fail(fmt::format("the printed program reads back differently: {}\n{}", reason, first));
  std::string second = ir::printGraph(*again);
  if (second != first)
    return fail(fmt::format("printing is not stable:\n{}---\n{}", first, second));
  return true;
}

}  // namespace mirage::parse
