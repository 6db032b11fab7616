// Choosing a template's grid and for-loop extents (docs/search.md,
// "Extents"): the extents the cost ranks best within the shared-memory
// budget, found kernel by kernel.
//
// Why kernel by kernel: a plan's kernels interact only through the tensors
// one writes and a later one reads, and their shapes depend only on the
// blocks of the grid axes that split a reduction (a partial dim holds one
// entry per block). Once those *interface* extents are fixed, a kernel's
// legality and shared memory depend on its own extents alone, and so does
// its cost under a model that sums per-launch costs (both search's own
// estimate and the backend's model do). Enumerating each kernel's extents
// separately per interface choice replaces a product over all kernels
// (hundreds of thousands of graphs for a two-kernel GQA template) by a sum
// (hundreds). The winners are instantiated as a whole and ranked by the
// cost of the whole graph, so a candidate's cost is always the model's.
#include <algorithm>

#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "space.h"

namespace mirage::search {
namespace {

// Bytes of one block's working set in shared memory: its tiles (one
// for-loop step of each), its accumulators (f32), and room for the two
// largest intermediates; other values live in registers or reuse buffers.
int64_t smemBytes(const ir::Graph& g) {
  int64_t most = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::Kernel) continue;
    int64_t fixed = 0, largest = 0, second = 0;
    for (const ir::Op& b : op.body->ops) {
      if (b.kind == ir::OpKind::Input || b.kind == ir::OpKind::Const || b.kind == ir::OpKind::Save) continue;
      int64_t elements = ir::numElements(op.body->value(b.results[0]).shape);
      if (b.kind == ir::OpKind::Tile) {
        fixed += elements * ir::dtypeBytes(g.dtype);
      } else if (b.kind == ir::OpKind::Accum) {
        fixed += elements * 4;
      } else {
        int64_t bytes = elements * 4;
        if (bytes > largest) {
          second = largest;
          largest = bytes;
        } else {
          second = std::max(second, bytes);
        }
      }
    }
    most = std::max(most, fixed + largest + second);
  }
  return most;
}

// One grid axis whose blocks are chosen.
struct Axis {
  size_t kernel, axis;
  std::vector<int64_t> options;
};

// Calls f(choice) for every choice of the axes' options (at most about
// 2000, evenly strided, when there are more), with the choice written
// into ext.parts.
template <typename F>
bool forEachChoice(const std::vector<Axis>& axes, Extents& ext, const std::atomic<bool>& stop, F&& f) {
  int64_t combos = 1;
  for (const Axis& a : axes) combos *= static_cast<int64_t>(a.options.size());
  int64_t stride = std::max<int64_t>(1, combos / 2000);
  for (int64_t c = 0; c < combos; c += stride) {
    if (stop.load(std::memory_order_relaxed)) return false;
    int64_t rest = c;
    for (const Axis& a : axes) {
      ext.parts[a.kernel][a.axis] = a.options[static_cast<size_t>(rest % static_cast<int64_t>(a.options.size()))];
      rest /= static_cast<int64_t>(a.options.size());
    }
    f();
  }
  return true;
}

// For-loop counts of kernel k under the grid parts in ext: tied to the
// blocks of a split when the loop walks partials, else every divisor left.
std::vector<int64_t> loopOptions(const ProgramLabels& labels, const Plan& plan, const Extents& ext, size_t k) {
  Label loop = plan.kernels[k].loop;
  if (loop == kUnit) return {1};
  if (partialOf(loop)) {
    auto [pk, pa] = plan.partialAxis[static_cast<size_t>(partialOf(loop))];
    return {ext.parts[static_cast<size_t>(pk)][static_cast<size_t>(pa)]};
  }
  int64_t e = labels.extent[static_cast<size_t>(loop)];
  for (size_t a = 0; a < plan.kernels[k].grid.size(); ++a)
    if (plan.kernels[k].grid[a].label == loop) e /= ext.parts[k][a];
  return divisorsOf(e, true);
}

// What kernel k instantiated alone (instantiate's onlyKernel) depends on
// besides its own extents: its template (body, grid, loop, saves), the
// blocks of its split axes, its arguments' shapes, and the loop count tied
// to a split, all under the interface extents in ext. Names do not enter
// the cost.
std::string kernelKey(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan, const Extents& ext,
                      size_t k) {
  const KernelTemplate& kt = plan.kernels[k];
  MemoKey key;
  key.put('L').put(kt.loop);
  if (kt.loop != kUnit && partialOf(kt.loop)) key.put('P').put(loopOptions(labels, plan, ext, k).front());
  // A split axis's blocks are an interface extent, fixed before this kernel's own.
  for (size_t a = 0; a < kt.grid.size(); ++a)
    key.put('g').put(kt.grid[a].label).put(kt.grid[a].split ? ext.parts[k][a] : int64_t{0});
  for (int t : kt.args) key.put('a').putAll(tensorShape(program, labels, plan, ext, t));
  for (const BodyOp& o : kt.ops)
    key.put('o')
        .put(o.kind)
        .put(o.in0)
        .put(o.in1)
        .put(o.arg)
        .put(o.dim)
        .put(o.dim1)
        .put(o.reduceToInner)
        .put(o.hasScalar)
        .put(o.scalarFirst)
        .put(o.accumMax)
        .put(o.scalar.num)
        .put(o.scalar.den)
        .put(o.imap)
        .put(o.fmap);
  for (size_t s = 0; s < kt.saved.size(); ++s)
    key.put('s')
        .put(kt.saved[s])
        .put(static_cast<int>(kt.resultF32(s)))
        .put(kt.savedOmap[s]);
  return std::move(key.bytes);
}

// The `keep` cheapest of a stream of scored items, first come first on ties.
template <typename T>
void keepBest(std::vector<std::pair<double, T>>& best, size_t keep, double cost, T item) {
  if (best.size() >= keep && !(cost < best.back().first)) return;
  auto at = std::upper_bound(best.begin(), best.end(), cost,
                             [](double c, const std::pair<double, T>& b) { return c < b.first; });
  best.insert(at, {cost, std::move(item)});
  if (best.size() > keep) best.pop_back();
}

}  // namespace

std::vector<int64_t> divisorsOf(int64_t n, bool includeOne) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d * d != n) out.push_back(n / d);
    }
  std::sort(out.begin(), out.end());
  if (!includeOne) std::erase(out, 1);
  // Keep the block counts a GPU kernel would use: powers of two, or those
  // that leave a power-of-two tile.
  auto pow2 = [](int64_t x) { return (x & (x - 1)) == 0; };
  std::erase_if(out, [&](int64_t d) { return !pow2(d) && !pow2(n / d); });
  return out;
}

std::vector<ExtentChoice> chooseExtents(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                                        const Limits& limits, const std::function<double(const ir::Graph&)>& cost,
                                        const std::atomic<bool>& stop, KernelExtentsMemo* memo) {
  const size_t keep = static_cast<size_t>(std::max(1, limits.maxCandidatesPerTemplate));
  const size_t kernels = plan.kernels.size();
  std::vector<Axis> interface;
  std::vector<std::vector<Axis>> own(kernels);
  for (size_t k = 0; k < kernels; ++k)
    for (size_t a = 0; a < plan.kernels[k].grid.size(); ++a) {
      const GridAxis& g = plan.kernels[k].grid[a];
      Axis axis{k, a, divisorsOf(labels.extent[static_cast<size_t>(g.label)], false)};
      (g.split ? interface : own[k]).push_back(std::move(axis));
    }
  Extents ext;
  ext.parts.resize(kernels);
  ext.forloop.assign(kernels, 1);
  for (size_t k = 0; k < kernels; ++k) ext.parts[k].assign(plan.kernels[k].grid.size(), 1);

  // Per interface choice, each kernel's cheapest extents; then the
  // cheapest sums of those.
  using Winner = KernelExtentsMemo::Winner;
  std::vector<std::pair<double, Extents>> winners;
  forEachChoice(interface, ext, stop, [&] {
    std::vector<std::vector<Winner>> perKernel(kernels);
    for (size_t k = 0; k < kernels; ++k) {
      std::string key;
      if (memo) {
        key = kernelKey(program, labels, plan, ext, k);
        if (auto it = memo->winners.find(key); it != memo->winners.end()) {
          ++memo->hits;
          perKernel[k] = it->second;
          if (perKernel[k].empty()) return;
          continue;
        }
      }
      std::vector<std::pair<double, Winner>> best;
      const bool done = forEachChoice(own[k], ext, stop, [&] {
        for (int64_t f : loopOptions(labels, plan, ext, k)) {
          ext.forloop[k] = f;
          ir::Graph g;
          if (!instantiate(program, labels, plan, ext, &g, static_cast<int>(k)).empty()) continue;
          if (smemBytes(g) > limits.smemBytesPerBlock) continue;
          const double c = cost(g);
          keepBest(best, keep, c, Winner{c, ext.parts[k], f});
        }
      });
      for (auto& [c, w] : best) perKernel[k].push_back(std::move(w));
      if (memo && done) {
        if (memo->winners.size() > 100000) memo->winners.clear();  // bounded memory
        memo->winners.emplace(std::move(key), perKernel[k]);
      }
      if (perKernel[k].empty()) return;  // no legal extents for this kernel
    }
    // The cheapest combinations of the kernels' own winners, in order.
    std::vector<size_t> idx(kernels, 0);
    while (true) {
      double sum = 0;
      Extents e = ext;
      for (size_t k = 0; k < kernels; ++k) {
        const Winner& w = perKernel[k][idx[k]];
        sum += w.cost;
        e.parts[k] = w.parts;
        e.forloop[k] = w.forloop;
      }
      keepBest(winners, keep, sum, std::move(e));
      size_t k = 0;
      while (k < kernels && ++idx[k] == perKernel[k].size()) idx[k++] = 0;
      if (k == kernels) break;
    }
  });

  std::vector<ExtentChoice> out;
  for (auto& [sum, e] : winners) {
    ExtentChoice ch;
    if (!instantiate(program, labels, plan, e, &ch.graph).empty()) continue;
    if (smemBytes(ch.graph) > limits.smemBytesPerBlock) continue;
    ch.cost = cost(ch.graph);
    ch.text = ir::printGraph(ch.graph);
    out.push_back(std::move(ch));
  }
  std::stable_sort(out.begin(), out.end(), [](const ExtentChoice& a, const ExtentChoice& b) { return a.cost < b.cost; });
  return out;
}

}  // namespace mirage::search
