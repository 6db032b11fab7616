// The file-driven suite of program pairs in test/equiv/: NNN_name.a.mg is the
// reference, NNN_name.b.mg the candidate, and the reference's first line says
// what the verdict must be:
//   # expect: equivalent      — must be proven equivalent
//   # expect: not-equivalent  — must be rejected (a wrong "equivalent" is the
//                               one failure that can never be tolerated)
//   # expect: unprovable      — equal over the reals but beyond the identities
//                               the checker knows: must be "not equivalent"
//                               or "not proven"
//   # expect: not-proven      — must be "not proven": a domain condition (a
//                               divisor, a sqrt or rsqrt argument) that the
//                               checker cannot show where the other program is
//                               defined, a bound above 1e-9, ...
//   # expect: error           — mismatched signatures
// The check is the one mirage-equiv makes: symmetric in definedness (each
// program's conditions must follow from the other's).
// Every pair is checked with every seed given, so the test also shows that
// verdicts do not depend on the seed.
//
// usage: equiv_suite DIR [SEED...]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_eval.h"
#include "lazy_eval.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"
#include "mirage/verify/verifier.h"

namespace fs = std::filesystem;
using namespace mirage::verify;

namespace {

// The pre-check's single-element evaluation must agree with the whole-tensor
// evaluation on every element it computes: compare up to 24 elements of
// every output (first, last, and spread between). Returns the mismatches.
int lazyMismatches(const mirage::ir::Graph& g, uint64_t seed, const std::string& what) {
  Trial t(seed, 0, 0);
  EvalResult full = evaluateProgram(g, t, nullptr);
  if (full.status != EvalStatus::Ok) return 0;
  LazyEvaluator lazy(g, t);
  int bad = 0;
  for (size_t o = 0; o < full.outputs.size(); ++o) {
    const FTensor& f = *full.outputs[o];
    int64_t n = f.size(), step = std::max<int64_t>(1, n / 23);
    for (int64_t i = 0; i < n; i += step) {
      for (int64_t idx : {i, n - 1 - i}) {
        Elem e;
        if (lazy.output(o, idx, e) != LazyEvaluator::Status::Ok) continue;
        if (e.p != f.p[static_cast<size_t>(idx)]) {
          std::cout << "FAIL " << what << ": single-element evaluation of output " << o << " at " << idx
                    << " disagrees with the whole-tensor evaluation\n";
          ++bad;
        }
      }
    }
  }
  return bad;
}

// A kernel run for some of its blocks (evaluateProgram's sampledBlocks, what
// the pre-check does for kernels that read program inputs) must give the
// whole-tensor evaluation's value at every element those blocks write, and
// leave the rest zero. Each output kernel is run for its first, middle and
// last block, one at a time; an element they write whose value is zero
// would pass unnoticed, a chance of 2^-60. Returns the mismatches.
int sampledMismatches(const mirage::ir::Graph& g, uint64_t seed, const std::string& what) {
  Trial t(seed, 0, 0);
  EvalResult full = evaluateProgram(g, t, nullptr);
  if (full.status != EvalStatus::Ok) return 0;
  int bad = 0;
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const mirage::ir::Op& k = g.producer(g.outputs[o]);
    if (k.kind != mirage::ir::OpKind::Kernel) continue;
    const int64_t blocks = k.config.grid[0] * k.config.grid[1] * k.config.grid[2];
    for (int64_t b : {int64_t{0}, blocks / 2, blocks - 1}) {
      std::vector<std::vector<int64_t>> sampled(g.ops.size());
      sampled[static_cast<size_t>(&k - g.ops.data())] = {b};
      EvalResult part = evaluateProgram(g, t, nullptr, nullptr, nullptr, nullptr, nullptr, &sampled);
      if (part.status != EvalStatus::Ok) continue;
      const FTensor& f = *full.outputs[o];
      const FTensor& p = *part.outputs[o];
      int64_t written = 0;
      for (int64_t i = 0; i < f.size(); ++i) {
        u64 x = p.p[static_cast<size_t>(i)];
        if (x == 0) continue;
        ++written;
        if (x != f.p[static_cast<size_t>(i)]) {
          std::cout << "FAIL " << what << ": output " << o << " at " << i << " from block " << b
                    << " alone disagrees with the whole kernel\n";
          ++bad;
          break;
        }
      }
      if (written == 0 && f.size() > 0) {
        std::cout << "FAIL " << what << ": block " << b << " of output " << o << "'s kernel wrote nothing\n";
        ++bad;
      }
    }
  }
  return bad;
}

// Blocks that share values (kernel_eval.h, setBlockValueSharing) must give
// exactly the evaluation in which every block computes every value: every
// lane of every output element. Returns the mismatching outputs.
int sharingMismatches(const mirage::ir::Graph& g, uint64_t seed, const std::string& what) {
  Trial t(seed, 0, 0);
  ThreadPool pool(2);
  setBlockValueSharing(false);
  EvalResult alone = evaluateProgram(g, t, &pool);
  setBlockValueSharing(true);
  EvalResult shared = evaluateProgram(g, t, &pool);
  if (alone.status != shared.status) {
    std::cout << "FAIL " << what << ": sharing block values changes the evaluation's status\n";
    return 1;
  }
  int bad = 0;
  for (size_t o = 0; alone.status == EvalStatus::Ok && o < alone.outputs.size(); ++o) {
    const FTensor& a = *alone.outputs[o];
    const FTensor& b = *shared.outputs[o];
    if (a.p != b.p || a.q != b.q || a.mx != b.mx) {
      std::cout << "FAIL " << what << ": output " << o << " differs when blocks share values\n";
      ++bad;
    }
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: equiv_suite DIR [SEED...]\n";
    return 2;
  }
  fs::path dir = argv[1];
  std::vector<uint64_t> seeds;
  for (int i = 2; i < argc; ++i) seeds.push_back(std::stoull(argv[i]));
  if (seeds.empty()) seeds.push_back(0);

  std::vector<fs::path> refs;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.size() > 5 && n.ends_with(".a.mg")) refs.push_back(e.path());
  }
  std::sort(refs.begin(), refs.end());

  int failures = 0, wrongEquivalent = 0;
  int expectEquivalent = 0, provenEquivalent = 0, traps = 0, rejected = 0, unprovable = 0, errors = 0;
  int precheckRejected = 0, trapPairs = 0, notProvenExpected = 0, notProvenGot = 0;
  for (const fs::path& a : refs) {
    std::string stem = a.filename().string();
    stem = stem.substr(0, stem.size() - 5);
    fs::path b = dir / (stem + ".b.mg");
    std::ifstream in(a);
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect: ";
    if (first.rfind(tag, 0) != 0) {
      std::cerr << a << ": first line must be '# expect: ...'\n";
      ++failures;
      continue;
    }
    std::string expect = first.substr(tag.size());
    trapPairs += expect == "not-equivalent";
    std::ostringstream diag;
    auto ga = mirage::parse::parseFile(a.string(), diag);
    auto gb = mirage::parse::parseFile(b.string(), diag);
    if (!ga || !gb) {
      std::cerr << stem << ": does not parse:\n" << diag.str();
      ++failures;
      continue;
    }
    failures += lazyMismatches(*ga, seeds[0], stem + ".a");
    failures += lazyMismatches(*gb, seeds[0], stem + ".b");
    failures += sampledMismatches(*ga, seeds[0], stem + ".a");
    failures += sampledMismatches(*gb, seeds[0], stem + ".b");
    failures += sharingMismatches(*ga, seeds[0], stem + ".a");
    failures += sharingMismatches(*gb, seeds[0], stem + ".b");
    if (expect != "error") {
      Verifier pre(*ga);
      bool passes = pre.precheck(*gb);
      if (expect == "equivalent" && !passes) {
        std::cout << "FAIL " << stem << ": the pre-check rejects a true equivalence\n";
        ++failures;
      }
      if (expect == "not-equivalent") precheckRejected += !passes;
      // The search's call: the same verdict as check(), and screened out
      // only where precheck() rejects (or trial 0, run once for both, does;
      // the verdict is then the pre-check's, which may not say "not proven").
      Verifier both(*ga);
      bool screenedOut = false;
      Verdict sc = both.screenAndCheck(*gb, {}, &screenedOut);
      Verdict plain = Verifier(*ga).check(*gb);
      if (sc.equivalent != plain.equivalent || (!screenedOut && sc.notProven != plain.notProven) ||
          (screenedOut && sc.equivalent) ||
          (!passes && !screenedOut)) {
        std::cout << "FAIL " << stem << ": screenAndCheck (equivalent " << sc.equivalent << ", screened out "
                  << screenedOut << ") disagrees with precheck (" << passes << ") and check (" << plain.equivalent
                  << ")\n";
        ++failures;
      }
    }
    for (uint64_t seed : seeds) {
      mirage::verify::Options options;
      options.seed = seed;
      options.symmetric = true;
      mirage::verify::Verdict v = mirage::verify::checkEquivalent(*ga, *gb, options);
      // The search's path: a verifier with its fingerprint cache, which has
      // just evaluated the reference (and its subgraphs), must agree.
      {
        Verifier cached(*ga, options);
        cached.check(*ga);
        Verdict c = cached.check(*gb);
        if (c.equivalent != v.equivalent || c.signatureMismatch != v.signatureMismatch) {
          std::cout << "FAIL " << stem << " seed " << seed << ": the cached verifier disagrees\n";
          ++failures;
        }
      }
      std::string got = v.signatureMismatch ? "error"
                        : v.equivalent      ? "equivalent"
                        : v.notProven       ? "not-proven"
                                            : "not-equivalent";
      bool ok = got == expect || (expect == "unprovable" && (got == "not-equivalent" || got == "not-proven"));
      if (expect == "equivalent") {
        ++expectEquivalent;
        provenEquivalent += v.equivalent;
      } else if (expect == "not-equivalent") {
        ++traps;
        rejected += !v.equivalent;
        if (v.equivalent) ++wrongEquivalent;
      } else if (expect == "unprovable") {
        ++unprovable;
      } else if (expect == "error") {
        ++errors;
      } else if (expect == "not-proven") {
        ++notProvenExpected;
        notProvenGot += got == "not-proven";
        if (v.equivalent) ++wrongEquivalent;
      }
      if (v.equivalent && expect != "equivalent") ok = false;
      std::cout << (ok ? "ok   " : "FAIL ") << stem << " seed " << seed << ": " << got;
      if (!v.equivalent && !v.message.empty()) std::cout << " (" << v.message << ")";
      if (v.equivalent) std::cout << " (bound " << v.errorBound << ", " << v.trials << " trials)";
      std::cout << "\n";
      if (!ok) ++failures;
    }
  }
  std::cout << "\n" << refs.size() << " pairs x " << seeds.size() << " seeds: "
            << provenEquivalent << "/" << expectEquivalent << " true equivalences proven, " << rejected
            << "/" << traps << " traps rejected, " << wrongEquivalent << " wrong 'equivalent', "
            << unprovable << " documented unprovable, " << notProvenGot << "/" << notProvenExpected
            << " not proven (definedness, bound), " << errors << " signature errors; the pre-check alone rejects "
            << precheckRejected << "/" << trapPairs << " traps\n";
  if (refs.size() < 60) {
    std::cerr << "the suite must hold at least 60 pairs\n";
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
