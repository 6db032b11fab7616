// The verifier API (verifier.h): signature check, trials with resampling on
// zero divisors, comparison of every output element, and the error bound.
#include "mirage/verify/verifier.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "bound.h"
#include "domain.h"
#include "mirage/ir/check.h"
#include "hash.h"
#include "lazy_eval.h"
#include "nested_exp.h"
#include "real_witness.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"

namespace mirage::verify {
namespace {

// A trial whose inputs make some divisor vanish is redrawn (a new attempt)
// this many times before the check gives up and reports "not equivalent".
constexpr int kMaxAttempts = 8;
// Output elements per output that the pre-check computes.
constexpr int kPrecheckSamples = 3;
// Element evaluations the pre-check may spend (about 0.1 s) before it falls
// back to evaluating trial 0 whole.
constexpr int64_t kPrecheckBudget = int64_t{4} << 20;

std::string signatureProblem(const ir::Graph& ref, const ir::Graph& cand) {
  if (ref.dtype != cand.dtype)
    return fmt::format("the programs have different dtypes ({} and {})", ir::dtypeName(ref.dtype),
                       ir::dtypeName(cand.dtype));
  if (ref.outputs.size() != cand.outputs.size())
    return fmt::format("the programs have different numbers of outputs ({} and {})",
                       ref.outputs.size(), cand.outputs.size());
  if (ref.inputs.size() != cand.inputs.size())
    return fmt::format("the programs have different numbers of inputs ({} and {})",
                       ref.inputs.size(), cand.inputs.size());
  for (ir::ValueId in : ref.inputs) {
    const ir::Value& v = ref.value(in);
    ir::ValueId c = cand.findValue(v.name);
    bool isInput = false;
    for (ir::ValueId ci : cand.inputs) isInput = isInput || ci == c;
    if (c == ir::kNoValue || !isInput)
      return fmt::format("input '{}' of the first program is not an input of the second", v.name);
    if (cand.value(c).shape != v.shape)
      return fmt::format("input '{}' has shape {} in the first program and {} in the second",
                         v.name, ir::shapeToString(v.shape), ir::shapeToString(cand.value(c).shape));
  }
  return {};
}

std::vector<int64_t> unflatten(int64_t flat, const ir::Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

std::string outputName(const ir::Graph& g, size_t i) {
  const std::string& n = g.value(g.outputs[i]).name;
  return n.empty() ? fmt::format("output {}", i) : n;
}


// The watch list of a plan (indexed like its sites; unwatched sites have no
// graph) for the given site lists.
std::vector<WatchSite> watchList(const DomainPlan& plan, const std::vector<int>& a,
                                 const std::vector<int>& b = {}) {
  std::vector<WatchSite> w(plan.sites.size());
  for (const std::vector<int>* list : {&a, &b})
    for (int s : *list) w[static_cast<size_t>(s)] = plan.sites[static_cast<size_t>(s)];
  return w;
}

}  // namespace

// What one check needs from the domain analysis (docs/verifier.md,
// "Definedness").
struct DomainCheck {
  DomainPlan cand;
  bool candObligations = false;  // the candidate's conditions need the reference's facts
  bool refObligations = false;   // symmetric: the reference's need the candidate's facts
  bool refWatch() const { return candObligations || refObligations; }
  std::vector<WatchSite> candWatch;
  double matchPairs = 0;  // fingerprint comparisons against facts, for the bound
};

struct Verifier::Impl {
  ir::Graph ref;
  Options options;
  BoundStats refStats;
  DomainPlan refPlan;
  std::vector<char> refNested;  // per output: after an exp of a value without residue (nested_exp.h)
  std::vector<WatchSite> refWatchList;  // the reference's fact (and, symmetric, obligation) sites
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<FingerprintCache> cache;
  std::unique_ptr<FingerprintCache> inputs;  // the inputs' fingerprints, per trial (Options::inputBytes)
  std::mutex refMu;  // guards refOutputs (and serializes reference evaluations)
  std::map<std::tuple<int, int, bool>, EvalResult> refOutputs;  // (trial, attempt, watched)

  // A copy (the tensors are shared): a cancelled evaluation is returned but
  // never stored, so a later check evaluates the reference again. With
  // `watched`, the reference's domain sites are recorded too.
  EvalResult reference(int trial, int attempt, const Cancel& cancel, bool watched = false) {
    std::lock_guard<std::mutex> lock(refMu);
    auto key = std::make_tuple(trial, attempt, watched);
    auto it = refOutputs.find(key);
    if (it != refOutputs.end()) return it->second;
    Trial t(options.seed, static_cast<u64>(trial), static_cast<u64>(attempt));
    EvalResult r = evaluateProgram(ref, t, pool.get(), cache.get(), &cancel, watched ? &refWatchList : nullptr,
                                   inputs.get());
    if (r.status != EvalStatus::Cancelled) refOutputs.emplace(key, r);
    return r;
  }

  DomainCheck domainCheck(const ir::Graph& cand) const {
    DomainCheck d;
    d.cand = domainPlan(cand);
    d.candObligations = d.cand.needsFacts();
    d.refObligations = options.symmetric && refPlan.needsFacts();
    d.candWatch = watchList(d.cand, d.candObligations ? d.cand.obligationSites() : std::vector<int>{},
                            d.refObligations ? d.cand.factSites() : std::vector<int>{});
    if (d.candObligations) d.matchPairs += d.cand.obligationInstances() * refPlan.factInstances();
    if (d.refObligations) d.matchPairs += refPlan.obligationInstances() * d.cand.factInstances();
    return d;
  }

  // "" when the domain conditions hold in this trial, else the reason.
  std::string domainProblem(const DomainCheck& d, const EvalResult& r, const EvalResult& c,
                            const MontField& P) const {
    if (d.candObligations) {
      std::string why = unmetCondition(d.cand, c.watched, collectFacts(refPlan, r.watched, P));
      if (!why.empty())
        return fmt::format("the second program's {}, which is not shown wherever the first program is defined",
                           why);
    }
    if (d.refObligations) {
      std::string why = unmetCondition(refPlan, r.watched, collectFacts(d.cand, c.watched, P));
      if (!why.empty())
        return fmt::format("the first program's {}, which is not shown wherever the second program is defined",
                           why);
    }
    return {};
  }

  static void markCancelled(Verdict& v) {
    v.equivalent = false;
    v.cancelled = true;
    v.message = "the check was cancelled before it finished (inconclusive)";
  }

  // Runs one trial (with resampling). Returns true when it ran to a
  // comparison; fills `v` when the outputs differ or no attempt succeeded.
  // A cancelled trial returns false with v marked cancelled.
  bool runTrial(const ir::Graph& cand, int trial, Verdict& v, const Cancel& cancel,
                const DomainCheck* domain = nullptr) {
    bool watch = domain && domain->refWatch();
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      EvalResult r = reference(trial, attempt, cancel, watch);
      if (r.status == EvalStatus::Cancelled) {
        markCancelled(v);
        return false;
      }
      if (r.status != EvalStatus::Ok) continue;
      Trial t(options.seed, static_cast<u64>(trial), static_cast<u64>(attempt));
      EvalResult c = evaluateProgram(cand, t, pool.get(), cache.get(), &cancel,
                                     watch ? &domain->candWatch : nullptr, inputs.get());
      if (c.status == EvalStatus::Cancelled) {
        markCancelled(v);
        return false;
      }
      if (c.status != EvalStatus::Ok) continue;
      // A difference at an output after an exp of a value without residue
      // refutes nothing by itself (nested_exp.h): it is kept aside while the
      // other outputs are compared, and then needs a witness on real inputs.
      std::vector<char> candNested = outputsAfterUninterpretedExp(cand);
      int nestedDiff = -1;
      int64_t nestedAt = 0;
      for (size_t o = 0; o < r.outputs.size(); ++o) {
        const FTensor& a = *r.outputs[o];
        const FTensor& b = *c.outputs[o];
        if (a.shape != b.shape) {
          v.equivalent = false;
          v.output = outputName(ref, o);
          v.message = fmt::format("output '{}' has shape {} in the first program and {} in the second",
                                  v.output, ir::shapeToString(a.shape), ir::shapeToString(b.shape));
          return false;
        }
        bool nested = refNested[o] || (o < candNested.size() && candNested[o]);
        for (int64_t i = 0; i < a.size(); ++i) {
          if (a.p[static_cast<size_t>(i)] != b.p[static_cast<size_t>(i)]) {
            if (nested) {
              if (nestedDiff < 0) nestedDiff = static_cast<int>(o), nestedAt = i;
              break;
            }
            v.equivalent = false;
            v.output = outputName(ref, o);
            v.index = unflatten(i, a.shape);
            v.message = fmt::format("{} differs at [{}]", v.output, fmt::join(v.index, ", "));
            return false;
          }
        }
      }
      if (nestedDiff >= 0) {
        size_t o = static_cast<size_t>(nestedDiff);
        std::string name = outputName(ref, o);
        std::string why;
        v.equivalent = false;
        if (differsOverReals(ref, cand, o, &why)) {
          v.output = name;
          v.index = unflatten(nestedAt, r.outputs[o]->shape);
          v.message = fmt::format("{} differs at [{}]", name, fmt::join(v.index, ", "));
          v.realWitness = why;
        } else {
          v.notProven = true;
          v.message = fmt::format(
              "{} depends on an exp of a value computed from another exp, which the fields evaluate as an "
              "uninterpreted function: its fingerprints differ, which does not show that the programs differ ({})",
              name, why);
        }
        return false;
      }
      if (watch) {
        std::string problem = domainProblem(*domain, r, c, t.P());
        if (!problem.empty()) {
          v.equivalent = false;
          v.notProven = v.undefined = true;
          v.message = problem;
          return false;
        }
      }
      return true;
    }
    v.equivalent = false;
    v.notProven = true;
    v.message = fmt::format(
        "a divisor is zero in the field on all {} samples of trial {}; the programs divide by an "
        "expression that may be identically zero, and equivalence cannot be shown",
        kMaxAttempts, trial);
    return false;
  }

  std::string referenceProblem;  // set when the reference is not a legal program

  bool signatureOk(const ir::Graph& cand, Verdict& v) const {
    // Graphs from the search did not pass through the parser: an illegal one
    // is rejected here rather than evaluated out of bounds.
    std::string illegal = referenceProblem.empty() ? ir::checkProgram(cand) : std::string();
    if (!referenceProblem.empty() || !illegal.empty()) {
      v.equivalent = false;
      v.message = referenceProblem.empty() ? "the candidate is not a legal program: " + illegal
                                           : "the reference is not a legal program: " + referenceProblem;
      return false;
    }
    std::string problem = signatureProblem(ref, cand);
    if (problem.empty()) return true;
    v.equivalent = false;
    v.signatureMismatch = true;
    v.message = problem;
    return false;
  }
};

Verifier::Verifier(const ir::Graph& reference, Options options) : impl_(std::make_unique<Impl>()) {
  impl_->ref = reference;
  impl_->options = options;
  impl_->pool = std::make_unique<ThreadPool>(options.threads);
  impl_->options.threads = impl_->pool->threads();
  impl_->cache = std::make_unique<FingerprintCache>(options.cacheBytes);
  if (options.inputBytes > 0) impl_->inputs = std::make_unique<FingerprintCache>(options.inputBytes);
  impl_->referenceProblem = ir::checkProgram(reference);
  if (impl_->referenceProblem.empty()) {
    impl_->refStats = boundStats(reference);
    impl_->refNested = outputsAfterUninterpretedExp(reference);
    impl_->refPlan = domainPlan(impl_->ref);  // sites point into impl_->ref, which stays put
    impl_->refWatchList = watchList(impl_->refPlan, impl_->refPlan.factSites(),
                                    options.symmetric ? impl_->refPlan.obligationSites() : std::vector<int>{});
  }
}

Verifier::~Verifier() = default;

const Options& Verifier::options() const { return impl_->options; }

bool Verifier::referenceNestsExps() const {
  return std::find(impl_->refNested.begin(), impl_->refNested.end(), char{1}) != impl_->refNested.end();
}

bool Verifier::precheck(const ir::Graph& candidate, const Cancel& cancel) const {
  Verdict v;
  if (!impl_->signatureOk(candidate, v)) return false;
  // The reference's trial 0 (its first attempt without a zero divisor).
  int attempt = 0;
  EvalResult ref;
  for (; attempt < kMaxAttempts; ++attempt) {
    ref = impl_->reference(0, attempt, cancel);
    if (ref.status == EvalStatus::Cancelled) return true;  // inconclusive: check() reports it
    if (ref.status == EvalStatus::Ok) break;
  }
  if (attempt == kMaxAttempts) return false;  // the full check cannot succeed either
  Trial trial(impl_->options.seed, 0, static_cast<u64>(attempt));
  // A few output elements of the candidate, each computed from only what it
  // depends on; the first disagreement is a witness.
  LazyEvaluator lazy(candidate, trial, kPrecheckBudget);
  for (size_t o = 0; o < ref.outputs.size(); ++o) {
    const FTensor& r = *ref.outputs[o];
    if (candidate.value(candidate.outputs[o]).shape != r.shape) return false;
    // A random element, its neighbour along the last dim (which shares most
    // of its dependencies: the same matmul row, the same kernel block), and a
    // second random element.
    int64_t n = r.size();
    int64_t first = static_cast<int64_t>(keyedHash(trial.id() ^ o, 0) % static_cast<u64>(n));
    int64_t second = static_cast<int64_t>(keyedHash(trial.id() ^ o, 1) % static_cast<u64>(n));
    for (int s = 0; s < kPrecheckSamples && s < n; ++s) {
      int64_t flat = s == 2 ? second : (first + s) % n;
      Elem e;
      LazyEvaluator::Status st = lazy.output(o, flat, e);
      if (st == LazyEvaluator::Status::ZeroDivisor) return true;  // inconclusive: leave it to check()
      if (st == LazyEvaluator::Status::OverBudget) {
        // The sampled elements depend on most of the program: evaluate
        // trial 0 whole instead (check() reuses it through the cache).
        Verdict trialVerdict;
        return impl_->runTrial(candidate, 0, trialVerdict, cancel) || trialVerdict.cancelled;
      }
      if (e.p != r.p[static_cast<size_t>(flat)]) return false;
    }
  }
  return true;
}

Verdict Verifier::check(const ir::Graph& candidate, const Cancel& cancel) const {
  Verdict v;
  if (!impl_->signatureOk(candidate, v)) return v;
  BoundStats cand = boundStats(candidate);
  DomainCheck domain = impl_->domainCheck(candidate);
  int trials = impl_->options.trials > 0 ? impl_->options.trials
                                         : defaultTrials(impl_->refStats, cand, domain.matchPairs);
  for (int t = 0; t < trials; ++t) {
    v.trials = t + 1;
    if (!impl_->runTrial(candidate, t, v, cancel, &domain)) return v;
  }
  v.errorBound = errorBound(impl_->refStats, cand, trials, domain.matchPairs);
  // Never "equivalent" with a bound that says little (cli.md).
  if (!(v.errorBound <= kMaxErrorBound)) {
    v.notProven = true;
    int needed = trialsNeeded(impl_->refStats, cand, domain.matchPairs);
    v.message = needed > 0
                    ? fmt::format("the error bound after {} trials is {:.3g}, above {:.0e}; {} trials would reach it",
                                  trials, v.errorBound, kMaxErrorBound, needed)
                    : fmt::format("the error bound is {:.3g} after {} trials and stays above {:.0e} with up to {} "
                                  "(the expressions' degrees are too high for fields of 2^60 elements)",
                                  v.errorBound, trials, kMaxErrorBound, kMaxTrials);
    return v;
  }
  v.equivalent = true;
  return v;
}

Verdict checkEquivalent(const ir::Graph& a, const ir::Graph& b, Options options) {
  // A one-shot check shares nothing with later checks: no cache (but the
  // two programs read the same inputs, drawn once: Options::inputBytes).
  options.cacheBytes = 0;
  Verifier v(a, options);
  return v.check(b);
}

}  // namespace mirage::verify
