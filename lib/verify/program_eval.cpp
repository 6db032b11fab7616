// Program-level fingerprint evaluation, the structural hashes that key the
// fingerprint cache, and the cache itself (see fingerprint.h).
#include <cstring>
#include <list>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "demand.h"
#include "hash.h"
#include "kernel_eval.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"
#include "mirage/verify/verifier.h"
#include "tensor_ops.h"

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::ValueId;
using Hash2 = std::array<u64, 2>;

// Hash of one op's own attributes (not its inputs), in one of two
// independent hash families selected by `seed`.
u64 attributeHash(const ir::Op& op, u64 seed) {
  u64 h = hashCombine(seed, static_cast<u64>(op.kind));
  switch (op.kind) {
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax:
      h = hashCombine(hashCombine(h, static_cast<u64>(op.dim)), static_cast<u64>(op.size));
      break;
    case OpKind::Transpose:
      h = hashCombine(hashCombine(h, static_cast<u64>(op.dim)), static_cast<u64>(op.dim1));
      break;
    case OpKind::Reshape: break;  // the result shape (hashed with the value) says it all
    case OpKind::Concat: h = hashCombine(h, static_cast<u64>(op.dim)); break;
    case OpKind::Slice:
      h = hashCombine(hashCombine(hashCombine(h, static_cast<u64>(op.dim)), static_cast<u64>(op.start)),
                      static_cast<u64>(op.end));
      break;
    case OpKind::Const: {
      // By the literal as written (and the double it denotes): two constants
      // equal modulo some fixed prime must never share a cache entry, so no
      // field value is used here. "0.5" and "0.50" merely miss each other.
      u64 bits = 0;
      static_assert(sizeof(bits) == sizeof(op.scalar));
      std::memcpy(&bits, &op.scalar, sizeof(bits));
      h = hashCombine(hashCombine(h, hashString(op.scalarText, seed)), bits);
      break;
    }
    case OpKind::Accum:
    case OpKind::Scan: h = hashCombine(h, static_cast<u64>(op.accumOp)); break;
    case OpKind::Tile:
      for (int m : op.imap) h = hashCombine(h, static_cast<u64>(static_cast<int64_t>(m)));
      h = hashCombine(h, static_cast<u64>(static_cast<int64_t>(op.fmap)));
      break;
    case OpKind::Save:
      for (int m : op.omap) h = hashCombine(h, static_cast<u64>(static_cast<int64_t>(m)));
      h = hashCombine(h, static_cast<u64>(op.resultIndex));
      break;
    case OpKind::Kernel:
      for (int64_t e : op.config.grid) h = hashCombine(h, static_cast<u64>(e));
      h = hashCombine(h, static_cast<u64>(op.config.forloop));
      break;
    // No attributes beyond the kind.
    case OpKind::Input:
    case OpKind::Matmul:
    MIRAGE_CASES_BINARY
    MIRAGE_CASES_UNARY
    MIRAGE_CASES_SHORTHAND break;
  }
  return h;
}

u64 shapeHash(u64 h, const ir::Shape& s) {
  h = hashCombine(h, s.size());
  for (int64_t e : s) h = hashCombine(h, static_cast<u64>(e));
  return h;
}

// Hashes of every value of g; `argHashes` stand for the body's inputs when
// g is a kernel body (empty for a program).
std::vector<u64> valueHashes(const ir::Graph& g, const std::vector<u64>& argHashes, u64 seed,
                             u64* bodyHash) {
  std::vector<u64> hv(g.values.size(), 0);
  u64 all = seed;
  for (const ir::Op& op : g.ops) {
    u64 h = attributeHash(op, seed);
    if (op.kind == OpKind::Input) {
      ValueId v = op.results[0];
      size_t k = 0;
      while (k < g.inputs.size() && g.inputs[k] != v) ++k;
      if (!argHashes.empty())
        h = hashCombine(h, argHashes.at(k));
      else
        h = shapeHash(hashCombine(h, hashString(g.value(v).name, seed)), g.value(v).shape);
    }
    for (ValueId in : op.inputs) h = hashCombine(h, hv[static_cast<size_t>(in)]);
    if (op.kind == OpKind::Kernel) {
      std::vector<u64> args;
      for (ValueId in : op.inputs) args.push_back(hv[static_cast<size_t>(in)]);
      u64 inner = 0;
      valueHashes(*op.body, args, seed, &inner);
      h = hashCombine(h, inner);
    }
    for (size_t r = 0; r < op.results.size(); ++r) {
      u64 hr = shapeHash(hashCombine(h, r), g.value(op.results[r]).shape);
      hv[static_cast<size_t>(op.results[r])] = hr;
    }
    all = hashCombine(all, op.results.empty() ? h : hv[static_cast<size_t>(op.results[0])]);
  }
  if (bodyHash) *bodyHash = all;
  return hv;
}

// The key of a value's fingerprint: its structure, the trial, and whether
// it carries a residue lane (a tensor computed without one must not stand in
// for one that an exp reads).
Hash2 cacheKey(const Hash2& h, const Trial& trial, bool withResidue) {
  return {hashCombine(h[0], trial.id()), hashCombine(h[1] ^ withResidue, ~trial.id())};
}

// The seeds of the two hash families of a structural hash.
constexpr u64 kHashSeeds[2] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};

// The structural hash a program-level value matmul(a, b) of shape `out`
// has, computed as valueHashes computes it for a real one, whether or not
// the program being evaluated contains it.
Hash2 productHash(const Hash2& a, const Hash2& b, const ir::Shape& out) {
  ir::Op mm;
  mm.kind = OpKind::Matmul;
  Hash2 r{};
  for (size_t i = 0; i < 2; ++i) {
    u64 h = attributeHash(mm, kHashSeeds[i]);
    h = hashCombine(hashCombine(h, a[i]), b[i]);
    r[i] = shapeHash(hashCombine(h, size_t{0}), out);
  }
  return r;
}

}  // namespace

std::vector<Hash2> structuralHashes(const ir::Graph& g) {
  std::vector<u64> a = valueHashes(g, {}, kHashSeeds[0], nullptr);
  std::vector<u64> b = valueHashes(g, {}, kHashSeeds[1], nullptr);
  std::vector<Hash2> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = {a[i], b[i]};
  return out;
}

// ---------------------------------------------------------------------------
// The cache: least recently used entries go first when over budget.

struct FingerprintCache::Impl {
  struct KeyHash {
    size_t operator()(const Hash2& k) const { return static_cast<size_t>(k[0] ^ k[1]); }
  };
  using Entry = std::pair<Hash2, FTensorPtr>;
  size_t budget = 0;
  size_t bytes = 0;
  int64_t hits = 0, misses = 0;
  std::list<Entry> lru;  // front: most recent
  std::unordered_map<Hash2, std::list<Entry>::iterator, KeyHash> index;
  mutable std::mutex mu;
};

FingerprintCache::FingerprintCache(size_t budgetBytes) : impl_(std::make_unique<Impl>()) {
  impl_->budget = budgetBytes;
}
FingerprintCache::~FingerprintCache() = default;

FTensorPtr FingerprintCache::find(const Hash2& key) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->index.find(key);
  if (it == impl_->index.end()) {
    ++impl_->misses;
    return nullptr;
  }
  ++impl_->hits;
  impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second);
  return it->second->second;
}

void FingerprintCache::insert(const Hash2& key, FTensorPtr t) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (t->bytes() > impl_->budget || impl_->index.count(key)) return;
  impl_->lru.emplace_front(key, t);
  impl_->index[key] = impl_->lru.begin();
  impl_->bytes += t->bytes();
  while (impl_->bytes > impl_->budget) {
    Impl::Entry& last = impl_->lru.back();
    impl_->bytes -= last.second->bytes();
    impl_->index.erase(last.first);
    impl_->lru.pop_back();
  }
}

size_t FingerprintCache::bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->bytes;
}
int64_t FingerprintCache::hits() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->hits;
}
int64_t FingerprintCache::misses() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->misses;
}

// ---------------------------------------------------------------------------

EvalResult evaluateProgram(const ir::Graph& g, const Trial& trial, ThreadPool* pool,
                           FingerprintCache* cache, const Cancel* cancel,
                           const std::vector<WatchSite>* watch, FingerprintCache* inputs,
                           const std::vector<std::vector<int64_t>>* sampledBlocks) {
  EvalResult result;
  // Watched values: their slot in result.watched, per graph and value.
  std::unordered_map<const ir::Graph*, std::vector<int>> slots;
  if (watch) {
    result.watched.resize(watch->size());
    for (size_t i = 0; i < watch->size(); ++i) {
      const WatchSite& w = (*watch)[i];
      if (!w.graph) continue;
      std::vector<int>& s = slots[w.graph];
      s.resize(w.graph->values.size(), -1);
      s[static_cast<size_t>(w.value)] = static_cast<int>(i);
    }
  }
  auto slotsOf = [&](const ir::Graph* graph) -> const std::vector<int>* {
    auto it = slots.find(graph);
    return it == slots.end() ? nullptr : &it->second;
  };
  const std::vector<int>* topSlots = slotsOf(&g);
  std::vector<Hash2> hashes;
  if (cache || inputs) hashes = structuralHashes(g);
  std::vector<FTensorPtr> vals(g.values.size());
  std::vector<char> need = residueDemand(g);
  auto key = [&](ValueId r) {
    return cacheKey(hashes[static_cast<size_t>(r)], trial, need[static_cast<size_t>(r)]);
  };
  // Remaining uses of each value, so that intermediates are freed early.
  std::vector<int64_t> uses(g.values.size(), 0);
  for (const ir::Op& op : g.ops)
    for (ValueId in : op.inputs) ++uses[static_cast<size_t>(in)];
  for (ValueId o : g.outputs) uses[static_cast<size_t>(o)] += int64_t{1} << 40;

  // The loops of the ops stop early once `cancel` is requested; an op that
  // ran under a requested cancel is discarded below, never cached.
  ScopedCancel scopedCancel(cancel);
  auto cancelled = [&] { return cancel && cancel->requested(); };
  for (const ir::Op& op : g.ops) {
    if (cancelled()) {
      result.status = EvalStatus::Cancelled;
      return result;
    }
    const std::vector<int>* bodySlots = op.kind == OpKind::Kernel ? slotsOf(op.body.get()) : nullptr;
    const size_t opIndex = static_cast<size_t>(&op - g.ops.data());
    const std::vector<int64_t>* onlyBlocks =
        sampledBlocks && op.kind == OpKind::Kernel && !(*sampledBlocks)[opIndex].empty() ? &(*sampledBlocks)[opIndex]
                                                                                        : nullptr;
    // Inputs live in their own store when there is one. A kernel run for a
    // few blocks may still find its whole result there, but never stores
    // its partial one.
    FingerprintCache* store = op.kind == OpKind::Input && inputs ? inputs : cache;
    // A watched body value is not in the cache: evaluate the kernel again.
    bool cached = store && op.kind != OpKind::Const && !op.results.empty() && !bodySlots;
    if (cached) {
      for (ValueId r : op.results) {
        FTensorPtr hit = store->find(key(r));
        // An input drawn with its residue lane serves a use without one too
        // (the lane is then simply not read: the same values either way).
        if (!hit && op.kind == OpKind::Input && !need[static_cast<size_t>(r)])
          hit = store->find(cacheKey(hashes[static_cast<size_t>(r)], trial, true));
        vals[static_cast<size_t>(r)] = std::move(hit);
        cached = cached && vals[static_cast<size_t>(r)];
      }
    }
    if (!cached) {
      switch (op.kind) {
        case OpKind::Input: {
          const ir::Value& v = g.value(op.results[0]);
          // The same numbers as Trial::input, drawn in parallel.
          auto t = std::make_shared<FTensor>();
          bool withQ = need[static_cast<size_t>(op.results[0])];
          int64_t n = ir::numElements(v.shape);
          t->shape = v.shape;
          t->p.resize(static_cast<size_t>(n));
          if (withQ) t->q.resize(static_cast<size_t>(n));
          Trial::InputKeys keys = trial.inputKeys(v.name);
          parallelFor(pool, n, 1 << 15, [&](int64_t lo, int64_t hi) {
            for (int64_t i = lo; i < hi; ++i) {
              t->p[static_cast<size_t>(i)] = trial.inputP(keys, i);
              if (withQ) t->q[static_cast<size_t>(i)] = trial.inputQ(keys, i);
            }
          });
          vals[static_cast<size_t>(op.results[0])] = std::move(t);
          break;
        }
        case OpKind::Const:
          vals[static_cast<size_t>(op.results[0])] = std::make_shared<FTensor>(makeConstant(op, trial.P(), trial.Q()));
          break;
        case OpKind::Kernel: {
          std::vector<FTensorPtr> args;
          for (ValueId in : op.inputs) args.push_back(vals[static_cast<size_t>(in)]);
          std::vector<std::shared_ptr<FTensor>> outs;
          std::vector<char> resultNeed;
          for (ValueId r : op.results) resultNeed.push_back(need[static_cast<size_t>(r)]);
          // A product of two arguments evaluated at program level before (by
          // the reference, in this trial), found by the structural hash it
          // has: the kernel's tile matmuls that are slices of it copy them.
          FullProductLookup product = [&](size_t a, size_t b) -> FTensorPtr {
            const ir::Shape& sa = g.value(op.inputs[a]).shape;
            const ir::Shape& sb = g.value(op.inputs[b]).shape;
            if (sa.size() < 2 || sb.size() != sa.size()) return nullptr;
            ir::Shape out(sa.begin(), sa.end() - 2);
            out.push_back(sa[sa.size() - 2]);
            out.push_back(sb.back());
            Hash2 h = productHash(hashes[static_cast<size_t>(op.inputs[a])], hashes[static_cast<size_t>(op.inputs[b])], out);
            FTensorPtr t = cache->find(cacheKey(h, trial, true));
            return t ? t : cache->find(cacheKey(h, trial, false));
          };
          if (!evaluateKernel(g, op, args, resultNeed, trial, pool, outs, bodySlots,
                              bodySlots ? &result.watched : nullptr, cache ? &product : nullptr, onlyBlocks)) {
            result.status = cancelled() ? EvalStatus::Cancelled : EvalStatus::ZeroDivisor;
            return result;
          }
          for (size_t r = 0; r < outs.size(); ++r) vals[static_cast<size_t>(op.results[r])] = std::move(outs[r]);
          break;
        }
        case OpKind::Tile:
        case OpKind::Accum:
        case OpKind::Scan:
        case OpKind::Save: throw std::logic_error("evaluateProgram: block-level op at program level");
        MIRAGE_CASES_SHORTHAND throw std::logic_error("evaluateProgram: unexpanded shorthand");
        MIRAGE_CASES_PROGRAM_LAYOUT
        MIRAGE_CASES_PREDEFINED {
          std::vector<const FTensor*> ins;
          for (ValueId in : op.inputs) ins.push_back(vals[static_cast<size_t>(in)].get());
          auto out = std::make_shared<FTensor>();
          if (!applyOp(op, ins, g.value(op.results[0]).shape, trial, pool, *out,
                       need[static_cast<size_t>(op.results[0])])) {
            result.status = cancelled() ? EvalStatus::Cancelled : EvalStatus::ZeroDivisor;
            return result;
          }
          vals[static_cast<size_t>(op.results[0])] = std::move(out);
        }
      }
      // Some chunks of the op may have been skipped: its result is unfinished.
      if (cancelled()) {
        result.status = EvalStatus::Cancelled;
        return result;
      }
      if (store && op.kind != OpKind::Const && !onlyBlocks)
        for (ValueId r : op.results)
          store->insert(key(r), vals[static_cast<size_t>(r)]);
    }
    if (topSlots)
      for (ValueId r : op.results) {
        int slot = (*topSlots)[static_cast<size_t>(r)];
        if (slot >= 0) result.watched[static_cast<size_t>(slot)] = vals[static_cast<size_t>(r)]->p;
      }
    for (ValueId in : op.inputs)
      if (--uses[static_cast<size_t>(in)] == 0) vals[static_cast<size_t>(in)].reset();
  }
  for (ValueId o : g.outputs) result.outputs.push_back(vals[static_cast<size_t>(o)]);
  return result;
}

}  // namespace mirage::verify
