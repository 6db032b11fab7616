// Regions (search/regions.h), part 2: stitching the regions' μGraphs into
// one program and proving it equivalent to the input, whole or by
// composition.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "mirage/ir/check.h"
#include "mirage/ir/equal.h"
#include "mirage/ir/printer.h"
#include "mirage/search/regions.h"

namespace mirage::search {

ir::Graph stitchRegions(const ir::Graph& program, const std::vector<Region>& regions,
                        const std::vector<const ir::Graph*>& bests, std::string* error) {
  ir::Graph s;
  s.name = program.name;
  s.dtype = program.dtype;
  std::vector<ir::ValueId> map(program.values.size(), ir::kNoValue);
  for (ir::ValueId in : program.inputs) {
    if (ir::Error e = ir::addInput(s, program.value(in).name, program.value(in).shape, &map[static_cast<size_t>(in)]);
        !e.empty()) {
      *error = e;
      return {};
    }
  }
  if (bests.size() != regions.size()) {
    *error = "one μGraph per region is needed";
    return {};
  }
  for (size_t k = 0; k < regions.size(); ++k) {
    const Region& R = regions[k];
    const ir::Graph& b = *bests[k];
    if (b.inputs.size() != R.inputs.size() || b.outputs.size() != R.outputs.size()) {
      *error = fmt::format("region {}'s μGraph has {} inputs and {} outputs, the region {} and {}", k, b.inputs.size(),
                           b.outputs.size(), R.inputs.size(), R.outputs.size());
      return {};
    }
    std::vector<ir::ValueId> local(b.values.size(), ir::kNoValue);
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      // A μGraph keeps its program's input names in order: one that does not
      // would be wired to the wrong tensors.
      if (b.value(b.inputs[i]).name != R.program.value(R.program.inputs[i]).name) {
        *error = fmt::format("region {}'s μGraph names its input {} '{}', the region '{}'", k, i,
                             b.value(b.inputs[i]).name, R.program.value(R.program.inputs[i]).name);
        return {};
      }
      ir::ValueId whole = map[static_cast<size_t>(R.inputs[i])];
      if (whole == ir::kNoValue || s.value(whole).shape != b.value(b.inputs[i]).shape) {
        *error = fmt::format("region {}'s input {} is not available with its shape", k, i);
        return {};
      }
      local[static_cast<size_t>(b.inputs[i])] = whole;
    }
    std::map<ir::ValueId, std::string> outName;  // b's outputs keep the program's names
    for (size_t i = 0; i < b.outputs.size(); ++i) outName[b.outputs[i]] = program.value(R.outputs[i]).name;
    for (const ir::Op& op : b.ops) {
      if (op.kind == ir::OpKind::Input) continue;
      if (op.kind == ir::OpKind::Const) {
        local[static_cast<size_t>(op.results[0])] = ir::addConst(s, op.scalarText);
        continue;
      }
      ir::Op c = op;
      for (ir::ValueId& in : c.inputs) in = local[static_cast<size_t>(in)];
      std::vector<ir::Shape> shapes;
      std::vector<std::string> names;
      for (ir::ValueId r : op.results) {
        shapes.push_back(b.value(r).shape);
        auto it = outName.find(r);
        names.push_back(it == outName.end() ? "" : it->second);
      }
      int idx = s.appendOp(std::move(c), shapes, names);
      for (size_t i = 0; i < op.results.size(); ++i) {
        ir::ValueId nv = s.ops[static_cast<size_t>(idx)].results[i];
        s.values[static_cast<size_t>(nv)].keepF32 = b.value(op.results[i]).keepF32;
        local[static_cast<size_t>(op.results[i])] = nv;
      }
    }
    for (size_t i = 0; i < b.outputs.size(); ++i) map[static_cast<size_t>(R.outputs[i])] = local[static_cast<size_t>(b.outputs[i])];
  }
  for (ir::ValueId o : program.outputs) {
    ir::ValueId v = map[static_cast<size_t>(o)];
    if (v == ir::kNoValue) {
      *error = fmt::format("output {} is written by no region", program.value(o).name);
      return {};
    }
    s.outputs.push_back(v);
  }
  if (ir::Error e = ir::checkProgram(s); !e.empty()) {
    *error = "the stitched program is not legal: " + e;
    return {};
  }
  return s;
}

namespace {

// The proof by composition (regions.h, verifyStitched): the regions at `cuts`
// reproduce the input, `stitched` is their μGraphs `bests` put back, and each
// μGraph is proven equivalent to its region.
verify::Verdict proveByRegions(const ir::Graph& program, const Cuts& cuts, const std::vector<ir::Graph>& bests,
                               const ir::Graph& stitched, const verify::Options& regionOptions,
                               const verify::Cancel& cancel, const ProvenPairs* proven) {
  verify::Verdict v;
  v.equivalent = false;
  auto refuse = [&](const std::string& why) {
    v.message = why;
    return v;
  };
  std::string error, why;
  std::vector<Region> regions = splitRegions(program, cuts, &error);
  if (regions.empty() || regions.size() != bests.size()) return refuse(error.empty() ? "one μGraph per region" : error);
  std::vector<const ir::Graph*> own, theirs;
  for (size_t k = 0; k < regions.size(); ++k) {
    own.push_back(&regions[k].program);
    theirs.push_back(&bests[k]);
  }
  ir::Graph rebuilt = stitchRegions(program, regions, own, &error);
  if (rebuilt.ops.empty() || !ir::sameGraph(rebuilt, program, &why))
    return refuse("the regions do not reproduce the input: " + (error.empty() ? why : error));
  ir::Graph composed = stitchRegions(program, regions, theirs, &error);
  if (composed.ops.empty() || !ir::sameGraph(composed, stitched, &why))
    return refuse("the program is not its regions' μGraphs stitched: " + (error.empty() ? why : error));
  double bound = 0;
  std::set<std::pair<std::string, std::string>> checked;
  int reused = 0;
  for (size_t k = 0; k < regions.size(); ++k) {
    auto key = std::make_pair(ir::printGraph(regions[k].program), ir::printGraph(bests[k]));
    if (!checked.insert(key).second) continue;
    if (proven)
      if (auto p = proven->find(key); p != proven->end()) {
        bound += p->second;
        ++reused;
        continue;
      }
    verify::Verdict r = verify::Verifier(regions[k].program, regionOptions).check(bests[k], cancel);
    if (!r.equivalent) {
      v.cancelled = r.cancelled;
      v.output = r.output;
      v.index = r.index;
      return refuse(fmt::format("region {} (operators {}..{}): {}", k, regions[k].begin, regions[k].end - 1,
                                r.message.empty() ? "not equivalent" : r.message));
    }
    bound += r.errorBound;
  }
  v.equivalent = true;
  v.notProven = false;
  v.errorBound = std::min(1.0, bound);
  v.message = reused > 0 ? fmt::format("proven region by region ({} regions; {} of {} distinct pairs proven by their "
                                      "region searches)",
                                      regions.size(), reused, checked.size())
                         : fmt::format("proven region by region ({} regions)", regions.size());
  return v;
}

}  // namespace

verify::Verdict verifyStitched(const ir::Graph& program, const verify::Verifier& verifier, const Cuts& cuts,
                               const std::vector<ir::Graph>& bests, const ir::Graph& stitched,
                               const verify::Options& regionOptions, const verify::Cancel& cancel, bool* byRegions,
                               const ProvenPairs* proven) {
  *byRegions = false;
  // A program that nests exps (two chained softmaxes) needs nothing of its
  // own here: where the fields cannot refute such an output the verifier
  // answers "not proven" (undecided), and where it refutes, the programs were
  // also seen to differ on real inputs (docs/verifier.md, "Nested exps").
  // But its whole check can prove a stitched program only where every region
  // computes the exps as the input does, which a fused softmax does not: for
  // such a program the proof by composition comes first (a chain of four
  // decoder layers: 2.6 s of whole check saved), and the whole check runs
  // only when that proof fails, for its verdict and message.
  std::optional<verify::Verdict> composed;
  if (verifier.referenceNestsExps()) {
    composed = proveByRegions(program, cuts, bests, stitched, regionOptions, cancel, proven);
    if (composed->equivalent) {
      *byRegions = true;
      composed->message += ", first: the input nests exps";
      return *composed;
    }
  }
  verify::Verdict v = verifier.check(stitched, cancel);
  bool undecided = !v.equivalent && v.notProven && !v.undefined && !v.cancelled && !v.signatureMismatch &&
                   v.output.empty();
  if (v.equivalent || !undecided) return v;
  if (!composed) composed = proveByRegions(program, cuts, bests, stitched, regionOptions, cancel, proven);
  verify::Verdict& byParts = *composed;
  if (!byParts.equivalent) {
    v.cancelled = v.cancelled || byParts.cancelled;
    v.output = byParts.output;
    v.index = byParts.index;
    v.message += "; not proven region by region either: " + byParts.message;
    return v;
  }
  *byRegions = true;
  byParts.message = fmt::format("{}, the whole check did not decide; as a whole: {}", byParts.message, v.message);
  return byParts;
}

}  // namespace mirage::search
