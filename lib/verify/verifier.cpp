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
#include "kernel_eval.h"
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
// Element evaluations the pre-check may spend (about 0.1 s; GQA's samples
// take 2.2 million, mostly input elements) before it falls back to
// evaluating trial 0 whole (lazy_eval.cpp also caps the memoized elements).
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

// The output elements the pre-check compares, per output (flat indices): a
// random element, its neighbour along the last dim (which shares most of
// its dependencies: the same matmul row, the same kernel block), and a
// second random element.
std::vector<std::vector<int64_t>> sampledElements(const Trial& trial, const std::vector<FTensorPtr>& outputs) {
  std::vector<std::vector<int64_t>> out(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    int64_t n = outputs[o]->size();
    int64_t first = static_cast<int64_t>(keyedHash(trial.id() ^ o, 0) % static_cast<u64>(n));
    int64_t second = static_cast<int64_t>(keyedHash(trial.id() ^ o, 1) % static_cast<u64>(n));
    for (int s = 0; s < kPrecheckSamples && s < n; ++s) out[o].push_back(s == 2 ? second : (first + s) % n);
  }
  return out;
}

// Where every output is saved by a kernel that reads program inputs only
// (the search's one-kernel candidates), the sampled elements come from the
// few blocks that write them: per op of the candidate, those blocks
// (evaluateProgram's sampledBlocks), at most three per output. Empty when
// this does not apply: an output made otherwise, a kernel reading an
// earlier result (its cone is what the lazy evaluator finds).
std::vector<std::vector<int64_t>> blocksWriting(const ir::Graph& cand,
                                                const std::vector<std::vector<int64_t>>& samples) {
  std::vector<std::vector<int64_t>> blocks(cand.ops.size());
  for (size_t o = 0; o < cand.outputs.size(); ++o) {
    const ir::ValueId v = cand.outputs[o];
    const ir::Op& k = cand.producer(v);
    if (k.kind != ir::OpKind::Kernel) return {};
    for (ir::ValueId in : k.inputs)
      if (cand.producer(in).kind != ir::OpKind::Input) return {};
    const int result = static_cast<int>(std::find(k.results.begin(), k.results.end(), v) - k.results.begin());
    const ir::Op* save = nullptr;
    for (const ir::Op& op : k.body->ops)
      if (op.kind == ir::OpKind::Save && op.resultIndex == result) save = &op;
    if (!save) return {};
    const ir::Shape& chunk = k.body->value(save->inputs[0]).shape;
    const auto& grid = k.config.grid;
    std::vector<int64_t>& list = blocks[static_cast<size_t>(&k - cand.ops.data())];
    for (int64_t flat : samples[o]) {
      std::vector<int64_t> idx = unflatten(flat, cand.value(v).shape);
      int64_t b = linearBlock(grid, blockWriting(*save, chunk, grid, idx.data()).data());
      if (std::find(list.begin(), list.end(), b) == list.end()) list.push_back(b);
    }
  }
  return blocks;
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
  std::map<std::pair<int, int>, EvalResult> refOutputs;  // (trial, attempt)

  // A copy (the tensors are shared): a cancelled evaluation is returned but
  // never stored, so a later check evaluates the reference again. The
  // reference's domain sites are recorded whenever it has some: watching
  // costs a copy of the watched values, evaluating the reference again all
  // of it, so one evaluation serves the pre-check (which ignores them) and
  // the full check alike.
  EvalResult reference(int trial, int attempt, const Cancel& cancel) {
    std::lock_guard<std::mutex> lock(refMu);
    auto key = std::make_pair(trial, attempt);
    auto it = refOutputs.find(key);
    if (it != refOutputs.end()) return it->second;
    Trial t(options.seed, static_cast<u64>(trial), static_cast<u64>(attempt));
    EvalResult r = evaluateProgram(ref, t, pool.get(), cache.get(), &cancel,
                                   refWatchList.empty() ? nullptr : &refWatchList, inputs.get());
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
      EvalResult r = reference(trial, attempt, cancel);
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

  // The pre-check's sample of trial 0 (sampledElements): Pass when it
  // agrees with the reference or cannot decide (a zero divisor, a cancel:
  // check() reports those), Fail at a difference, Whole when the elements
  // depend on so much of the program that trial 0 is cheaper evaluated
  // whole. Output kernels that read only program inputs run just the blocks
  // that write the sample (blocksWriting); anything else is evaluated
  // demand-driven, element by element, within kPrecheckBudget.
  enum class Screen { Pass, Fail, Whole };
  Screen screen(const ir::Graph& cand, const Cancel& cancel) {
    int attempt = 0;
    EvalResult r;
    for (; attempt < kMaxAttempts; ++attempt) {
      r = reference(0, attempt, cancel);
      if (r.status == EvalStatus::Cancelled) return Screen::Pass;
      if (r.status == EvalStatus::Ok) break;
    }
    if (attempt == kMaxAttempts) return Screen::Fail;  // the full check cannot succeed either
    for (size_t o = 0; o < r.outputs.size(); ++o)
      if (cand.value(cand.outputs[o]).shape != r.outputs[o]->shape) return Screen::Fail;
    Trial trial(options.seed, 0, static_cast<u64>(attempt));
    const std::vector<std::vector<int64_t>> samples = sampledElements(trial, r.outputs);
    const std::vector<std::vector<int64_t>> blocks = blocksWriting(cand, samples);
    if (!blocks.empty()) {
      EvalResult c = evaluateProgram(cand, trial, pool.get(), cache.get(), &cancel, nullptr, inputs.get(), &blocks);
      if (c.status != EvalStatus::Ok) return Screen::Pass;
      for (size_t o = 0; o < samples.size(); ++o)
        for (int64_t flat : samples[o])
          if (c.outputs[o]->p[static_cast<size_t>(flat)] != r.outputs[o]->p[static_cast<size_t>(flat)])
            return Screen::Fail;
      return Screen::Pass;
    }
    LazyEvaluator lazy(cand, trial, kPrecheckBudget);
    for (size_t o = 0; o < samples.size(); ++o)
      for (int64_t flat : samples[o]) {
        Elem e;
        LazyEvaluator::Status st = lazy.output(o, flat, e);
        if (st == LazyEvaluator::Status::ZeroDivisor) return Screen::Pass;
        if (st == LazyEvaluator::Status::OverBudget) return Screen::Whole;
        if (e.p != r.outputs[o]->p[static_cast<size_t>(flat)]) return Screen::Fail;
      }
    return Screen::Pass;
  }

  // Every trial of the full check (the signature already checked). With
  // `screenedOut`, trial 0 also stands for the pre-check: a difference
  // there (not a cancel, not an unshown domain condition, which the
  // pre-check never looked at) sets it.
  Verdict checkTrials(const ir::Graph& candidate, const Cancel& cancel, bool* screenedOut) {
    Verdict v;
    BoundStats cand = boundStats(candidate);
    DomainCheck domain = domainCheck(candidate);
    int trials = options.trials > 0 ? options.trials : defaultTrials(refStats, cand, domain.matchPairs);
    for (int t = 0; t < trials; ++t) {
      v.trials = t + 1;
      if (!runTrial(candidate, t, v, cancel, &domain)) {
        if (t == 0 && screenedOut) *screenedOut = !v.cancelled && !v.undefined;
        return v;
      }
    }
    v.errorBound = errorBound(refStats, cand, trials, domain.matchPairs);
    // Never "equivalent" with a bound that says little (cli.md).
    if (!(v.errorBound <= kMaxErrorBound)) {
      v.notProven = true;
      int needed = trialsNeeded(refStats, cand, domain.matchPairs);
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
  switch (impl_->screen(candidate, cancel)) {
    case Impl::Screen::Pass: return true;
    case Impl::Screen::Fail: return false;
    case Impl::Screen::Whole: break;
  }
  // The sampled elements depend on most of the program: evaluate trial 0
  // whole instead (check() reuses what it can through the cache).
  Verdict trialVerdict;
  return impl_->runTrial(candidate, 0, trialVerdict, cancel) || trialVerdict.cancelled;
}

Verdict Verifier::screenAndCheck(const ir::Graph& candidate, const Cancel& cancel, bool* screenedOut) const {
  *screenedOut = false;
  Verdict v;
  if (!impl_->signatureOk(candidate, v)) {
    *screenedOut = true;
    return v;
  }
  switch (impl_->screen(candidate, cancel)) {
    case Impl::Screen::Pass: return impl_->checkTrials(candidate, cancel, nullptr);
    case Impl::Screen::Fail:
      *screenedOut = true;
      v.equivalent = false;
      v.message = "the pre-check found a sampled output element that differs";
      return v;
    case Impl::Screen::Whole: break;
  }
  // Trial 0 evaluated whole is both the pre-check and the full check's
  // first trial: it is run once.
  return impl_->checkTrials(candidate, cancel, screenedOut);
}

void Verifier::prepare(const Cancel& cancel) const {
  // The trials a candidate whose statistics are the reference's needs.
  const int trials = impl_->options.trials > 0 ? impl_->options.trials : defaultTrials(impl_->refStats, impl_->refStats);
  for (int t = 0; t < trials; ++t)
    if (impl_->reference(t, 0, cancel).status == EvalStatus::Cancelled) return;
}

Verdict Verifier::check(const ir::Graph& candidate, const Cancel& cancel) const {
  Verdict v;
  if (!impl_->signatureOk(candidate, v)) return v;
  return impl_->checkTrials(candidate, cancel, nullptr);
}

Verdict checkEquivalent(const ir::Graph& a, const ir::Graph& b, Options options) {
  // A one-shot check shares nothing with later checks: no cache (but the
  // two programs read the same inputs, drawn once: Options::inputBytes).
  options.cacheBytes = 0;
  Verifier v(a, options);
  return v.check(b);
}

}  // namespace mirage::verify
