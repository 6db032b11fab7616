// Kernel-body evaluation (see kernel_eval.h). Blocks are independent and
// write disjoint parts of the results, so they run in parallel; inside a
// block, ops run serially on tiles.
#include "kernel_eval.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "demand.h"
#include "tensor_ops.h"

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::ValueId;

struct Lanes {
  bool q = false;
  bool mx = false;
};

// Which lanes each body value has, from its arguments' lanes. Mirrors the
// rules in tensor_ops.cpp.
std::vector<Lanes> bodyLanes(const ir::Graph& body, const std::vector<FTensorPtr>& args,
                             int64_t forloop, const std::vector<char>& need) {
  std::vector<Lanes> lanes(body.values.size());
  auto at = [&](ValueId v) -> Lanes& { return lanes[static_cast<size_t>(v)]; };
  for (size_t k = 0; k < body.inputs.size(); ++k)
    at(body.inputs[k]) = {args[k]->hasQ(), args[k]->isMax()};
  for (const ir::Op& op : body.ops) {
    if (op.results.empty() || op.kind == OpKind::Input) continue;
    Lanes l;
    switch (op.kind) {
      case OpKind::Const: l = {true, false}; break;
      case OpKind::Tile:
      case OpKind::Transpose: l = at(op.inputs[0]); break;
      case OpKind::Matmul:
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div: l = {at(op.inputs[0]).q && at(op.inputs[1]).q, false}; break;
      case OpKind::Exp: l = {!at(op.inputs[0]).q, false}; break;
      case OpKind::Square:
      case OpKind::Neg:
      case OpKind::ReduceSum:
      case OpKind::ReduceMean: l = {at(op.inputs[0]).q, false}; break;
      case OpKind::Sqrt:
      case OpKind::Rsqrt:
      case OpKind::Silu:
      case OpKind::Gelu:
      case OpKind::Tanh:
      case OpKind::Sigmoid:
      case OpKind::Log:
      case OpKind::Minimum: l = {true, false}; break;  // -(a maximum): not one itself
      case OpKind::Relu:
      case OpKind::Abs:
      case OpKind::Maximum:
      case OpKind::ReduceMax:
      case OpKind::Scan: l = {true, true}; break;
      case OpKind::Accum:
        // A rescaled sum is a sum of products with exponentials: no residue.
        if (ir::isRescaledAccum(op)) {
          l = {false, false};
          break;
        }
        // A sum over a single iteration is the value itself: it stays a
        // maximum if it was one.
        l = op.accumOp == ir::AccumOp::Max
                ? Lanes{true, true}
                : Lanes{at(op.inputs[0]).q, forloop == 1 && at(op.inputs[0]).mx};
        break;
      case OpKind::Input:  // skipped above
      case OpKind::Save:   // has no result (skipped above)
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_SHORTHAND throw std::logic_error("bodyLanes: unexpected operator in a kernel body");
    }
    l.q = l.q && need[static_cast<size_t>(op.results[0])];
    at(op.results[0]) = l;
  }
  return lanes;
}

std::atomic<bool> g_shareBlockValues{true};

// Bytes one run of blocks may keep of values shared between blocks (below;
// one run per thread at a time: 16 threads keep at most 1 GB). QKNorm+GQA's
// one-kernel candidate keeps about 9 MB (its K normalization, 32 steps).
constexpr double kSharedBytesPerWorker = 64.0 * (1 << 20);

// About the field operations one element of op's result takes, to rank the
// orders in which blocks may be visited: a product's contraction, a
// reduction's reduced extent, one for the rest (copies and element-wise ops).
double workPerElement(const ir::Graph& body, const ir::Op& op) {
  const bool reduction = op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMean || op.kind == OpKind::ReduceMax;
  if (op.kind != OpKind::Matmul && !reduction) return 1;
  const ir::Shape& in = body.value(op.inputs[0]).shape;
  if (op.kind == OpKind::Matmul) return static_cast<double>(in.back());
  return static_cast<double>(ir::numElements(in)) /
         static_cast<double>(std::max<int64_t>(1, ir::numElements(body.value(op.results[0]).shape)));
}

void allocate(FTensor& t, const ir::Shape& shape, Lanes l) {
  t.shape = shape;
  size_t n = static_cast<size_t>(ir::numElements(shape));
  t.p.resize(n);
  if (l.q) t.q.resize(n); else t.q.clear();
  if (l.mx) t.mx.resize(n); else t.mx.clear();
}

}  // namespace

void setBlockValueSharing(bool on) { g_shareBlockValues = on; }

int64_t linearBlock(const std::array<int64_t, 3>& grid, const int64_t* at) {
  return at[0] + grid[0] * (at[1] + grid[1] * at[2]);
}

std::array<int64_t, 3> blockCoords(const std::array<int64_t, 3>& grid, int64_t linear) {
  return {linear % grid[0], (linear / grid[0]) % grid[1], linear / (grid[0] * grid[1])};
}

std::array<int64_t, 3> blockWriting(const ir::Op& save, const ir::Shape& chunk, const std::array<int64_t, 3>& grid,
                                    const int64_t* idx) {
  std::array<int64_t, 3> at = {0, 0, 0};
  for (int gd = 0; gd < 3; ++gd) {
    int d = save.omap[static_cast<size_t>(gd)];
    if (d >= 0 && grid[static_cast<size_t>(gd)] > 1) at[static_cast<size_t>(gd)] = idx[d] / chunk[static_cast<size_t>(d)];
  }
  return at;
}

bool evaluateKernel(const ir::Graph& g, const ir::Op& kernel, const std::vector<FTensorPtr>& args,
                    const std::vector<char>& resultNeed, const Trial& trial, ThreadPool* pool,
                    std::vector<std::shared_ptr<FTensor>>& results,
                    const std::vector<int>* watchSlots, std::vector<std::vector<u64>>* watched,
                    const FullProductLookup* fullProduct, const std::vector<int64_t>* onlyBlocks) {
  const ir::Graph& body = *kernel.body;
  const ir::KernelConfig& cfg = kernel.config;
  std::vector<char> need = residueDemand(body, resultNeed);
  std::vector<Lanes> lanes = bodyLanes(body, args, cfg.forloop, need);

  // Phase of every value: after the for-loop when it depends on an accum.
  std::vector<char> after(body.values.size(), 0);
  for (const ir::Op& op : body.ops) {
    bool a = op.kind == OpKind::Accum;
    for (ValueId in : op.inputs) a = a || after[static_cast<size_t>(in)];
    for (ValueId r : op.results) after[static_cast<size_t>(r)] = a;
  }
  // Watched values: one instance per block, and per iteration in the loop.
  const int64_t blockCount = cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  if (watchSlots)
    for (size_t v = 0; v < body.values.size(); ++v) {
      int slot = (*watchSlots)[v];
      if (slot < 0) continue;
      int64_t n = ir::numElements(body.values[v].shape) * blockCount * (after[v] ? 1 : cfg.forloop);
      (*watched)[static_cast<size_t>(slot)].assign(static_cast<size_t>(n), 0);
    }
  auto record = [&](ValueId v, int64_t b, int64_t it, const FTensor& t) {
    if (!watchSlots) return;
    int slot = (*watchSlots)[static_cast<size_t>(v)];
    if (slot < 0) return;
    int64_t instance = after[static_cast<size_t>(v)] ? b : b * cfg.forloop + it;
    std::copy(t.p.begin(), t.p.end(),
              (*watched)[static_cast<size_t>(slot)].begin() + instance * static_cast<int64_t>(t.p.size()));
  };
  // w^(+-residue) of a scan value: the factors exp(m_i) and exp(-M) of a
  // rescaled accumulator (see below).
  auto omegaOf = [&](const FTensor& m, bool negate) {
    if (m.q.size() != m.p.size()) throw std::logic_error("evaluateKernel: a rescale without a residue lane");
    FTensor w;
    w.shape = m.shape;
    w.p.resize(m.q.size());
    for (size_t i = 0; i < m.q.size(); ++i)
      w.p[i] = trial.expOmega(trial.Q().fromMont(negate ? trial.Q().neg(m.q[i]) : m.q[i]));
    return w;
  };
  ir::Op mulOp;
  mulOp.kind = OpKind::Mul;
  std::vector<int> argIndex(body.values.size(), -1);
  for (size_t k = 0; k < body.inputs.size(); ++k) argIndex[static_cast<size_t>(body.inputs[k])] = static_cast<int>(k);

  std::vector<FTensor> constants(body.values.size());
  for (const ir::Op& op : body.ops)
    if (op.kind == OpKind::Const) constants[static_cast<size_t>(op.results[0])] = makeConstant(op, trial.P(), trial.Q());

  results.clear();
  for (ValueId r : kernel.results) {
    (void)r;
    results.push_back(std::make_shared<FTensor>());
  }
  for (const ir::Op& op : body.ops)
    if (op.kind == OpKind::Save)
      allocate(*results[static_cast<size_t>(op.resultIndex)],
               g.value(kernel.results[static_cast<size_t>(op.resultIndex)]).shape,
               lanes[static_cast<size_t>(op.inputs[0])]);

  // The offset in its argument of a tile's view in block `block`, iteration
  // `it` (mg-language.md: chunk i along a mapped grid dim, part `it` along
  // the fmap dim).
  auto tileOffset = [&](const ir::Op& tileOp, const ir::Shape& full, const ir::Shape& tile, const int64_t* block,
                        int64_t it) {
    std::vector<int64_t> off(full.size(), 0);
    for (int gd = 0; gd < 3; ++gd) {
      int d = tileOp.imap[static_cast<size_t>(gd)];
      if (d >= 0) off[static_cast<size_t>(d)] += block[gd] * (full[static_cast<size_t>(d)] / cfg.grid[static_cast<size_t>(gd)]);
    }
    if (tileOp.fmap >= 0) off[static_cast<size_t>(tileOp.fmap)] += it * tile[static_cast<size_t>(tileOp.fmap)];
    return off;
  };

  // Body matmuls that are slices of a program-level product already
  // evaluated (see kernel_eval.h): both operands tiles of kernel arguments,
  // of one rank without broadcasting, each taking the whole contraction dim.
  // Which slice is decided per block and iteration below (the batch chunks
  // of the two tiles must coincide); anything else is multiplied as usual.
  std::vector<FTensorPtr> sliceOf(body.values.size());
  if (fullProduct)
    for (const ir::Op& op : body.ops) {
      if (op.kind != OpKind::Matmul || after[static_cast<size_t>(op.results[0])]) continue;
      const ir::Op& ta = body.producer(op.inputs[0]);
      const ir::Op& tb = body.producer(op.inputs[1]);
      if (ta.kind != OpKind::Tile || tb.kind != OpKind::Tile) continue;
      int ka = argIndex[static_cast<size_t>(ta.inputs[0])], kb = argIndex[static_cast<size_t>(tb.inputs[0])];
      if (ka < 0 || kb < 0) continue;
      const ir::Shape& fa = args[static_cast<size_t>(ka)]->shape;
      const ir::Shape& fb = args[static_cast<size_t>(kb)]->shape;
      const ir::Shape& sa = body.value(op.inputs[0]).shape;
      const ir::Shape& sb = body.value(op.inputs[1]).shape;
      size_t r = fa.size();
      if (r < 2 || fb.size() != r || sa.size() != r || sb.size() != r) continue;
      bool ok = sa[r - 1] == fa[r - 1] && sb[r - 2] == fb[r - 2];
      for (size_t d = 0; d + 2 < r; ++d) ok = ok && fa[d] == fb[d] && sa[d] == sb[d];
      if (!ok) continue;
      FTensorPtr full = (*fullProduct)(static_cast<size_t>(ka), static_cast<size_t>(kb));
      if (!full) continue;
      ir::Shape expect(fa.begin(), fa.end() - 2);
      expect.push_back(fa[r - 2]);
      expect.push_back(fb[r - 1]);
      // The same lanes as multiplying would give (bodyLanes), or none.
      const Lanes& l = lanes[static_cast<size_t>(op.results[0])];
      if (full->shape != expect || (l.q && !full->hasQ()) || body.value(op.results[0]).shape.size() != r) continue;
      sliceOf[static_cast<size_t>(op.results[0])] = std::move(full);
    }
  // The slice of `full` that matmul(tile a, tile b) is in this block and
  // iteration, or false when the tiles' batch chunks differ (or a
  // contraction offset is not 0: it never is for a whole dim).
  auto productSlice = [&](const ir::Op& op, const int64_t* block, int64_t it, std::vector<int64_t>& off) {
    const ir::Op& ta = body.producer(op.inputs[0]);
    const ir::Op& tb = body.producer(op.inputs[1]);
    const ir::Shape& fa = args[static_cast<size_t>(argIndex[static_cast<size_t>(ta.inputs[0])])]->shape;
    const ir::Shape& fb = args[static_cast<size_t>(argIndex[static_cast<size_t>(tb.inputs[0])])]->shape;
    std::vector<int64_t> oa = tileOffset(ta, fa, body.value(op.inputs[0]).shape, block, it);
    std::vector<int64_t> ob = tileOffset(tb, fb, body.value(op.inputs[1]).shape, block, it);
    size_t r = fa.size();
    if (oa[r - 1] != 0 || ob[r - 2] != 0) return false;
    for (size_t d = 0; d + 2 < r; ++d)
      if (oa[d] != ob[d]) return false;
    off.assign(oa.begin(), oa.end() - 2);
    off.push_back(oa[r - 2]);  // rows of a
    off.push_back(ob[r - 1]);  // columns of b
    return true;
  };

  // Values blocks share (docs/verifier.md, "Values blocks share"). A body
  // value is a function of the block's coordinates along the grid dims its
  // tiles map (`dims`, a bit per dim of more than one block) and, where a
  // tile walks the for-loop or a scan runs over it, of the iteration: the
  // ops are exact field functions of their operands. So blocks that agree
  // on those coordinates compute it alike (a K normalization recomputed by
  // every row block), and a value that does not change between iterations
  // is the same in each. Such a value is kept, one slot per iteration where
  // it changes, while the coordinates it depends on stay the same; the
  // blocks are visited with the dims that the most kept elements do not
  // depend on innermost, so consecutive blocks reuse them. Accumulators and
  // scans carry state and are always run (on shared operands, cheaply).
  const int64_t grid3[3] = {cfg.grid[0], cfg.grid[1], cfg.grid[2]};
  uint8_t fullMask = 0;
  for (int gd = 0; gd < 3; ++gd)
    if (grid3[gd] > 1) fullMask = static_cast<uint8_t>(fullMask | (1 << gd));
  std::vector<uint8_t> dims(body.values.size(), 0);
  std::vector<char> perIteration(body.values.size(), 0);
  for (const ir::Op& op : body.ops) {
    uint8_t d = 0;
    char varies = 0;
    if (op.kind == OpKind::Tile) {
      for (int gd = 0; gd < 3; ++gd)
        if (op.imap[static_cast<size_t>(gd)] >= 0 && grid3[gd] > 1) d = static_cast<uint8_t>(d | (1 << gd));
      varies = op.fmap >= 0 && cfg.forloop > 1;
    } else {
      for (ValueId in : op.inputs) {
        d = static_cast<uint8_t>(d | dims[static_cast<size_t>(in)]);
        varies = static_cast<char>(varies | perIteration[static_cast<size_t>(in)]);
      }
      if (op.kind == OpKind::Scan) varies = cfg.forloop > 1;
    }
    for (ValueId r : op.results) {
      dims[static_cast<size_t>(r)] = d;
      perIteration[static_cast<size_t>(r)] = varies;
    }
  }
  std::vector<char> shared(body.values.size(), 0);
  std::vector<int64_t> slots(body.values.size(), 1);
  std::vector<double> keptCost(body.values.size(), 0);  // work to compute a kept value once, all its slots
  if (g_shareBlockValues.load(std::memory_order_relaxed)) {
    double bytes = 0;
    for (const ir::Op& op : body.ops) {
      // Not kept: what is not computed (inputs, constants), saves, and the
      // ops that carry state from step to step.
      if (op.results.empty() || op.kind == OpKind::Input || op.kind == OpKind::Const || op.kind == OpKind::Accum ||
          op.kind == OpKind::Scan)
        continue;
      const ValueId r = op.results[0];
      const size_t v = static_cast<size_t>(r);
      const bool acrossBlocks = dims[v] != fullMask;
      const bool acrossIterations = !perIteration[v] && !after[v] && cfg.forloop > 1;
      if (!acrossBlocks && !acrossIterations) continue;
      slots[v] = perIteration[v] ? cfg.forloop : 1;
      const double elems = static_cast<double>(ir::numElements(body.value(r).shape)) * static_cast<double>(slots[v]);
      if (bytes + elems * 3 * sizeof(u64) > kSharedBytesPerWorker) continue;
      bytes += elems * 3 * sizeof(u64);
      shared[v] = 1;
      keptCost[v] = elems * workPerElement(body, op);
    }
  }
  // The visiting order (innermost dim first): the one under which the kept
  // values are computed with the least work. A kept value is computed again
  // whenever a dim it depends on changes, i.e. once per block divided by
  // the extents of the innermost dims it does not depend on. (Counting
  // kept elements instead put a V tile's copy, reused along the row dim,
  // before the score matmul reused along the head-dim split.)
  int order[3] = {0, 1, 2};
  {
    auto work = [&](const int* o) {
      double total = 0;
      for (size_t v = 0; v < keptCost.size(); ++v) {
        if (!shared[v]) continue;
        double computed = static_cast<double>(blockCount);
        for (int k = 0; k < 3 && !(dims[v] >> o[k] & 1); ++k) computed /= static_cast<double>(grid3[o[k]]);
        total += computed * keptCost[v];
      }
      return total;
    };
    int candidate[3] = {0, 1, 2};
    double best = work(order);
    while (std::next_permutation(candidate, candidate + 3)) {
      double w = work(candidate);
      if (w < best) {
        best = w;
        std::copy(candidate, candidate + 3, order);
      }
    }
  }
  auto blockAt = [&](int64_t i, int64_t* block) {
    if (onlyBlocks) {
      int64_t b = (*onlyBlocks)[static_cast<size_t>(i)];
      std::array<int64_t, 3> at = blockCoords(cfg.grid, b);
      std::copy(at.begin(), at.end(), block);
      return b;
    }
    for (int k = 0; k < 3; ++k) {
      block[order[k]] = i % grid3[order[k]];
      i /= grid3[order[k]];
    }
    return linearBlock(cfg.grid, block);
  };
  struct Kept {
    int64_t key = -1;  // the coordinates it depends on, packed
    std::vector<FTensor> slot;
    std::vector<char> filled;
  };

  std::atomic<bool> zeroDivisor{false};
  // Many blocks: blocks in parallel, ops serial. Fewer blocks than threads
  // (a one-block kernel with a long for-loop, say): blocks in turn, each op
  // parallel inside.
  const int64_t blocks = onlyBlocks ? static_cast<int64_t>(onlyBlocks->size()) : blockCount;
  const int threads = pool ? pool->threads() : 1;
  ThreadPool* blockPool = blocks >= 2 * threads ? pool : nullptr;
  ThreadPool* opPool = blockPool ? nullptr : pool;
  // Runs of consecutive blocks (a few per thread) so that kept values serve
  // many blocks.
  const int64_t grain = blockPool ? std::max<int64_t>(1, blocks / (4 * static_cast<int64_t>(threads))) : 1;
  parallelFor(blockPool, blocks, grain, [&](int64_t lo, int64_t hi) {
    std::vector<FTensor> vals(body.values.size());
    std::vector<Kept> kept(body.values.size());
    std::vector<const FTensor*> cur(body.values.size(), nullptr);  // a kept value's slot in use
    for (size_t v = 0; v < kept.size(); ++v)
      if (shared[v]) {
        kept[v].slot.resize(static_cast<size_t>(slots[v]));
        kept[v].filled.assign(static_cast<size_t>(slots[v]), 0);
      }
    auto valueOf = [&](ValueId v) -> const FTensor* {
      if (const FTensor* c = cur[static_cast<size_t>(v)]) return c;
      const ir::Op& prod = body.producer(v);
      return prod.kind == OpKind::Const ? &constants[static_cast<size_t>(v)] : &vals[static_cast<size_t>(v)];
    };
    // Where op's result goes in this block and iteration: its kept slot
    // (`reuse` when already filled for these coordinates) or vals.
    auto target = [&](ValueId r, int64_t it, bool& reuse) -> FTensor& {
      const size_t v = static_cast<size_t>(r);
      reuse = false;
      if (!shared[v]) return vals[v];
      Kept& k = kept[v];
      const size_t s = perIteration[v] ? static_cast<size_t>(it) : 0;
      reuse = k.filled[s] != 0;
      k.filled[s] = 1;  // filled once written (an aborted block abandons the whole evaluation)
      cur[v] = &k.slot[s];
      return k.slot[s];
    };
    std::vector<const FTensor*> ins;
    for (int64_t i = lo; i < hi && !zeroDivisor.load(std::memory_order_relaxed); ++i) {
      int64_t block[3];
      const int64_t b = blockAt(i, block);
      for (size_t v = 0; v < kept.size(); ++v) {
        if (!shared[v]) continue;
        int64_t at[3];
        for (int gd = 0; gd < 3; ++gd) at[gd] = (dims[v] >> gd & 1) ? block[gd] : 0;
        const int64_t key = linearBlock(cfg.grid, at);
        if (key != kept[v].key) {
          kept[v].key = key;
          std::fill(kept[v].filled.begin(), kept[v].filled.end(), 0);
        }
      }
      for (int64_t it = 0; it < cfg.forloop; ++it) {
        for (const ir::Op& op : body.ops) {
          if (op.kind == OpKind::Input || op.kind == OpKind::Const || op.kind == OpKind::Save) continue;
          ValueId res = op.results[0];
          if (op.kind == OpKind::Scan) {
            // The running maximum: the multiset of t over iterations 0..it
            // (so equal prefixes give equal values, and the last one equals
            // accum(t, op=max) and any maximum over the same elements).
            const FTensor& t = *valueOf(op.inputs[0]);
            FTensor& m = vals[static_cast<size_t>(res)];
            if (it == 0) m.mx.assign(t.p.size(), 0);
            for (int64_t i = 0; i < t.size(); ++i)
              m.mx[static_cast<size_t>(i)] = trial.P().add(m.mx[static_cast<size_t>(i)], maxContribution(t, i, trial));
            m.shape = t.shape;
            finishMaximum(m, trial, need[static_cast<size_t>(res)]);
            record(res, b, it, m);
            continue;
          }
          if (ir::isRescaledAccum(op)) {
            // After the loop it holds sum_i x_i exp(m_i - M) (M the last m),
            // which is exp(-M) * sum_i x_i w^(m_i): exp is a homomorphism
            // in the field, so the recurrence's closed form is exact.
            const FTensor& x = *valueOf(op.inputs[0]);
            FTensor w = omegaOf(*valueOf(op.inputs[1]), false);
            FTensor& acc = vals[static_cast<size_t>(res)];
            FTensor term;
            applyOp(mulOp, {&x, &w}, x.shape, trial, opPool, term, false);
            if (it == 0)
              acc.p = std::move(term.p);
            else
              for (size_t i = 0; i < acc.p.size(); ++i) acc.p[i] = trial.P().add(acc.p[i], term.p[i]);
            acc.q.clear();
            acc.mx.clear();
            acc.shape = x.shape;
            continue;
          }
          if (op.kind == OpKind::Accum) {
            const FTensor& x = *valueOf(op.inputs[0]);
            FTensor& acc = vals[static_cast<size_t>(res)];
            if (op.accumOp == ir::AccumOp::Max) {
              if (it == 0) acc.mx.assign(x.p.size(), 0);
              for (int64_t i = 0; i < x.size(); ++i)
                acc.mx[static_cast<size_t>(i)] =
                    trial.P().add(acc.mx[static_cast<size_t>(i)], maxContribution(x, i, trial));
            } else if (it == 0) {
              acc.p = x.p;
              if (need[static_cast<size_t>(res)])
                acc.q = x.q;
              else
                acc.q.clear();
              if (cfg.forloop == 1)
                acc.mx = x.mx;
              else
                acc.mx.clear();
            } else {
              for (size_t i = 0; i < x.p.size(); ++i) acc.p[i] = trial.P().add(acc.p[i], x.p[i]);
              for (size_t i = 0; i < acc.q.size(); ++i) acc.q[i] = trial.Q().add(acc.q[i], x.q[i]);
            }
            acc.shape = x.shape;
            continue;
          }
          if (after[static_cast<size_t>(res)]) continue;
          bool reuse = false;
          FTensor& out = target(res, it, reuse);
          if (reuse) {
            record(res, b, it, out);
            continue;
          }
          if (op.kind == OpKind::Tile) {
            ValueId argValue = op.inputs[0];
            const FTensor& arg = *args[static_cast<size_t>(argIndex[static_cast<size_t>(argValue)])];
            const ir::Shape& tile = body.value(res).shape;
            std::vector<int64_t> off = tileOffset(op, arg.shape, tile, block, it);
            allocate(out, tile, lanes[static_cast<size_t>(res)]);
            copyBox(arg, off, out, std::vector<int64_t>(tile.size(), 0), tile);
            record(res, b, it, out);
            continue;
          }
          if (const FTensorPtr& full = sliceOf[static_cast<size_t>(res)]) {
            std::vector<int64_t> off;
            if (productSlice(op, block, it, off)) {
              const ir::Shape& shape = body.value(res).shape;
              allocate(out, shape, lanes[static_cast<size_t>(res)]);
              copyBox(*full, off, out, std::vector<int64_t>(shape.size(), 0), shape);
              record(res, b, it, out);
              continue;
            }
          }
          ins.clear();
          for (ValueId in : op.inputs) ins.push_back(valueOf(in));
          if (!applyOp(op, ins, body.value(res).shape, trial, opPool, out, need[static_cast<size_t>(res)])) {
            zeroDivisor = true;
            return;
          }
          record(res, b, it, out);
        }
      }
      // After the loop: finish the accumulators, run the ops that depend on
      // them, and save.
      for (const ir::Op& op : body.ops) {
        if (op.kind == OpKind::Accum) {
          if (ir::isRescaledAccum(op)) {
            // The last iteration's running maximum is still in vals.
            FTensor w = omegaOf(vals[static_cast<size_t>(op.inputs[1])], true);
            FTensor& acc = vals[static_cast<size_t>(op.results[0])];
            FTensor scaled;
            applyOp(mulOp, {&acc, &w}, acc.shape, trial, opPool, scaled, false);
            acc.p = std::move(scaled.p);
          } else if (op.accumOp == ir::AccumOp::Max) {
            FTensor& acc = vals[static_cast<size_t>(op.results[0])];
            acc.shape = body.value(op.results[0]).shape;
            finishMaximum(acc, trial, need[static_cast<size_t>(op.results[0])]);
          }
          record(op.results[0], b, 0, vals[static_cast<size_t>(op.results[0])]);
          continue;
        }
        if (op.kind == OpKind::Save) {
          const FTensor& t = *valueOf(op.inputs[0]);
          FTensor& dst = *results[static_cast<size_t>(op.resultIndex)];
          std::vector<int64_t> off(t.shape.size(), 0);
          for (int gd = 0; gd < 3; ++gd) {
            int d = op.omap[static_cast<size_t>(gd)];
            if (d >= 0) off[static_cast<size_t>(d)] += block[gd] * t.shape[static_cast<size_t>(d)];
          }
          copyBox(t, std::vector<int64_t>(t.shape.size(), 0), dst, off, t.shape);
          continue;
        }
        if (op.results.empty() || op.kind == OpKind::Input || op.kind == OpKind::Const) continue;
        ValueId res = op.results[0];
        if (!after[static_cast<size_t>(res)]) continue;
        bool reuse = false;
        FTensor& out = target(res, 0, reuse);
        if (!reuse) {
          ins.clear();
          for (ValueId in : op.inputs) ins.push_back(valueOf(in));
          if (!applyOp(op, ins, body.value(res).shape, trial, opPool, out, need[static_cast<size_t>(res)])) {
            zeroDivisor = true;
            return;
          }
        }
        record(res, b, 0, out);
      }
    }
  });
  return !zeroDivisor.load();
}

}  // namespace mirage::verify
