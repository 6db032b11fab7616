// Round-trip test of the printer over files: each must parse (warnings are
// allowed), print, read back to the same graph, and print to the same text
// again. With --skip-invalid, files that do not parse are skipped instead of
// failing (for sweeping every .mg of the repository, some of which are
// meant to be rejected). Usage: mg_roundtrip [--skip-invalid] FILE...
#include <cstring>
#include <iostream>
#include <sstream>

#include "mirage/parse/parser.h"

int main(int argc, char** argv) {
  int first = 1;
  bool skipInvalid = argc > 1 && std::strcmp(argv[1], "--skip-invalid") == 0;
  if (skipInvalid) ++first;
  if (argc <= first) {
    std::cerr << "usage: mg_roundtrip [--skip-invalid] FILE.mg...\n";
    return 2;
  }
  int failures = 0, passed = 0, skipped = 0;
  for (int i = first; i < argc; ++i) {
    std::ostringstream diags;
    std::optional<mirage::ir::Graph> g = mirage::parse::parseFile(argv[i], diags);
    std::string why;
    if (!g) {
      if (skipInvalid) {
        ++skipped;
        continue;
      }
      std::cerr << argv[i] << ": does not parse:\n" << diags.str();
      ++failures;
    } else if (!mirage::parse::roundTrips(*g, &why)) {
      std::cerr << argv[i] << ": " << why << "\n";
      ++failures;
    } else {
      ++passed;
    }
  }
  std::cout << passed << " round-tripped, " << skipped << " skipped (do not parse), " << failures
            << " failed\n";
  return failures ? 1 : 0;
}
