// Extents are chosen kernel by kernel (extents.cpp): under a cost that sums
// per-launch costs this must find the same cheapest cost as trying every
// combination of every kernel's extents together.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>

#include "mirage/parse/parser.h"
#include "space.h"

using namespace mirage;

namespace {

int64_t labelExtent(const search::ProgramLabels& labels, search::Label l) {
  return labels.extent[static_cast<size_t>(search::innerOf(l))];
}

// The cheapest legal instantiation over the full product of every grid
// axis's and every for-loop's powers of two, by brute force; -1 when there
// is none, or when the product has more than `most` combinations.
double exhaustiveBest(const ir::Graph& program, const search::ProgramLabels& labels, const search::Plan& plan,
                      int64_t most) {
  struct Var {
    size_t kernel;
    int axis;  // -1: the for-loop
    std::vector<int64_t> options;
  };
  auto powers = [](int64_t from, int64_t upTo) {
    std::vector<int64_t> out;
    for (int64_t p = from; p <= upTo; p *= 2) out.push_back(p);
    return out;
  };
  std::vector<Var> vars;
  int64_t combos = 1;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const search::KernelTemplate& kt = plan.kernels[k];
    for (size_t a = 0; a < kt.grid.size(); ++a)
      vars.push_back({k, static_cast<int>(a), powers(2, labelExtent(labels, kt.grid[a].label))});
    if (kt.loop != search::kUnit && !search::partialOf(kt.loop))
      vars.push_back({k, -1, powers(1, labelExtent(labels, kt.loop))});
  }
  for (const Var& v : vars) combos *= static_cast<int64_t>(v.options.size());
  if (combos > most) return -1;
  search::Extents ext;
  ext.parts.resize(plan.kernels.size());
  ext.forloop.assign(plan.kernels.size(), 1);
  for (size_t k = 0; k < plan.kernels.size(); ++k) ext.parts[k].assign(plan.kernels[k].grid.size(), 1);
  double best = std::numeric_limits<double>::infinity();
  std::vector<size_t> idx(vars.size(), 0);
  while (true) {
    for (size_t v = 0; v < vars.size(); ++v) {
      int64_t x = vars[v].options[idx[v]];
      if (vars[v].axis < 0)
        ext.forloop[vars[v].kernel] = x;
      else
        ext.parts[vars[v].kernel][static_cast<size_t>(vars[v].axis)] = x;
    }
    // A loop over partials walks exactly the blocks that wrote them.
    for (size_t k = 0; k < plan.kernels.size(); ++k)
      if (search::partialOf(plan.kernels[k].loop)) {
        auto [pk, pa] = plan.partialAxis[static_cast<size_t>(search::partialOf(plan.kernels[k].loop))];
        ext.forloop[k] = ext.parts[static_cast<size_t>(pk)][static_cast<size_t>(pa)];
      }
    ir::Graph g;
    if (search::instantiate(program, labels, plan, ext, &g).empty()) best = std::min(best, search::estimateCostUs(g));
    size_t v = 0;
    while (v < idx.size() && ++idx[v] == vars[v].options.size()) idx[v++] = 0;
    if (v == idx.size()) break;
  }
  return best;
}

// The first `each` plans the search emits for each of `kernelCounts`,
// from pass `fromPass` to pass 3 in order.
std::vector<search::Plan> firstPlans(const ir::Graph& g, const search::ProgramLabels& labels,
                                     const search::Limits& limits, std::initializer_list<int> kernelCounts,
                                     size_t each, int fromPass) {
  search::Context ctx;
  search::initContext(ctx, g, labels, limits);
  std::vector<search::Plan> plans;
  size_t enough = 0;
  ctx.stopped = [&] { return plans.size() >= enough; };
  ctx.emit = [&](const search::Plan& p) { plans.push_back(p); };
  for (int kernels : kernelCounts) {
    enough = plans.size() + each;
    for (int d = fromPass; d <= 3 && plans.size() < enough; ++d)
      for (int c = 0; c < search::countFirstConfigs(ctx, kernels); ++c) search::searchPlans(ctx, kernels, d, c);
  }
  return plans;
}

// Attention over one head pair: Q [2, rows, dim], K [2, dim, keys], V [2, keys, dim].
std::optional<ir::Graph> attention(int rows, int dim, int keys) {
  return parse::parseString(fmt::format("graph a {{ Q = input f16[2, {0}, {1}]\n K = input f16[2, {1}, {2}]\n"
                                        " V = input f16[2, {2}, {1}]\n"
                                        " O = matmul(softmax(mul(matmul(Q, K), 0.25), dim=-1), V)\n output O }}",
                                        rows, dim, keys),
                            "test.mg", std::cerr);
}

// The search library's own estimate, as chooseExtents takes a cost.
const std::function<double(const ir::Graph&)> kEstimate = [](const ir::Graph& x) {
  return search::estimateCostUs(x);
};

}  // namespace

TEST_CASE("extents chosen kernel by kernel are as cheap as the full product", "[extents]") {
  std::optional<ir::Graph> g = attention(4, 8, 16);
  REQUIRE(g);
  search::ProgramLabels labels = search::analyzeLabels(*g);
  search::Limits limits;
  limits.maxBlockOps = 10;
  limits.smemBytesPerBlock = int64_t{1} << 40;  // no budget: the brute force does not model it
  // The first plans of one and of two kernels are enough.
  std::vector<search::Plan> plans = firstPlans(*g, labels, limits, {1, 2}, 60, 3);
  int compared[3] = {0, 0, 0};
  std::atomic<bool> stop{false};
  for (const search::Plan& plan : plans) {
    if (compared[plan.kernels.size()] >= 12) continue;
    double brute = exhaustiveBest(*g, labels, plan, 3000);
    if (brute < 0) continue;
    ++compared[plan.kernels.size()];
    std::vector<search::ExtentChoice> chosen = search::chooseExtents(*g, labels, plan, limits, kEstimate, stop);
    INFO("kernels " << plan.kernels.size());
    if (std::isinf(brute)) {
      CHECK(chosen.empty());
    } else {
      REQUIRE(chosen.size() == 1);
      CHECK(chosen[0].cost == Approx(brute));
    }
  }
  CHECK(compared[1] > 0);
  CHECK(compared[2] > 0);
}

// A search keeps each kernel's own extent winners across its templates
// (KernelExtentsMemo): with one memo shared by every plan of one-, two- and
// three-kernel attention (split kernels, loops over partials, kernels
// shared by many plans), every plan gets the same choices, costs and texts
// as without it, and the memo answers some of them.
TEST_CASE("extents from the kernel memo are those chosen afresh", "[extents]") {
  std::optional<ir::Graph> g = attention(8, 16, 64);
  REQUIRE(g);
  search::ProgramLabels labels = search::analyzeLabels(*g);
  search::Limits limits;
  limits.maxBlockOps = 10;
  std::vector<search::Plan> plans = firstPlans(*g, labels, limits, {1, 2, 3}, 150, 0);
  int withKernels[4] = {0, 0, 0, 0};
  std::atomic<bool> stop{false};
  search::KernelExtentsMemo memo;
  for (const search::Plan& plan : plans) {
    std::vector<search::ExtentChoice> fresh = search::chooseExtents(*g, labels, plan, limits, kEstimate, stop);
    std::vector<search::ExtentChoice> kept = search::chooseExtents(*g, labels, plan, limits, kEstimate, stop, &memo);
    REQUIRE(fresh.size() == kept.size());
    for (size_t i = 0; i < fresh.size(); ++i) {
      INFO(fresh[i].text);
      CHECK(kept[i].text == fresh[i].text);
      CHECK(kept[i].cost == fresh[i].cost);
    }
    ++withKernels[plan.kernels.size()];
  }
  CHECK(withKernels[2] > 0);
  CHECK(withKernels[3] > 0);
  CHECK(memo.hits > 0);
}
