// mirage-equiv A.mg B.mg [--seed N] [--trials N]: decides whether two programs
// compute the same outputs, by random testing over finite fields
// (../shared/spec/cli.md, docs/verifier.md).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>

#include "mirage/parse/parser.h"
#include "mirage/verify/report.h"
#include "mirage/verify/verifier.h"

int main(int argc, char** argv) {
  CLI::App app{"mirage-equiv: check that two .mg programs compute the same outputs"};
  std::string fileA, fileB;
  mirage::verify::Options options;
  int verbosity = 0;
  app.add_option("A", fileA, "the reference program (.mg)")->required();
  app.add_option("B", fileB, "the program checked against it (.mg)")->required();
  app.add_option("--seed", options.seed, "seed of the random trials (default 0)");
  app.add_option("--trials", options.trials,
                 "number of trials (default: enough for an error bound below 1e-9)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("-j,--jobs", options.threads, "worker threads (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("-v", verbosity, "more logging");
  app.add_flag_function("-q", [&](int64_t n) { verbosity -= static_cast<int>(n); }, "less logging");
  app.set_version_flag("--version", std::string("mirage-equiv ") + MIRAGE_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  spdlog::set_level(verbosity > 0 ? spdlog::level::debug
                                  : verbosity < 0 ? spdlog::level::err : spdlog::level::warn);

  auto a = mirage::parse::parseFile(fileA, std::cerr);
  auto b = mirage::parse::parseFile(fileB, std::cerr);
  if (!a || !b) return 2;
  options.cacheBytes = 0;  // one check: nothing to share
  // Equivalence is symmetric (mg-language.md): both programs must be defined
  // on the same inputs, so each one's domain conditions need the other's.
  options.symmetric = true;
  try {
    mirage::verify::Verifier verifier(*a, options);
    mirage::verify::Verdict v = verifier.check(*b);
    if (v.signatureMismatch) {
      std::cerr << "mirage-equiv: error: " << mirage::verify::errorMessage(v) << "\n";
      return 2;
    }
    std::cout << mirage::verify::formatVerdict(v, verifier.options());
    return mirage::verify::exitStatus(v);
  } catch (const std::bad_alloc&) {
    std::cerr << "mirage-equiv: error: out of memory: the programs' tensors do not fit\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mirage-equiv: error: " << e.what() << "\n";
    return 2;
  }
}
