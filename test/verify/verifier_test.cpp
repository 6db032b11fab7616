// The verifier API: verdicts, bounds, trials, signatures, pre-check, seeds,
// concurrent use, the fingerprint cache and structural hashes.
#include <catch2/catch.hpp>

#include <thread>

#include "builders.h"
#include "lazy_eval.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/report.h"
#include "mirage/verify/verifier.h"

using namespace mirage;
using namespace mirage::verify;
using namespace mirage::verify::test;
using ir::OpKind;

namespace {

// (A B) C or A (B C) or B A C (a trap), on square 8x8 inputs.
ir::Graph chain(int variant, const char* thirdName = "C") {
  ir::Graph g;
  g.name = "chain";
  ir::ValueId a = input(g, "A", {8, 8}), b = input(g, "B", {8, 8}), c = input(g, thirdName, {8, 8});
  ir::ValueId o;
  if (variant == 0) o = op(g, OpKind::Matmul, {op(g, OpKind::Matmul, {a, b}), c});
  else if (variant == 1) o = op(g, OpKind::Matmul, {a, op(g, OpKind::Matmul, {b, c})});
  else o = op(g, OpKind::Matmul, {op(g, OpKind::Matmul, {b, a}), c});
  g.values[static_cast<size_t>(o)].name = "O";
  g.outputs = {o};
  return g;
}

}  // namespace

TEST_CASE("an equivalent candidate is proven with a bound below 1e-9", "[verifier]") {
  Verifier v(chain(0));
  Verdict r = v.check(chain(1));
  CHECK(r.equivalent);
  CHECK(r.trials >= 2);
  CHECK(r.errorBound < 1e-9);
  CHECK(v.precheck(chain(1)));
  CHECK(formatVerdict(r, v.options()).rfind("equivalent\nerror bound: ", 0) == 0);
  CHECK(exitStatus(r) == 0);
}

TEST_CASE("a wrong candidate is rejected with the output and an index", "[verifier]") {
  Verifier v(chain(0));
  CHECK_FALSE(v.precheck(chain(2)));
  Verdict r = v.check(chain(2));
  CHECK_FALSE(r.equivalent);
  CHECK_FALSE(r.signatureMismatch);
  CHECK(r.output == "O");
  CHECK(r.index.size() == 2);
  CHECK(formatVerdict(r, v.options()).rfind("not equivalent: O differs at [", 0) == 0);
  CHECK(exitStatus(r) == 1);
}

TEST_CASE("inputs are matched by name: a renamed input is a signature mismatch", "[verifier]") {
  Verdict r = checkEquivalent(chain(0), chain(0, "D"));
  CHECK(r.signatureMismatch);
  CHECK_FALSE(r.equivalent);
  CHECK(exitStatus(r) == 2);
  CHECK(r.message.find("'C'") != std::string::npos);
}

TEST_CASE("verdicts do not depend on the seed; --trials is honoured", "[verifier]") {
  for (uint64_t seed = 0; seed < 6; ++seed) {
    Options o;
    o.seed = seed;
    CHECK(checkEquivalent(chain(0), chain(1), o).equivalent);
    CHECK_FALSE(checkEquivalent(chain(0), chain(2), o).equivalent);
  }
  Options o;
  o.trials = 5;
  Verdict r = checkEquivalent(chain(0), chain(1), o);
  CHECK(r.trials == 5);
  Options one;
  one.trials = 1;
  CHECK(checkEquivalent(chain(0), chain(1), one).errorBound >
        checkEquivalent(chain(0), chain(1), o).errorBound);
}

TEST_CASE("a division by an identically zero expression is never equivalent", "[verifier]") {
  ir::Graph g;
  ir::ValueId x = input(g, "X", {4, 4});
  g.outputs = {op(g, OpKind::Div, {x, op(g, OpKind::Sub, {x, x})})};
  Verdict r = checkEquivalent(g, g);
  CHECK_FALSE(r.equivalent);
  CHECK(r.message.find("zero") != std::string::npos);
}

TEST_CASE("check and precheck may be called from several threads at once", "[verifier]") {
  Options o;
  o.threads = 2;
  Verifier v(chain(0), o);
  std::vector<int> results(8, -1);
  // The candidates are built here, not in the threads: the builders use
  // Catch's INFO and REQUIRE, which are not thread-safe (building them in
  // the threads corrupted the heap about once in 40 runs).
  std::vector<ir::Graph> cands;
  for (int i = 0; i < 8; ++i) cands.push_back(chain(i % 2 == 0 ? 1 : 2));
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      const ir::Graph& cand = cands[static_cast<size_t>(i)];
      bool pre = v.precheck(cand);
      results[static_cast<size_t>(i)] = v.check(cand).equivalent && pre;
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) CHECK(results[static_cast<size_t>(i)] == (i % 2 == 0 ? 1 : 0));
}

TEST_CASE("structural hashes identify equal subgraphs; the cache reuses them", "[verifier]") {
  ir::Graph a = chain(0), b = chain(0), c = chain(2);
  auto ha = structuralHashes(a), hb = structuralHashes(b), hc = structuralHashes(c);
  CHECK(ha == hb);
  CHECK(ha[static_cast<size_t>(a.outputs[0])] != hc[static_cast<size_t>(c.outputs[0])]);
  // Inputs are shared by name and shape.
  CHECK(ha[static_cast<size_t>(a.inputs[0])] == hc[static_cast<size_t>(c.inputs[0])]);

  FingerprintCache cache(size_t{1} << 24);
  Trial t(1, 0, 0);
  EvalResult first = evaluateProgram(a, t, nullptr, &cache);
  int64_t hitsBefore = cache.hits();
  EvalResult again = evaluateProgram(b, t, nullptr, &cache);
  CHECK(cache.hits() > hitsBefore);
  CHECK(first.outputs[0]->p == again.outputs[0]->p);
  // Another trial never sees this trial's fingerprints.
  Trial u(1, 1, 0);
  EvalResult other = evaluateProgram(b, u, nullptr, &cache);
  CHECK(other.outputs[0]->p != first.outputs[0]->p);
  // A cache too small for a tensor simply does not keep it.
  FingerprintCache tiny(16);
  evaluateProgram(a, t, nullptr, &tiny);
  CHECK(tiny.bytes() == 0);
}

TEST_CASE("single-element evaluation agrees with whole tensors and respects its budget", "[verifier]") {
  ir::Graph g = chain(0);
  Trial t(11, 0, 0);
  EvalResult full = evaluateProgram(g, t, nullptr);
  REQUIRE(full.status == EvalStatus::Ok);
  LazyEvaluator lazy(g, t);
  for (int64_t i = 0; i < 64; ++i) {
    Elem e;
    REQUIRE(lazy.output(0, i, e) == LazyEvaluator::Status::Ok);
    CHECK(e.p == full.outputs[0]->p[static_cast<size_t>(i)]);
  }
  LazyEvaluator poor(g, t, 10);  // one element of (A B) C needs 8 + 64 evaluations
  Elem e;
  CHECK(poor.output(0, 0, e) == LazyEvaluator::Status::OverBudget);
}

TEST_CASE("an illegal candidate is rejected, not evaluated", "[verifier]") {
  ir::Graph bad = chain(0);
  // Corrupt the recorded shape of the output, as a buggy producer might.
  bad.values[static_cast<size_t>(bad.outputs[0])].shape = {8, 9};
  Verifier v(chain(0));
  CHECK_FALSE(v.precheck(bad));
  Verdict r = v.check(bad);
  CHECK_FALSE(r.equivalent);
  CHECK(r.message.find("not a legal program") != std::string::npos);
}

namespace {

// A long chain of n x n matmuls, X_{i+1} = X_i W_i, whose full check takes
// long enough to be cancelled in the middle; `swapLast` multiplies the last
// weight from the left instead (a different program).
ir::Graph longChain(int64_t n, int length, bool swapLast = false) {
  ir::Graph g;
  g.name = "long_chain";
  ir::ValueId x = input(g, "X", {n, n});
  for (int i = 0; i < length; ++i) {
    ir::ValueId w = input(g, "W" + std::to_string(i), {n, n});
    x = swapLast && i == length - 1 ? op(g, OpKind::Matmul, {w, x}) : op(g, OpKind::Matmul, {x, w});
  }
  g.values[static_cast<size_t>(x)].name = "O";
  g.outputs = {x};
  return g;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("a cancelled check returns promptly, inconclusive, and does not spoil later checks", "[verifier]") {
  ir::Graph ref = longChain(192, 24);
  Verifier v(ref);
  std::atomic<bool> stop{false};
  Cancel cancel;
  cancel.flag = &stop;
  auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  Verdict r = v.check(longChain(192, 24), cancel);
  double took = secondsSince(start);
  canceller.join();
  INFO("cancelled check took " << took << " s");
  CHECK(took < 1.0);
  CHECK_FALSE(r.equivalent);
  CHECK(r.cancelled);
  CHECK(exitStatus(r) != 0);

  // The same verifier, uncancelled: the right verdicts, nothing stale from
  // the cancelled evaluation.
  Verdict same = v.check(longChain(192, 24));
  CHECK(same.equivalent);
  CHECK_FALSE(same.cancelled);
  Verdict different = v.check(longChain(192, 24, true));
  CHECK_FALSE(different.equivalent);
  CHECK_FALSE(different.cancelled);
  CHECK(different.output == "O");
}

TEST_CASE("a check whose deadline has passed is cancelled, and a cancelled pre-check is inconclusive", "[verifier]") {
  Verifier v(chain(0));
  Cancel past;
  past.deadline = std::chrono::steady_clock::now();
  CHECK(v.precheck(chain(2), past));  // inconclusive, not a rejection
  Verdict r = v.check(chain(1), past);
  CHECK_FALSE(r.equivalent);
  CHECK(r.cancelled);
  CHECK(v.check(chain(1)).equivalent);
  CHECK_FALSE(v.precheck(chain(2)));
}

TEST_CASE("program inputs are drawn once per trial and shared by every program evaluated with the store",
          "[verifier]") {
  // The search's case: the reference and every candidate read the same
  // inputs; with an input store, the second program draws none of its own.
  ir::Graph a = chain(0), b = chain(1), trap = chain(2);
  FingerprintCache none(0), inputs(size_t{1} << 24);
  Trial t(3, 0, 0);
  EvalResult plainA = evaluateProgram(a, t, nullptr);
  EvalResult plainTrap = evaluateProgram(trap, t, nullptr);
  EvalResult first = evaluateProgram(a, t, nullptr, &none, nullptr, nullptr, &inputs);
  int64_t drawn = inputs.misses();  // A, B, C drawn once (looked up with and without the residue lane)
  CHECK(inputs.hits() == 0);
  EvalResult second = evaluateProgram(b, t, nullptr, &none, nullptr, nullptr, &inputs);
  EvalResult third = evaluateProgram(trap, t, nullptr, &none, nullptr, nullptr, &inputs);
  CHECK(inputs.misses() == drawn);
  CHECK(inputs.hits() == 6);
  // The same numbers as drawing them afresh: verdicts cannot change.
  CHECK(first.outputs[0]->p == plainA.outputs[0]->p);
  CHECK(second.outputs[0]->p == plainA.outputs[0]->p);  // (A B) C = A (B C)
  CHECK(third.outputs[0]->p == plainTrap.outputs[0]->p);
  CHECK(third.outputs[0]->p != plainA.outputs[0]->p);  // the trap still differs
  // Another trial draws its own inputs.
  Trial u(3, 1, 0);
  evaluateProgram(a, u, nullptr, &none, nullptr, nullptr, &inputs);
  CHECK(inputs.misses() == 2 * drawn);
  CHECK(inputs.hits() == 6);

  // An input drawn with its residue lane (an exp reads it) also serves a
  // program that needs none; the reverse draws it again, with the lane.
  ir::Graph withExp;
  withExp.name = "e";
  ir::ValueId x = input(withExp, "X", {4, 4});
  withExp.outputs = {op(withExp, OpKind::Exp, {x})};
  ir::Graph plain;
  plain.name = "p";
  ir::ValueId y = input(plain, "X", {4, 4});
  plain.outputs = {op(plain, OpKind::Mul, {y, y})};
  FingerprintCache store(size_t{1} << 20);
  evaluateProgram(withExp, t, nullptr, &none, nullptr, nullptr, &store);
  int64_t misses = store.misses();
  EvalResult p = evaluateProgram(plain, t, nullptr, &none, nullptr, nullptr, &store);
  CHECK(store.misses() == misses + 1);  // looked up without the lane first, then found with it
  CHECK(store.hits() == 1);
  CHECK(p.outputs[0]->p == evaluateProgram(plain, t, nullptr).outputs[0]->p);
}

TEST_CASE("a verifier gives the same verdicts with and without the input store", "[verifier]") {
  for (size_t inputBytes : {size_t{0}, size_t{1} << 24}) {
    Options o;
    o.threads = 2;
    o.inputBytes = inputBytes;
    Verifier v(chain(0), o);
    CHECK(v.check(chain(1)).equivalent);
    CHECK(!v.check(chain(2)).equivalent);
    CHECK(v.check(chain(1)).equivalent);
    CHECK(!v.check(chain(0, "D")).equivalent);  // another input name: a signature mismatch
  }
}
