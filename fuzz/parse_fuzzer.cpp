// libFuzzer harness for the `.mg` front end. Any input must give either
// diagnostics or a graph, never a crash or hang; a graph must survive the
// printer's round trip (print, read back, same graph, same text), so the
// fuzzer checks the printer too. The same function runs in CI over the saved
// corpus (test/parse/fuzz_corpus_main.cpp), built with g++.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "mirage/parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mirage::parse::Diagnostics diags("fuzz.mg", text);
  std::optional<mirage::ir::Graph> g = mirage::parse::parseProgram(text, diags);
  // Rendering touches every diagnostic's position against the source lines.
  std::string rendered = diags.str();
  if (g.has_value() == (diags.errorCount() > 0)) {
    std::fprintf(stderr, "a graph was returned together with errors, or neither:\n%s",
                 rendered.c_str());
    std::abort();
  }
  if (g) {
    std::string why;
    if (!mirage::parse::roundTrips(*g, &why)) {
      std::fprintf(stderr, "round trip failed: %s\n", why.c_str());
      std::abort();
    }
  }
  return 0;
}
