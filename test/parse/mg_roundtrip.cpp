// Round-trip test of the printer over files: each must parse (warnings are
// allowed), print, read back to the same graph, and print to the same text
// again. Usage: mg_roundtrip FILE...
#include <iostream>
#include <sstream>

#include "mirage/parse/parser.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: mg_roundtrip FILE.mg...\n";
    return 2;
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::ostringstream diags;
    std::optional<mirage::ir::Graph> g = mirage::parse::parseFile(argv[i], diags);
    std::string why;
    if (!g) {
      std::cerr << argv[i] << ": does not parse:\n" << diags.str();
      ++failures;
    } else if (!mirage::parse::roundTrips(*g, &why)) {
      std::cerr << argv[i] << ": " << why << "\n";
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
