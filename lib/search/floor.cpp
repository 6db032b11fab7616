// Lower bounds of partial kernels for branch and bound (docs/search.md,
// "Bounds"): the least any completion of a kernel costs, over every choice
// of its extents that the shared-memory budget leaves, from the tiles its
// body has loaded so far and what it must save.

#include <algorithm>
#include <cmath>
#include <mutex>
#include <shared_mutex>

#include "space.h"

namespace mirage::search {
namespace {

struct FloorTensor {
  std::vector<double> full;  // dims at the real extents (a partial dim: its inner extent, or what the loop says)
  Labels labels;
  int bytes = 2;             // storage bytes per element
};

// A plan tensor's dims at the real extents, as instantiate() makes them,
// except that a dim of partial results counts one entry per block only when
// this kernel's for-loop walks them (then the loop has exactly that many
// steps); otherwise the blocks are not known here and one is assumed.
FloorTensor describeTensor(const Context& ctx, const Plan& plan, int t) {
  const Tensor& ten = plan.tensors[static_cast<size_t>(t)];
  FloorTensor f;
  f.labels = ten.labels;
  f.bytes = ir::dtypeBytes(ctx.program->dtype);
  if (ten.kernel < 0) {
    for (int64_t d : ctx.program->value(ctx.program->inputs[static_cast<size_t>(ten.index)]).shape)
      f.full.push_back(static_cast<double>(d));
    return f;
  }
  if (plan.savedF32(ten)) f.bytes = ir::dtypeBytes(ir::DType::F32);
  for (Label l : ten.labels)
    f.full.push_back(static_cast<double>(ctx.labels->extent.at(static_cast<size_t>(innerOf(l)))));
  return f;
}

}  // namespace

FloorPoints kernelFloorPoints(Context& ctx, const Plan& plan, const std::vector<GridAxis>& grid, Label loop,
                              const std::vector<int>& tiles, const std::vector<FloorSave>& saves, Label newPartial,
                              bool complete) {
  // The memo key: everything the floor depends on.
  MemoKey key;
  key.bytes.reserve(256);
  key.put('L').put(loop);
  if (partialOf(loop)) {
    auto [pk, pa] = plan.partialAxis.at(static_cast<size_t>(partialOf(loop)));
    key.put('p').put(plan.kernels[static_cast<size_t>(pk)].grid[static_cast<size_t>(pa)].label);
  }
  for (const GridAxis& a : grid) key.put('g').put(a.label).put(a.split);
  // A tile's dims are its input's, or its labels' extents (describeTensor):
  // the key names them by the input or the labels alone. This runs for
  // every new mask of tiles of every search (most of them answered here),
  // so it describes no tensor.
  for (int t : tiles) {
    const Tensor& ten = plan.tensors[static_cast<size_t>(t)];
    key.put('t').put(ten.kernel < 0 ? ten.index : -1).put(plan.savedF32(ten)).putAll(ten.labels);
  }
  for (const FloorSave& s : saves) {
    key.put('s').put(s.bytes).put(static_cast<uint64_t>(s.labels.size()));
    for (Label l : s.labels) key.put(partialOf(l) == newPartial && newPartial ? -innerOf(l) : l);
  }
  Context::FloorMemo& memo = *ctx.floorMemo;
  if (!complete) {
    std::shared_lock lock(memo.mu);  // threads look up at once; a miss is rare
    if (auto it = memo.points.find(key.bytes); it != memo.points.end()) return it->second;
  }

  std::vector<FloorTensor> ts;
  for (int t : tiles) ts.push_back(describeTensor(ctx, plan, t));

  // The extents chooseExtents tries (extents.cpp): per grid axis every
  // block count divisorsOf gives, per for-loop every count left.
  const ProgramLabels& pl = *ctx.labels;
  std::vector<std::vector<int64_t>> axisOptions;
  for (const GridAxis& a : grid) axisOptions.push_back(divisorsOf(pl.extent[static_cast<size_t>(a.label)], false));
  const bool partialLoop = loop != kUnit && partialOf(loop) != 0;
  SmallVec<int64_t, 3> parts;
  parts.assign(grid.size(), 1);
  const int dtypeBytes = ir::dtypeBytes(ctx.program->dtype);
  std::vector<FloorPoint> points;

  auto evaluate = [&](int64_t forloop) {
    KernelFloor f;
    f.forloop = forloop;
    for (int64_t p : parts) f.blocks *= p;
    int64_t smemTiles = 0;  // extents.cpp's working set: every tile at one step
    for (const FloorTensor& t : ts) {
      SmallVec<double, 6> tile = t.full;  // inline: this runs for every extent choice
      double fullElems = 1;
      bool walked = false;
      for (size_t a = 0; a < grid.size(); ++a)
        for (size_t d = 0; d < t.labels.size(); ++d)
          if (t.labels[d] == grid[a].label) {
            tile[d] /= static_cast<double>(parts[a]);
            break;
          }
      if (loop != kUnit)
        for (size_t d = 0; d < t.labels.size(); ++d) {
          bool match = partialLoop ? partialOf(t.labels[d]) == partialOf(loop) : t.labels[d] == loop;
          if (!match) continue;
          walked = true;
          // A loop over partials walks one block's entries per step: the
          // dim holds `forloop` blocks' worth.
          if (partialLoop) tile[d] = t.full[d];
          else tile[d] /= static_cast<double>(forloop);
          break;
        }
      double tileElems = 1;
      for (size_t d = 0; d < tile.size(); ++d) {
        tileElems *= std::max(1.0, std::floor(tile[d]));
        double full = t.full[d];
        if (partialLoop && partialOf(t.labels[d]) == partialOf(loop)) full *= static_cast<double>(forloop);
        fullElems *= full;
      }
      const double tileBytes = tileElems * t.bytes;
      const double loads = walked ? tileBytes * static_cast<double>(forloop) : tileBytes;
      f.blockLoadBytes += loads;
      f.blockSmemBytes += loads;
      f.smemPerBlock += static_cast<int64_t>(tileBytes) * (walked && forloop > 1 ? 2 : 1);
      f.dramBytes += fullElems * t.bytes;
      smemTiles += static_cast<int64_t>(tileElems) * dtypeBytes;
    }
    if (smemTiles > ctx.limits->smemBytesPerBlock) return;  // no completion fits at these extents
    for (const FloorSave& s : saves) {
      double elems = 1;
      for (Label l : s.labels) {
        double e = static_cast<double>(pl.extent.at(static_cast<size_t>(innerOf(l))));
        if (newPartial && partialOf(l) == newPartial)
          for (size_t a = 0; a < grid.size(); ++a)
            if (grid[a].split) e *= static_cast<double>(parts[a]);
        elems *= e;
      }
      f.dramBytes += elems * s.bytes;
      // No two blocks write the same element: a block saves at least its share.
      f.blockLoadBytes += elems * s.bytes / static_cast<double>(f.blocks);
    }
    f.tensorCores = ctx.program->dtype != ir::DType::F32;
    points.push_back({parts, forloop, f, ctx.kernelFloor(f)});
  };

  // Odometer over the grid axes, then the for-loop counts.
  std::vector<size_t> idx(grid.size(), 0);
  while (true) {
    for (size_t a = 0; a < grid.size(); ++a) parts[a] = axisOptions[a][idx[a]];
    std::vector<int64_t> loops = {1};
    if (partialLoop) {
      auto [pk, pa] = plan.partialAxis.at(static_cast<size_t>(partialOf(loop)));
      loops = divisorsOf(pl.extent[static_cast<size_t>(plan.kernels[static_cast<size_t>(pk)].grid[static_cast<size_t>(pa)].label)],
                         false);
    } else if (loop != kUnit) {
      int64_t e = pl.extent[static_cast<size_t>(loop)];
      for (size_t a = 0; a < grid.size(); ++a)
        if (grid[a].label == loop) e /= parts[a];
      loops = divisorsOf(std::max<int64_t>(1, e), true);
    }
    for (int64_t f : loops) evaluate(f);
    size_t a = 0;
    while (a < grid.size() && ++idx[a] == axisOptions[a].size()) idx[a++] = 0;
    if (a == grid.size()) break;
  }
  // Cheapest first; among equal costs, in the order evaluated (a complete
  // list and a kept prefix agree point by point).
  auto cheaper = [&points](size_t a, size_t b) {
    return points[a].us < points[b].us || (points[a].us == points[b].us && a < b);
  };
  std::vector<size_t> order(points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto list = std::make_shared<FloorPointList>();
  const size_t kept = complete ? order.size() : std::min(order.size(), FloorPointList::kMostKept);
  if (kept < order.size()) {
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(), cheaper);
    list->restUs = points[order[kept]].us;  // the cheapest point left out
  }
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), cheaper);
  list->points.reserve(kept);
  for (size_t i = 0; i < kept; ++i) list->points.push_back(std::move(points[order[i]]));
  if (complete) return list;
  // Evaluated without the lock: another thread may have stored the same
  // points meanwhile, and then either copy serves.
  std::unique_lock lock(memo.mu);
  if (memo.held + kept > Context::FloorMemo::kMostPoints) {  // bounded memory; holders keep their points
    memo.points.clear();
    memo.held = 0;
  }
  auto [it, inserted] = memo.points.emplace(std::move(key.bytes), std::move(list));
  if (inserted) memo.held += kept;  // the other thread's copy is already counted
  return it->second;
}

}  // namespace mirage::search
