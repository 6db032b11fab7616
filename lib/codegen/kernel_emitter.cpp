// One custom kernel → one __global__ function.
//
// Every body value gets a home:
//  - a tile, a value a matmul reads, and a value read from more than one
//    operand slot are materialized in shared memory. Tiles hold what the
//    tensor holds (the program dtype); every other value is f32, as the
//    contract says body values are, except a value that only matmuls read,
//    which is stored rounded to the program dtype (that rounding is the
//    matmul operand's). A value that a tensor-core matmul and something else
//    both read gets a second buffer, its operand copy in the program dtype
//    (written by the same statement), so that only the matmul sees it rounded;
//  - an element-wise operator or transpose read from one slot is an inline
//    expression, fused into the pass of its consumer, unless it is
//    element-wise and broadcast into a result 8 times larger (then it is
//    computed once, in shared memory);
//  - an accumulator lives in shared memory as f32, or in registers across
//    the loop (a warp's mma fragments when it sums a tensor-core matmul, a
//    thread's few elements otherwise) and in shared memory after it;
//  - a matmul or reduction whose only consumer is an accumulator writes into
//    the accumulator directly;
//  - scan(t, op=max), the running maximum, lives in f32 shared memory across
//    the loop, next to its rescale factors exp(m_prev - m_new) when an
//    accum(x, rescale=m) reads it; such an accumulator is multiplied by the
//    factor before each iteration's x is added (FlashAttention-2's online
//    softmax), in whichever home it has (registers, mma fragments, shared).
// Kernel arguments and results are in the program dtype, except results
// saved with dtype=f32 and arguments that are such results (then float; their
// tiles are f32 buffers, loaded element by element).
// Statements are emitted in order: accumulator initialisation, tiles loaded
// before the loop (loop-invariant ones, stage 0 of double-buffered ones), the
// for-loop body (operators that depend on no accumulator), then the operators
// after the loop. Every statement is a loop of all threads over the elements
// it writes, followed by __syncthreads(); simple and clearly race-free. The
// fast paths (options.fastPaths) change how a statement is computed, never
// what it computes; docs/codegen.md lists them. With options.hopperPaths on
// sm_90+ the staged tiles go through an N-stage ring filled by TMA bulk
// copies on mbarriers, with a cp.async branch for older parts in the same
// file (emitPipelinedLoop).
#include "kernel_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"

namespace mirage::codegen {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;

enum class Home {
  Argument,        // a body input: a kernel argument in device memory
  Constant,        // a scalar literal
  Inline,          // an expression evaluated by its consumer
  Shared,          // a tile in shared memory
  IntoAccum,       // written straight into its (only) consumer, an accumulator
  AccumAlias,      // an accumulator of a one-iteration loop: its input itself
  None,            // save: no value
};

struct ValueInfo {
  Home home = Home::None;
  bool f32 = false;             // shared storage is f32 (else the program dtype)
  std::vector<int64_t> strides; // shared-memory strides, in elements
  int64_t bytes = 0;
  int64_t offset = -1;
  std::string var;              // C name of the shared buffer
  bool mma = false;             // matmul: tensor-core path
  bool registerAccum = false;   // accum: held in mma fragments across the loop
  int64_t tilesPerWarp = 0;     // registerAccum of a matmul: fragments per warp
  int64_t regsPerThread = 0;    // registerAccum of element-wise values: elements per thread
  bool hoisted = false;         // tile without fmap: loaded once, before the loop
  bool doubleBuffered = false;  // fmap tile: stages_ stages (2 unless the Hopper path), later ones in flight
  int64_t stageElems = 0;       // doubleBuffered: elements per stage
  int def = -1, last = -1;      // statement positions (lifetime)
  // The buffer a matmul reads this value from: an operand copy rounded to
  // the program dtype (an extra info_ entry) when the value itself is f32
  // and a tensor-core matmul reads it; -1 otherwise.
  int operandCopy = -1;
  // scan with a rescaled accum reading it: the info_ entry of its rescale
  // factors exp(m_prev - m_new), f32, the scan's shape; -1 otherwise.
  int rescaleFactors = -1;
};

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::string floatLiteral(double v) {
  if (std::isinf(v)) return v > 0 ? "mg_pos_inf()" : "mg_neg_inf()";
  if (std::isnan(v)) return "mg_nan()";
  std::string s = fmt::format("{:.9g}", static_cast<float>(v));
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string gridIndex(int g) { return std::string("blockIdx.") + "xyz"[g]; }

class Emitter {
 public:
  Emitter(const ir::Op& kernel, ir::DType dtype, const EmitOptions& options, const std::vector<bool>& argF32,
          const std::vector<std::vector<int64_t>>& argStrides)
      : kernel_(kernel), body_(*kernel.body), cfg_(kernel.config), dtype_(dtype), opt_(options), argF32_(argF32),
        argStrides_(argStrides) {}

  KernelCode run(const std::string& name) {
    KernelCode code;
    code.functionName = name;
    code.grid = cfg_.grid;
    threads_ = cfg_.block > 0 ? static_cast<int>(cfg_.block) : opt_.defaultThreads;
    code.threads = threads_;
    if (threads_ > 1024) {
      code.error = fmt::format("block={} exceeds 1024 threads per block", threads_);
      return code;
    }
    if (cfg_.grid[1] > 65535 || cfg_.grid[2] > 65535) {
      code.error = "grid y and z extents are limited to 65535 blocks";
      return code;
    }
    warps_ = threads_ % 32 == 0 ? threads_ / 32 : 0;
    assignHomes();
    buildStatements();
    int64_t limit = sharedMemoryLimit(opt_.smArch);
    // Loop-invariant tiles loaded once and fmap tiles double-buffered cost
    // shared memory across the whole loop; drop them if they do not fit.
    // The Hopper path takes the deepest pipeline (4, 3 or 2 stages) that fits.
    if (chooseStaging()) {
      bool fits;
      if (tma_) {
        fits = chooseStages(limit);
      } else {
        computeLifetimes();
        code.sharedBytes = allocate();
        fits = code.sharedBytes <= limit;
      }
      if (!fits) {
        for (ValueInfo& vi : info_) {
          if (vi.doubleBuffered) vi.bytes /= stages_;
          vi.hoisted = vi.doubleBuffered = false;
        }
        fastPaths_.erase("cp.async double buffering");
        fastPaths_.erase("loop-invariant tiles loaded once");
        tma_ = false;
        stages_ = 2;
      }
    }
    for (ValueInfo& vi : info_) {
      vi.def = vi.last = -1;
      vi.offset = -1;
    }
    computeLifetimes();
    code.sharedBytes = allocate();
    if (tma_) {
      // The stages' mbarriers follow the buffers (both branches of the file
      // get the same layout; the sm_80 branch leaves them unused).
      barrierOffset_ = (code.sharedBytes + 15) / 16 * 16;
      code.sharedBytes = barrierOffset_ + 8 * stages_;
      code.tmaStages = stages_;
      fastPaths_.insert(fmt::format("TMA bulk copies in a {}-stage mbarrier pipeline (cp.async below sm_90)", stages_));
    }
    if (code.sharedBytes > limit) {
      code.error = fmt::format(
          "the kernel needs {} bytes of shared memory per block, more than the {} bytes sm_{} allows",
          code.sharedBytes, limit, opt_.smArch);
      return code;
    }
    code.source = emitFunction(name, code.sharedBytes);
    code.fastPathsUsed.assign(fastPaths_.begin(), fastPaths_.end());
    return code;
  }

 private:
  const ir::Op& kernel_;
  const ir::Graph& body_;
  const ir::KernelConfig& cfg_;
  ir::DType dtype_;
  EmitOptions opt_;
  std::vector<bool> argF32_;  // per kernel argument: stored in f32 (a dtype=f32 result)
  std::vector<std::vector<int64_t>> argStrides_;  // per kernel argument: strides of a strided view, or empty

  // The strides of a view argument (a slice of a larger tensor); null for a
  // dense row-major one.
  const std::vector<int64_t>* viewStrides(ValueId bodyInput) const {
    for (size_t i = 0; i < body_.inputs.size(); ++i)
      if (body_.inputs[i] == bodyInput) return i < argStrides_.size() && !argStrides_[i].empty() ? &argStrides_[i] : nullptr;
    return nullptr;
  }
  int threads_ = 128;
  int warps_ = 0;
  std::vector<ValueInfo> info_;
  std::vector<std::vector<int>> users_;  // per value: consuming op indices
  // info_[values + i] is an extra buffer of value copyOf_[i] (its shape):
  // its operand copy or its rescale factors.
  std::vector<ValueId> copyOf_;
  std::set<std::string> fastPaths_;
  // Staged (doubleBuffered) fmap tiles: how many stages; with tma_ (the
  // opt-in Hopper path) they are filled by TMA bulk copies, one mbarrier per
  // stage at barrierOffset_, on sm_90+ and by cp.async below.
  int stages_ = 2;
  bool tma_ = false;
  int64_t barrierOffset_ = 0;

  struct Stmt {
    enum Kind { Init, Compute, Spill } kind;
    int op;  // Compute: op index; Init/Spill: the accum op
  };
  std::vector<Stmt> stmts_;
  size_t loopBegin_ = 0, loopEnd_ = 0;  // stmts_ [loopBegin_, loopEnd_) form the loop

  const ir::Shape& shape(ValueId v) const { return body_.value(v).shape; }
  // The shape of buffer `index` of info_: a body value, or an operand copy
  // (entries past the body's values) of one.
  const ir::Shape& bufferShape(size_t index) const {
    return index < body_.values.size() ? body_.values[index].shape
                                       : body_.values[static_cast<size_t>(copyOf_[index - body_.values.size()])].shape;
  }
  const ir::Op& producer(ValueId v) const { return body_.producer(v); }
  ValueInfo& info(ValueId v) { return info_[static_cast<size_t>(v)]; }
  int64_t loops() const { return cfg_.forloop; }
  bool lowPrecision() const { return dtype_ != ir::DType::F32; }

  // ---- where values live -------------------------------------------------

  // Operand slots that read v (mul(x, x) counts twice): an inline value is
  // expanded once per slot, so only single-slot values are inlined.
  int rawUses(ValueId v) const {
    int n = 0;
    for (const ir::Op& op : body_.ops)
      for (ValueId in : op.inputs) n += in == v;
    return n;
  }

  // v is read by one operator whose result is at least 8 times larger: an
  // inline v would be computed again for each element it is broadcast to
  // (an RMSNorm's sqrt(mean) once per column instead of once per row). Such
  // a value is computed once into shared memory instead; it is f32 either
  // way, so the numbers are the same.
  bool broadcastIntoLarger(ValueId v) const {
    const auto& users = users_[static_cast<size_t>(v)];
    if (users.size() != 1) return false;
    const ir::Op& user = body_.ops[static_cast<size_t>(users[0])];
    if (user.results.empty()) return false;
    return ir::numElements(shape(user.results[0])) >= 8 * ir::numElements(shape(v));
  }

  bool consumedByMatmul(ValueId v) const {
    for (int u : users_[static_cast<size_t>(v)])
      if (body_.ops[static_cast<size_t>(u)].kind == OpKind::Matmul) return true;
    return false;
  }

  // Every reader of v is a matmul: then storing v rounded to the program
  // dtype rounds exactly the matmul operands, as the contract asks.
  bool onlyMatmulsRead(ValueId v) const {
    const auto& users = users_[static_cast<size_t>(v)];
    if (users.empty()) return false;
    for (int u : users)
      if (body_.ops[static_cast<size_t>(u)].kind != OpKind::Matmul) return false;
    return true;
  }

  // Kernel argument `bodyInput` is stored in f32 (a result saved with dtype=f32).
  bool argumentF32(ValueId bodyInput) const {
    for (size_t i = 0; i < body_.inputs.size(); ++i)
      if (body_.inputs[i] == bodyInput) return i < argF32_.size() && argF32_[i];
    return false;
  }
  // A tile of such an argument: f32 in shared memory, in a program whose
  // dtype is not f32 (the fast tile paths assume the program dtype).
  bool f32Tile(const ir::Op& tileOp) const { return lowPrecision() && argumentF32(tileOp.inputs[0]); }
  // Kernel result r is saved with dtype=f32.
  bool resultF32(size_t r) const {
    for (const ir::Op& op : body_.ops)
      if (op.kind == OpKind::Save && op.resultIndex == static_cast<int>(r)) return op.saveF32;
    return false;
  }

  // Appends an extra shared buffer (f32 or the program dtype) with v's shape.
  int addExtraBuffer(ValueId v, bool f32, const std::string& var) {
    ValueInfo extra;
    extra.home = Home::Shared;
    extra.f32 = f32 || !lowPrecision();
    extra.var = var;
    copyOf_.push_back(v);
    info_.push_back(extra);
    return static_cast<int>(info_.size()) - 1;
  }

  // The rescale factor exp(m_prev - m_new) of accum(x, rescale=m) at
  // accumulator coordinates c (m broadcasts to x).
  std::string rescaleFactor(const ir::Op& accOp, const std::vector<std::string>& c) {
    ValueId m = accOp.inputs[1];
    const ValueInfo& fi = info_[static_cast<size_t>(info(m).rescaleFactors)];
    return fmt::format("{}[{}]", fi.var, offsetOf(fi, broadcast(shape(m), c)));
  }
  // How accumulator element `ref` takes this iteration's x: summed, kept
  // maximum, or (rescaled) multiplied by the factor and then summed, the
  // interpreter's order.
  std::string accumulateInto(const ir::Op& accOp, const std::string& ref, const std::vector<std::string>& c,
                             const std::string& x) {
    if (accOp.accumOp == ir::AccumOp::Max) return fmt::format("{0} = mg_max({0}, {1});", ref, x);
    if (ir::isRescaledAccum(accOp) && loops() > 1)
      return fmt::format("{0} = {0} * {1} + {2};", ref, rescaleFactor(accOp, c), x);
    return fmt::format("{0} += {1};", ref, x);
  }

  // The buffer a matmul reads operand v from (its operand copy, if any).
  ValueInfo& operandInfo(ValueId v) {
    int c = info(v).operandCopy;
    return c >= 0 ? info_[static_cast<size_t>(c)] : info(v);
  }

  void assignHomes() {
    info_.assign(body_.values.size(), {});
    users_.assign(body_.values.size(), {});
    for (size_t i = 0; i < body_.ops.size(); ++i) {
      std::set<ValueId> seen;
      for (ValueId in : body_.ops[i].inputs)
        if (seen.insert(in).second) users_[static_cast<size_t>(in)].push_back(static_cast<int>(i));
    }
    for (const ir::Op& op : body_.ops) {
      if (op.results.empty()) continue;
      ValueId v = op.results[0];
      ValueInfo& vi = info(v);
      const auto& users = users_[static_cast<size_t>(v)];
      bool singleAccum = users.size() == 1 &&
                         body_.ops[static_cast<size_t>(users[0])].kind == OpKind::Accum && loops() > 1;
      // A rescaled accum's producer writes into it only if it runs after the
      // scan has computed this iteration's factors.
      if (singleAccum) {
        const ir::Op& acc = body_.ops[static_cast<size_t>(users[0])];
        if (ir::isRescaledAccum(acc) && acc.inputs[0] == v && body_.value(acc.inputs[1]).op > body_.value(v).op)
          singleAccum = false;
        if (ir::isRescaledAccum(acc) && acc.inputs[0] != v) singleAccum = false;  // v is the scale itself
      }
      switch (op.kind) {
        case OpKind::Input: vi.home = Home::Argument; break;
        case OpKind::Const: vi.home = Home::Constant; break;
        case OpKind::Tile:
          vi.home = Home::Shared;
          vi.f32 = f32Tile(op);
          break;
        case OpKind::Accum:
        case OpKind::Scan:  // over one iteration, both are their input
          vi.home = loops() > 1 ? Home::Shared : Home::AccumAlias;
          vi.f32 = true;
          break;
        case OpKind::Matmul:
        case OpKind::ReduceSum:
        case OpKind::ReduceMean:
        case OpKind::ReduceMax:
          vi.home = singleAccum ? Home::IntoAccum : Home::Shared;
          vi.f32 = !onlyMatmulsRead(v);
          break;
        MIRAGE_CASES_BINARY
        MIRAGE_CASES_UNARY
        MIRAGE_CASES_LAYOUT
          if (rawUses(v) == 1 && !consumedByMatmul(v) && !(ir::isElementwise(op.kind) && broadcastIntoLarger(v))) {
            vi.home = Home::Inline;
          } else {
            vi.home = Home::Shared;
            vi.f32 = !onlyMatmulsRead(v);
          }
          break;
        case OpKind::Save:
        MIRAGE_CASES_PROGRAM_LAYOUT
        MIRAGE_CASES_PROGRAM
        MIRAGE_CASES_SHORTHAND break;  // no value (save), or never in a body
      }
      if (vi.home == Home::Shared && !lowPrecision()) vi.f32 = true;
      // Named values keep their name (s_NAME); unnamed ones are s<id>_<op>,
      // which no name can produce. Register arrays and stages get prefixes
      // (r_, st_) no shared buffer has.
      vi.var = body_.value(v).name.empty() ? fmt::format("s{}_{}", v, ir::opName(op.kind))
                                           : "s_" + sanitize(body_.value(v).name);
    }
    // A scan that rescales an accumulator keeps the iteration's factors
    // exp(m_prev - m_new) next to it (prefix alpha_, which no other buffer has).
    for (const ir::Op& op : body_.ops) {
      if (!ir::isRescaledAccum(op) || loops() == 1) continue;
      ValueId m = op.inputs[1];
      if (info(m).rescaleFactors >= 0) continue;
      int f = addExtraBuffer(m, true, "alpha_" + info(m).var);
      info(m).rescaleFactors = f;
    }
    // Tensor-core matmuls: both operands in shared memory in the program
    // dtype (f16/bf16), n and k multiples of the m16n8k16 fragment (any m).
    // An operand held in f32 (because something else reads it too) gets an
    // operand copy in the program dtype; an accumulator does not (it is
    // written across the loop), so a matmul of one takes the simple path.
    for (const ir::Op& op : body_.ops) {
      if (op.kind != OpKind::Matmul || !opt_.fastPaths || !lowPrecision() || warps_ == 0) continue;
      const Shape& sa = shape(op.inputs[0]);
      const Shape& sb = shape(op.inputs[1]);
      int64_t k = sa.back(), n = sb.back();  // any m: rows past it are zero padding
      if (n % 8 || k % 16) continue;
      if (info(op.inputs[0]).home != Home::Shared || info(op.inputs[1]).home != Home::Shared) continue;
      bool operandsFit = true;
      for (ValueId in : op.inputs) {
        OpKind k = producer(in).kind;
        if (info(in).f32 && (k == OpKind::Accum || k == OpKind::Scan || k == OpKind::Tile)) operandsFit = false;
      }
      if (!operandsFit) continue;
      for (ValueId in : op.inputs) {
        if (!info(in).f32 || info(in).operandCopy >= 0) continue;
        int c = addExtraBuffer(in, false, "op_" + info(in).var);  // no shared buffer's name starts so
        info(in).operandCopy = c;
        fastPaths_.insert("f16/bf16 operand copies for tensor cores");
      }
      ValueInfo& vi = info(op.results[0]);
      vi.mma = true;
      fastPaths_.insert("mma.sync.m16n8k16");
      fastPaths_.insert("ldmatrix");
      // Summed over the loop: keep the partial sums in the fragments.
      if (vi.home == Home::IntoAccum) {
        const ir::Op& acc = body_.ops[static_cast<size_t>(users_[static_cast<size_t>(op.results[0])][0])];
        int64_t tiles = mmaTiles(shape(op.results[0])).total;
        int64_t perWarp = (tiles + warps_ - 1) / warps_;
        if (acc.accumOp == ir::AccumOp::Sum && perWarp * 4 <= 64) {
          ValueInfo& ai = info(acc.results[0]);
          ai.registerAccum = true;
          ai.tilesPerWarp = perWarp;
          fastPaths_.insert("register accumulator");
        }
      }
    }
    // Other accumulators whose tile gives each thread at most 8 elements keep
    // them in registers across the loop: a thread always owns the same
    // elements (i = threadIdx.x + j * threads).
    for (const ir::Op& op : body_.ops) {
      if (op.kind != OpKind::Accum || loops() == 1 || !opt_.fastPaths) continue;
      ValueInfo& ai = info(op.results[0]);
      if (ai.registerAccum || info(op.inputs[0]).home == Home::IntoAccum) continue;
      int64_t per = (ir::numElements(shape(op.results[0])) + threads_ - 1) / threads_;
      if (per > 8) continue;
      ai.registerAccum = true;
      ai.regsPerThread = per;
      fastPaths_.insert("register accumulator");
    }
    // Strides; rows of tensor-core operands are padded by 16 bytes when they
    // are a multiple of 128 bytes, so that the 8 rows a fragment load touches
    // fall into different banks.
    for (size_t v = 0; v < info_.size(); ++v) {
      ValueInfo& vi = info_[v];
      if (vi.home != Home::Shared) continue;
      const Shape& s = bufferShape(v);
      int elem = vi.f32 ? 4 : ir::dtypeBytes(dtype_);
      int64_t pitch = s.back();
      // A tensor-core operand: a buffer matmuls read from, the value's own
      // unless it has an operand copy.
      bool isExtra = v >= body_.values.size();
      bool mmaOperand = false;
      size_t reader = isExtra ? static_cast<size_t>(copyOf_[v - body_.values.size()]) : v;
      bool isCopy = isExtra && info_[reader].operandCopy == static_cast<int>(v);
      if (isCopy || (!isExtra && vi.operandCopy < 0))
        for (int u : users_[reader]) {
          const ir::Op& user = body_.ops[static_cast<size_t>(u)];
          if (user.kind == OpKind::Matmul && info(user.results[0]).mma) mmaOperand = true;
        }
      if (mmaOperand && s.size() >= 2 && (pitch * elem) % 128 == 0) pitch += 16 / elem;
      vi.strides.assign(s.size(), 1);
      int64_t stride = pitch;
      for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) {
        vi.strides[static_cast<size_t>(d)] = stride;
        stride *= s[static_cast<size_t>(d)];
      }
      vi.bytes = (s.size() >= 2 ? stride : pitch) * elem;
    }
  }

  // ---- statements and lifetimes -----------------------------------------

  bool emitsCode(const ir::Op& op) {
    switch (op.kind) {
      case OpKind::Input:
      case OpKind::Const: return false;
      case OpKind::Accum: {
        // A one-iteration accumulator is its input; a fused producer or the
        // register path updates it from the producer's statement.
        if (loops() == 1) return false;
        return info(op.inputs[0]).home != Home::IntoAccum;
      }
      case OpKind::Scan: return loops() > 1;  // else it is its input
      case OpKind::Save:
      case OpKind::Tile:
      case OpKind::Matmul:
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::ReduceMax: return true;
      MIRAGE_CASES_BINARY
      MIRAGE_CASES_UNARY
      MIRAGE_CASES_LAYOUT return info(op.results[0]).home == Home::Shared;
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_SHORTHAND return false;  // never in a body
    }
    return false;
  }

  void buildStatements() {
    for (size_t i = 0; i < body_.ops.size(); ++i) {
      const ir::Op& op = body_.ops[i];
      if (op.kind == OpKind::Accum && loops() > 1 && !info(op.results[0]).registerAccum)
        stmts_.push_back({Stmt::Init, static_cast<int>(i)});
    }
    loopBegin_ = stmts_.size();
    for (size_t i = 0; i < body_.ops.size(); ++i) {
      const ir::Op& op = body_.ops[i];
      bool after = op.kind == OpKind::Save || (!op.results.empty() && op.kind != OpKind::Accum &&
                                               ir::isAfterLoop(body_, op.results[0]));
      if (!after && emitsCode(op)) stmts_.push_back({Stmt::Compute, static_cast<int>(i)});
    }
    loopEnd_ = stmts_.size();
    for (size_t i = 0; i < body_.ops.size(); ++i) {
      const ir::Op& op = body_.ops[i];
      if (op.kind == OpKind::Accum && info(op.results[0]).registerAccum)
        stmts_.push_back({Stmt::Spill, static_cast<int>(i)});
    }
    for (size_t i = 0; i < body_.ops.size(); ++i) {
      const ir::Op& op = body_.ops[i];
      bool after = op.kind == OpKind::Save || (!op.results.empty() && op.kind != OpKind::Accum &&
                                               ir::isAfterLoop(body_, op.results[0]));
      if (after && emitsCode(op)) stmts_.push_back({Stmt::Compute, static_cast<int>(i)});
    }
  }

  // The shared buffers an expression for v reads.
  void sharedLeaves(ValueId v, std::set<ValueId>& out) {
    const ValueInfo& vi = info(v);
    if (vi.home == Home::Shared) {
      out.insert(v);
      return;
    }
    if (vi.home == Home::Inline || vi.home == Home::AccumAlias)
      for (ValueId in : producer(v).inputs) sharedLeaves(in, out);
  }

  // The accumulator an IntoAccum value writes.
  ValueId accumOf(ValueId v) const {
    return body_.ops[static_cast<size_t>(users_[static_cast<size_t>(v)][0])].results[0];
  }

  void touch(ValueId v, int pos) {
    ValueInfo& vi = info(v);
    if (vi.def < 0 || pos < vi.def) vi.def = pos;
    vi.last = std::max(vi.last, pos);
  }

  // Vector (16-byte) copies fit a tile when its rows and the tensor's rows
  // are whole vectors.
  bool vectorizable(const ir::Op& tileOp) {
    const ValueInfo& vi = info(tileOp.results[0]);
    const Shape& full = shape(tileOp.inputs[0]);
    const Shape& t = shape(tileOp.results[0]);
    int64_t vec = 16 / ir::dtypeBytes(dtype_);
    int64_t pitch = t.size() >= 2 ? vi.strides[t.size() - 2] : t.back();
    if (f32Tile(tileOp)) return false;  // (rare and small: per-split maxima)
    if (viewStrides(tileOp.inputs[0])) return false;  // a strided view: rows need not be aligned vectors
    return opt_.fastPaths && t.back() % vec == 0 && full.back() % vec == 0 && (t.size() < 2 || pitch % vec == 0);
  }

  // Marks tiles for hoisting and double buffering; true if any was marked.
  bool chooseStaging() {
    if (!opt_.fastPaths || loops() == 1) return false;
    bool any = false;
    for (const ir::Op& op : body_.ops) {
      if (op.kind != OpKind::Tile) continue;
      ValueInfo& vi = info(op.results[0]);
      if (op.fmap < 0) {
        vi.hoisted = true;
        fastPaths_.insert("loop-invariant tiles loaded once");
        any = true;
      } else if (opt_.smArch >= 80 && vectorizable(op)) {
        // (vectorizable is also what a bulk copy needs: every row is whole
        // 16-byte vectors at 16-byte aligned offsets on both sides.)
        vi.doubleBuffered = true;
        vi.stageElems = vi.bytes / ir::dtypeBytes(dtype_);
        vi.bytes *= 2;
        if (opt_.hopperPaths && opt_.smArch >= 90)
          tma_ = true;
        else
          fastPaths_.insert("cp.async double buffering");
        any = true;
      }
    }
    return any;
  }

  // The Hopper path: the deepest pipeline (at most 4 stages, at most one per
  // iteration) whose buffers and mbarriers fit the shared-memory limit: more
  // bytes in flight per SM for the memory-bound loops. False if even two do
  // not fit.
  bool chooseStages(int64_t limit) {
    for (int s = static_cast<int>(std::min<int64_t>(4, loops())); s >= 2; --s) {
      for (ValueInfo& vi : info_) {
        if (vi.doubleBuffered) vi.bytes = vi.stageElems * ir::dtypeBytes(dtype_) * s;
        vi.def = vi.last = -1;
        vi.offset = -1;
      }
      stages_ = s;
      computeLifetimes();
      int64_t bytes = (allocate() + 15) / 16 * 16 + 8 * s;
      if (bytes <= limit) return true;
    }
    return false;
  }

  // Bytes the bulk copies of one stage move (padding excluded).
  int64_t stageCopyBytes() {
    int64_t bytes = 0;
    for (const ir::Op& op : body_.ops)
      if (op.kind == OpKind::Tile && info(op.results[0]).doubleBuffered)
        bytes += ir::numElements(shape(op.results[0])) * ir::dtypeBytes(dtype_);
    return bytes;
  }

  void computeLifetimes() {
    // Staged tiles are written before or across loop iterations: they live
    // through the whole loop.
    // So are scans (the running maximum carries over from one iteration to
    // the next) and their rescale factors.
    for (size_t v = 0; v < body_.values.size(); ++v) {
      if (body_.ops[static_cast<size_t>(body_.values[v].op)].kind != OpKind::Scan || loops() == 1) continue;
      if (loopEnd_ == loopBegin_) continue;
      for (int b : {static_cast<int>(v), info_[v].rescaleFactors}) {
        if (b < 0) continue;
        touch(static_cast<ValueId>(b), static_cast<int>(loopBegin_));
        touch(static_cast<ValueId>(b), static_cast<int>(loopEnd_) - 1);
      }
    }
    for (size_t v = 0; v < info_.size(); ++v)
      if ((info_[v].hoisted || info_[v].doubleBuffered) && loopEnd_ > loopBegin_) {
        touch(static_cast<ValueId>(v), static_cast<int>(loopBegin_));
        touch(static_cast<ValueId>(v), static_cast<int>(loopEnd_) - 1);
      }
    for (size_t p = 0; p < stmts_.size(); ++p) {
      int pos = static_cast<int>(p);
      const Stmt& st = stmts_[p];
      const ir::Op& op = body_.ops[static_cast<size_t>(st.op)];
      if (st.kind != Stmt::Compute) {
        touch(op.results[0], pos);
        continue;
      }
      std::set<ValueId> reads;
      if (op.kind != OpKind::Tile)
        for (ValueId in : op.inputs) {
          // A matmul reads an operand copy instead of the value.
          if (op.kind == OpKind::Matmul && info(in).operandCopy >= 0)
            reads.insert(static_cast<ValueId>(info(in).operandCopy));
          else
            sharedLeaves(in, reads);
        }
      for (ValueId r : reads) touch(r, pos);
      if (!op.results.empty()) {
        ValueId v = op.results[0];
        if (info(v).operandCopy >= 0) touch(static_cast<ValueId>(info(v).operandCopy), pos);
        if (info(v).home == Home::IntoAccum) {
          ValueId acc = accumOf(v);
          if (!info(acc).registerAccum) touch(acc, pos);
        } else if (info(v).home == Home::Shared && !(op.kind == OpKind::Accum && info(v).registerAccum)) {
          touch(v, pos);
        }
      }
    }
  }

  // First-fit placement: a buffer takes the lowest 16-byte-aligned offset at
  // which it overlaps no buffer whose lifetime intersects its own, so tiles
  // that are dead by the time another is written share its space.
  int64_t allocate() {
    std::vector<ValueId> order;
    for (size_t v = 0; v < info_.size(); ++v)
      if (info_[v].home == Home::Shared && info_[v].def >= 0) order.push_back(static_cast<ValueId>(v));
    std::stable_sort(order.begin(), order.end(),
                     [&](ValueId a, ValueId b) { return info(a).bytes > info(b).bytes; });
    std::vector<ValueId> placed;
    int64_t total = 0;
    for (ValueId v : order) {
      ValueInfo& vi = info(v);
      int64_t offset = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (ValueId p : placed) {
          const ValueInfo& pi = info(p);
          bool liveTogether = vi.def <= pi.last && pi.def <= vi.last;
          bool overlap = offset < pi.offset + pi.bytes && pi.offset < offset + vi.bytes;
          if (liveTogether && overlap) {
            offset = (pi.offset + pi.bytes + 15) / 16 * 16;
            moved = true;
          }
        }
      }
      vi.offset = offset;
      placed.push_back(v);
      total = std::max(total, offset + vi.bytes);
    }
    return total;
  }

  // ---- expressions ---------------------------------------------------------

  std::string offsetOf(const ValueInfo& vi, const std::vector<std::string>& c) const {
    std::vector<std::string> terms;
    for (size_t d = 0; d < c.size(); ++d) {
      if (c[d] == "0") continue;
      terms.push_back(vi.strides[d] == 1 ? c[d] : fmt::format("({}) * {}", c[d], vi.strides[d]));
    }
    return terms.empty() ? "0" : fmt::format("{}", fmt::join(terms, " + "));
  }

  // Coordinates of an operand of shape `s` broadcast to coordinates `c` of a
  // result of larger or equal rank.
  static std::vector<std::string> broadcast(const Shape& s, const std::vector<std::string>& c) {
    std::vector<std::string> out(s.size());
    size_t shift = c.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d) out[d] = s[d] == 1 ? "0" : c[d + shift];
    return out;
  }

  std::string load(ValueId v, const std::vector<std::string>& c) {
    const ValueInfo& vi = info(v);
    std::string ref = fmt::format("{}[{}]", vi.var, offsetOf(vi, c));
    return vi.f32 ? ref : fmt::format("mg_f32({})", ref);
  }

  std::string expr(ValueId v, const std::vector<std::string>& c) {
    const ValueInfo& vi = info(v);
    const ir::Op& op = producer(v);
    switch (vi.home) {
      case Home::Shared: return load(v, c);
      case Home::Constant: return floatLiteral(op.scalar);
      case Home::AccumAlias: return expr(op.inputs[0], c);
      case Home::Inline: break;
      case Home::Argument:
      case Home::IntoAccum:
      case Home::None: throw std::logic_error("expr: a value that is not an expression");
    }
    if (op.kind == OpKind::Transpose) {
      std::vector<std::string> t = c;
      std::swap(t[static_cast<size_t>(op.dim)], t[static_cast<size_t>(op.dim1)]);
      return expr(op.inputs[0], t);
    }
    auto operand = [&](size_t i) {
      ValueId in = op.inputs[i];
      if (info(in).home == Home::Constant) return expr(in, {});
      return expr(in, broadcast(shape(in), c));
    };
    switch (op.kind) {
      case OpKind::Add: return fmt::format("({} + {})", operand(0), operand(1));
      case OpKind::Sub: return fmt::format("({} - {})", operand(0), operand(1));
      case OpKind::Mul: return fmt::format("({} * {})", operand(0), operand(1));
      case OpKind::Div: return fmt::format("({} / {})", operand(0), operand(1));
      case OpKind::Exp: return fmt::format("mg_exp({})", operand(0));
      case OpKind::Square: return fmt::format("mg_square({})", operand(0));
      case OpKind::Sqrt: return fmt::format("mg_sqrt({})", operand(0));
      case OpKind::Rsqrt: return fmt::format("mg_rsqrt({})", operand(0));
      case OpKind::Silu: return fmt::format("mg_silu({})", operand(0));
      case OpKind::Gelu: return fmt::format("mg_gelu({})", operand(0));
      case OpKind::Relu: return fmt::format("mg_relu({})", operand(0));
      case OpKind::Maximum: return fmt::format("mg_max({}, {})", operand(0), operand(1));
      case OpKind::Minimum: return fmt::format("mg_min({}, {})", operand(0), operand(1));
      case OpKind::Neg: return fmt::format("mg_neg({})", operand(0));
      case OpKind::Abs: return fmt::format("mg_abs({})", operand(0));
      case OpKind::Tanh: return fmt::format("mg_tanh({})", operand(0));
      case OpKind::Sigmoid: return fmt::format("mg_sigmoid({})", operand(0));
      case OpKind::Log: return fmt::format("mg_log({})", operand(0));
      MIRAGE_CASES_LEAF
      MIRAGE_CASES_CONTRACTION
      MIRAGE_CASES_REDUCTION
      MIRAGE_CASES_LAYOUT  // transpose: above
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND break;
    }
    throw std::logic_error(fmt::format("expr: '{}' is not an element-wise operator", ir::opName(op.kind)));
  }

  // Declares coordinate variables c<p>_<d> for linear index `index` over
  // `s`; dims of extent 1 have coordinate "0".
  std::vector<std::string> coords(const Shape& s, const std::string& index, const std::string& prefix,
                                  std::string& decl) {
    std::vector<std::string> c(s.size());
    int64_t inner = 1;
    for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
      int64_t e = s[static_cast<size_t>(d)];
      if (e == 1) {
        c[static_cast<size_t>(d)] = "0";
        continue;
      }
      std::string name = fmt::format("{}{}", prefix, d);
      std::string value = inner == 1 ? index : fmt::format("{} / {}", index, inner);
      bool outermost = true;
      for (int o = 0; o < d; ++o)
        if (s[static_cast<size_t>(o)] != 1) outermost = false;
      if (!outermost) value = fmt::format("({}) % {}", value, e);
      decl += fmt::format("const int {} = {}; ", name, value);
      c[static_cast<size_t>(d)] = name;
      inner *= e;
    }
    return c;
  }

  // How a statement writes element `c` of value v: into its shared buffer,
  // or combined into the accumulator it feeds.
  std::string write(ValueId v, const std::vector<std::string>& c, const std::string& x) {
    const ValueInfo& vi = info(v);
    if (vi.home == Home::IntoAccum) {
      ValueId acc = accumOf(v);
      const ValueInfo& ai = info(acc);
      std::string ref = fmt::format("{}[{}]", ai.var, offsetOf(ai, c));
      return accumulateInto(producer(acc), ref, c, x);
    }
    std::string ref = fmt::format("{}[{}]", vi.var, offsetOf(vi, c));
    if (vi.operandCopy >= 0) {
      // The f32 value, and its copy rounded for the tensor cores.
      const ValueInfo& ci = info_[static_cast<size_t>(vi.operandCopy)];
      return fmt::format("{{ const float mg_w = {}; {} = mg_w; mg_store(&{}[{}], mg_w); }}", x, ref, ci.var,
                         offsetOf(ci, c));
    }
    return vi.f32 ? fmt::format("{} = {};", ref, x) : fmt::format("mg_store(&{}, {});", ref, x);
  }

  // Operand v of a matmul at coordinates c, rounded to the program dtype as
  // the contract says (tensor cores multiply f16/bf16): read from its copy,
  // or from a buffer already in the dtype, or rounded here.
  std::string matmulOperand(ValueId v, const std::vector<std::string>& c) {
    const ValueInfo& vi = info(v);
    if (vi.operandCopy >= 0) {
      const ValueInfo& ci = info_[static_cast<size_t>(vi.operandCopy)];
      return fmt::format("mg_f32({}[{}])", ci.var, offsetOf(ci, c));
    }
    std::string x = expr(v, c);
    if (!lowPrecision() || (vi.home == Home::Shared && !vi.f32)) return x;
    return fmt::format("mg_f32({}({}))", dtype_ == ir::DType::F16 ? "__float2half_rn" : "__float2bfloat16_rn", x);
  }

  // ---- statements ----------------------------------------------------------

  std::string elementLoop(const Shape& s, const std::string& bodyText, const std::string& decl) {
    return fmt::format("    for (int i = threadIdx.x; i < {}; i += {}) {{\n{}      {}\n    }}\n",
                       ir::numElements(s), threads_, decl.empty() ? "" : "      " + decl + "\n", bodyText);
  }

  std::string argName(ValueId bodyInput) const {
    for (size_t i = 0; i < body_.inputs.size(); ++i)
      if (body_.inputs[i] == bodyInput) return fmt::format("g_arg{}", i);
    return "?";
  }

  // The element offset in the tiled tensor of tile coordinates `c` of tile
  // `op` in loop iteration `iter`.
  std::string sourceOffset(const ir::Op& op, const std::vector<std::string>& c, const std::string& iter) {
    const Shape& full = shape(op.inputs[0]);
    const Shape& t = shape(op.results[0]);
    size_t r = t.size();
    // Global coordinate of tile dim d: block offset along the grid dims that
    // split it, plus the loop offset when the for-loop walks it.
    auto globalCoords = [&](const std::vector<std::string>& c) {
      std::vector<std::string> gc;
      for (size_t d = 0; d < r; ++d) {
        std::vector<std::string> terms;
        if (c[d] != "0") terms.push_back(c[d]);
        for (int g = 0; g < 3; ++g)
          if (op.imap[g] == static_cast<int>(d) && cfg_.grid[static_cast<size_t>(g)] > 1)
            terms.push_back(full[d] == cfg_.grid[static_cast<size_t>(g)]
                                ? gridIndex(g)
                                : fmt::format("{} * {}LL", gridIndex(g), full[d] / cfg_.grid[static_cast<size_t>(g)]));
        if (op.fmap == static_cast<int>(d) && loops() > 1) terms.push_back(fmt::format("({}) * {}LL", iter, t[d]));
        gc.push_back(terms.empty() ? "0" : fmt::format("{}", fmt::join(terms, " + ")));
      }
      return gc;
    };
    const std::vector<int64_t>* view = viewStrides(op.inputs[0]);
    auto globalOffset = [&](const std::vector<std::string>& gc) {
      std::vector<std::string> terms;
      int64_t stride = 1;
      for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
        if (view) stride = (*view)[static_cast<size_t>(d)];
        if (gc[static_cast<size_t>(d)] != "0")
          terms.push_back(stride == 1 ? fmt::format("({})", gc[static_cast<size_t>(d)])
                                      : fmt::format("({}) * {}LL", gc[static_cast<size_t>(d)], stride));
        stride *= full[static_cast<size_t>(d)];
      }
      return terms.empty() ? std::string("0") : fmt::format("{}", fmt::join(terms, " + "));
    };
    return globalOffset(globalCoords(c));
  }

  // Loads tile `op` into `dst` for loop iteration `iter`; `async` leaves
  // cp.async copies in flight (the caller commits and waits).
  std::string emitTile(const ir::Op& op, const std::string& dst, const std::string& iter, bool async) {
    ValueId v = op.results[0];
    const ValueInfo& vi = info(v);
    const Shape& full = shape(op.inputs[0]);
    const Shape& t = shape(v);
    std::string src = fmt::format("    // {} = tile(arg {}), {} of {}\n", vi.var, argName(op.inputs[0]),
                                  ir::shapeToString(t), ir::shapeToString(full));
    int64_t vec = 16 / ir::dtypeBytes(dtype_);
    if (vectorizable(op)) {
      // 128-bit copies: each thread moves 16 bytes (cp.async on sm_80+).
      Shape vs = t;
      vs.back() /= vec;
      std::string decl;
      auto c = coords(vs, "i", "c", decl);
      c.back() = c.back() == "0" ? "0" : fmt::format("{} * {}", c.back(), vec);
      std::string copy = fmt::format("mg_copy16(&{}[{}], &{}[{}]);", dst, offsetOf(vi, c),
                                     argName(op.inputs[0]), sourceOffset(op, c, iter));
      src += elementLoop(vs, copy, decl);
      if (!async) src += "    mg_copy16_wait();\n";
      fastPaths_.insert(opt_.smArch >= 80 ? "cp.async 16-byte loads" : "16-byte vector loads");
      return src;
    }
    std::string decl;
    auto c = coords(t, "i", "c", decl);
    std::string copy = fmt::format("{}[{}] = {}[{}];", dst, offsetOf(vi, c), argName(op.inputs[0]),
                                   sourceOffset(op, c, iter));
    return src + elementLoop(t, copy, decl);
  }

  // The TMA bulk copies (issued by one thread) that load staged tile `op`
  // into `dst` for loop iteration `iter`, completing on mbarrier `bar`: one
  // copy per contiguous run, i.e. per row, or per block of rows where the
  // tile spans whole rows of the tensor and has no padding.
  std::string emitBulkTile(const ir::Op& op, const std::string& dst, const std::string& iter,
                           const std::string& bar) {
    ValueId v = op.results[0];
    const ValueInfo& vi = info(v);
    const Shape& full = shape(op.inputs[0]);
    const Shape& t = shape(v);
    size_t r = t.size(), k = r - 1;
    int64_t run = t.back();
    for (; k > 0; --k) {
      bool wholeInner = true;
      for (size_t j = k; j < r; ++j) wholeInner = wholeInner && t[j] == full[j];
      if (!wholeInner || vi.strides[k - 1] != run) break;
      run *= t[k - 1];
    }
    Shape outer(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(k));
    int64_t copies = ir::numElements(outer);
    int64_t bytes = run * ir::dtypeBytes(dtype_);
    std::string decl;
    auto c = coords(outer, "row", "c", decl);
    c.resize(r, "0");
    std::string copy = fmt::format("mg_bulk_copy_g2s(&{}[{}], &{}[{}], {}, {});", dst, offsetOf(vi, c),
                                   argName(op.inputs[0]), sourceOffset(op, c, iter), bytes, bar);
    std::string src = fmt::format("// {} = tile(arg {}), {} of {}: {} bulk cop{} of {} bytes\n", vi.var,
                                  argName(op.inputs[0]), ir::shapeToString(t), ir::shapeToString(full), copies,
                                  copies == 1 ? "y" : "ies", bytes);
    if (copies == 1) return src + copy + "\n";
    return src + fmt::format("for (int row = 0; row < {}; ++row) {{\n{}  {}\n}}\n", copies,
                             decl.empty() ? "" : "  " + decl + "\n", copy);
  }

  std::string emitPointwise(const ir::Op& op) {
    ValueId v = op.results[0];
    std::string decl;
    auto c = coords(shape(v), "i", "c", decl);
    // Evaluate the operator itself (not a load of its own buffer).
    ValueInfo saved = info(v);
    info(v).home = Home::Inline;
    std::string x = expr(v, c);
    info(v) = saved;
    return fmt::format("    // {} = {}{}\n", info(v).var, ir::opName(op.kind), ir::shapeToString(shape(v))) +
           elementLoop(shape(v), write(v, c, x), decl);
  }

  std::string emitAccumUpdate(const ir::Op& op) {
    ValueId acc = op.results[0];
    std::string decl;
    auto c = coords(shape(acc), "i", "c", decl);
    const ValueInfo& ai = info(acc);
    if (ai.registerAccum) {
      std::string reg = fmt::format("{}[j]", racc(acc));
      std::string x = expr(op.inputs[0], c);
      std::string upd = accumulateInto(op, reg, c, x);
      return fmt::format(
          "    // {} = accum({}) in registers: element threadIdx.x + j * {} of each thread\n"
          "#pragma unroll\n    for (int j = 0; j < {}; ++j) {{\n      const int i = threadIdx.x + j * {};\n"
          "      if (i < {}) {{\n        {}\n        {}\n      }}\n    }}\n",
          ai.var, accumKind(op), threads_, ai.regsPerThread, threads_, ir::numElements(shape(acc)), decl, upd);
    }
    std::string ref = fmt::format("{}[{}]", ai.var, offsetOf(ai, c));
    std::string x = expr(op.inputs[0], c);
    std::string upd = accumulateInto(op, ref, c, x);
    return fmt::format("    // {} = accum({})\n", ai.var, accumKind(op)) + elementLoop(shape(acc), upd, decl);
  }

  std::string accumKind(const ir::Op& op) {
    if (op.accumOp == ir::AccumOp::Max) return "max";
    return ir::isRescaledAccum(op) ? fmt::format("sum, rescaled by {}", info(op.inputs[1]).var) : "sum";
  }

  // scan(t, op=max): in iteration 0 the running maximum is t; later it is
  // the larger of itself and t (NaN wins, as in the interpreter), and the
  // factor exp(m_prev - m_new) for the accumulators it rescales is written
  // beside it (1 in iteration 0, where they start from 0).
  std::string emitScan(const ir::Op& op) {
    ValueId m = op.results[0];
    const ValueInfo& mi = info(m);
    std::string decl;
    auto c = coords(shape(m), "i", "c", decl);
    std::string ref = fmt::format("{}[{}]", mi.var, offsetOf(mi, c));
    std::string x = expr(op.inputs[0], c);
    std::string first = fmt::format("{} = mg_t;", ref), later = fmt::format("{} = mg_new;", ref);
    std::string head = fmt::format("    // {} = scan(max): the running maximum", mi.var);
    if (mi.rescaleFactors >= 0) {
      const ValueInfo& fi = info_[static_cast<size_t>(mi.rescaleFactors)];
      std::string fref = fmt::format("{}[{}]", fi.var, offsetOf(fi, c));
      first += fmt::format(" {} = 1.0f;", fref);
      later += fmt::format(" {} = mg_exp(mg_old - mg_new);", fref);
      head += fmt::format("; {} = exp(previous - new), the rescale factor", fi.var);
    }
    std::string body = fmt::format(
        "const float mg_t = {};\n"
        "      if (it == 0) {{\n        {}\n      }} else {{\n"
        "        const float mg_old = {}, mg_new = mg_max(mg_old, mg_t);\n        {}\n      }}",
        x, first, ref, later);
    return head + "\n" + elementLoop(shape(m), body, decl);
  }

  std::string emitAccumInit(const ir::Op& op) {
    ValueId acc = op.results[0];
    const ValueInfo& ai = info(acc);
    std::string init = op.accumOp == ir::AccumOp::Max ? "mg_neg_inf()" : "0.0f";
    return fmt::format("    // {} = accum: start at {}\n", ai.var, init) +
           elementLoop({static_cast<int64_t>(ai.bytes / 4)}, fmt::format("{}[i] = {};", ai.var, init), "");
  }

  std::string emitReduction(const ir::Op& op) {
    ValueId v = op.results[0];
    ValueId in = op.inputs[0];
    const Shape& so = shape(v);
    size_t d = static_cast<size_t>(op.dim);
    int64_t count = shape(in)[d] / op.size;
    bool isMax = op.kind == OpKind::ReduceMax;
    std::string init = isMax ? "mg_neg_inf()" : "0.0f";
    std::string decl;
    auto c = coords(so, "o", "c", decl);
    std::vector<std::string> ci = c;
    ci[d] = c[d] == "0" ? "j" : fmt::format("{} + {} * j", c[d], op.size);
    std::string step = isMax ? fmt::format("r = mg_max(r, {});", expr(in, ci)) : fmt::format("r += {};", expr(in, ci));
    std::string result = op.kind == OpKind::ReduceMean ? fmt::format("r / {}", floatLiteral(static_cast<double>(count))) : "r";
    std::string src = fmt::format("    // {} = {}(dim={}, size={}) over {} elements\n", info(v).var,
                                  ir::opName(op.kind), op.dim, op.size, count);
    // Across the innermost dim, one warp per output element: its lanes read
    // consecutive elements and meet in a butterfly of shuffles. Across an
    // outer dim the lanes would read one element a row apart, every one in
    // the same shared-memory bank (a 32-way conflict; QKNorm+GQA's key
    // norms, 16× the model on the H200), so there each thread sums one
    // output, and a warp's loads are consecutive outputs — unless too few
    // outputs would leave threads idle.
    const bool acrossRows = d + 1 < shape(in).size() && ir::numElements(so) >= threads_;
    if (opt_.fastPaths && warps_ > 0 && count >= 64 && !acrossRows) {
      fastPaths_.insert("warp-shuffle reductions");
      src += fmt::format(
          "    for (int o = threadIdx.x / 32; o < {}; o += {}) {{\n      {}\n      float r = {};\n"
          "      for (int j = threadIdx.x % 32; j < {}; j += 32) {}\n      r = {}(r);\n"
          "      if (threadIdx.x % 32 == 0) {{ {} }}\n    }}\n",
          ir::numElements(so), warps_, decl, init, count, step, isMax ? "mg_warp_max" : "mg_warp_sum",
          write(v, c, result));
      return src;
    }
    src += fmt::format(
        "    for (int o = threadIdx.x; o < {}; o += {}) {{\n      {}\n      float r = {};\n"
        "      for (int j = 0; j < {}; ++j) {}\n      {}\n    }}\n",
        ir::numElements(so), threads_, decl, init, count, step, write(v, c, result));
    return src;
  }

  // Batch coordinates of a matmul operand for output batch coordinates.
  std::vector<std::string> operandBatch(const Shape& operand, const std::vector<std::string>& outBatch) {
    Shape lead(operand.begin(), operand.end() - 2);
    return broadcast(lead, outBatch);
  }

  std::string emitMatmulSimple(const ir::Op& op) {
    ValueId v = op.results[0];
    ValueId a = op.inputs[0], b = op.inputs[1];
    const Shape& so = shape(v);
    int64_t k = shape(a).back();
    std::string decl;
    auto c = coords(so, "o", "c", decl);
    std::vector<std::string> batch(c.begin(), c.end() - 2);
    auto ca = operandBatch(shape(a), batch);
    ca.push_back(c[c.size() - 2]);
    ca.push_back("kk");
    auto cb = operandBatch(shape(b), batch);
    cb.push_back("kk");
    cb.push_back(c.back());
    return fmt::format(
        "    // {} = matmul{} (k = {}), one output element per thread\n"
        "    for (int o = threadIdx.x; o < {}; o += {}) {{\n      {}\n      float r = 0.0f;\n"
        "      for (int kk = 0; kk < {}; ++kk) r += {} * {};\n      {}\n    }}\n",
        info(v).var, ir::shapeToString(so), k, ir::numElements(so), threads_, decl, k, matmulOperand(a, ca),
        matmulOperand(b, cb), write(v, c, "r"));
  }

  // The tensor-core matmul of one warp tile: m16 x n8, accumulating the
  // whole k extent into fragment `frag` (float[4]).
  std::string mmaTile(const ir::Op& op, const std::string& tileIndex, const std::string& frag) {
    ValueId a = op.inputs[0], b = op.inputs[1];
    const Shape& so = shape(op.results[0]);
    size_t r = so.size();
    int64_t m = so[r - 2], n = so[r - 1], k = shape(a).back();
    int64_t tilesM = mmaTiles(so).tilesM, tilesN = n / 8;
    // Rows past m (when m is not a multiple of 16) read as zero.
    auto rowGuard = [&](const char* row) {
      return m % 16 == 0 ? std::string() : fmt::format("tm * 16 + {} < {} ? ", row, m);
    };
    auto rowElse = [&]() { return m % 16 == 0 ? std::string() : std::string(" : 0u"); };
    const ValueInfo& ai = operandInfo(a);
    const ValueInfo& bi = operandInfo(b);
    int64_t pa = ai.strides[ai.strides.size() - 2], pb = bi.strides[bi.strides.size() - 2];
    Shape batchShape(so.begin(), so.end() - 2);
    std::string decl;
    auto batch = coords(batchShape, fmt::format("({} / {})", tileIndex, tilesM * tilesN), "b", decl);
    auto ba = operandBatch(shape(a), batch), bb = operandBatch(shape(b), batch);
    std::vector<std::string> fa = ba, fb = bb;
    fa.push_back(fmt::format("tm * 16"));
    fa.push_back("0");
    fb.push_back("0");
    fb.push_back("tn * 8");
    std::string t = elementTypeName(dtype_);
    return fmt::format(
        "{}"
        "        const int tm = ({} / {}) % {}, tn = {} % {};\n"
        "        const unsigned short* A = reinterpret_cast<const unsigned short*>({}) + {};\n"
        "        const unsigned short* B = reinterpret_cast<const unsigned short*>({}) + {};\n"
        "        const int g = (threadIdx.x % 32) / 4, q = threadIdx.x % 4;\n"
        "        for (int k0 = 0; k0 < {}; k0 += 16) {{\n"
        "          unsigned fa[4], fb[2];\n"
        "          fa[0] = {g0}mg_ld2(A + g * {pa} + k0 + 2 * q){e};\n"
        "          fa[1] = {g8}mg_ld2(A + (g + 8) * {pa} + k0 + 2 * q){e};\n"
        "          fa[2] = {g0}mg_ld2(A + g * {pa} + k0 + 2 * q + 8){e};\n"
        "          fa[3] = {g8}mg_ld2(A + (g + 8) * {pa} + k0 + 2 * q + 8){e};\n"
        "          mg_ldmatrix_x2_trans(fb, B + (k0 + threadIdx.x % 16) * {pb});\n"
        "          mg_mma_m16n8k16_{}({frag}, fa, fb);\n"
        "        }}\n",
        decl.empty() ? "" : "        " + decl + "\n", tileIndex, tilesN, tilesM, tileIndex, tilesN, ai.var, offsetOf(ai, fa), bi.var,
        offsetOf(bi, fb), k, t == "__half" ? "f16" : "bf16", fmt::arg("pa", pa), fmt::arg("pb", pb),
        fmt::arg("g0", rowGuard("g")), fmt::arg("g8", rowGuard("g + 8")), fmt::arg("e", rowElse()),
        fmt::arg("frag", frag));
  }

  // One statement per element e of a warp tile's fragment (`stmt(e, c)`,
  // c the element's coordinates in the matmul result), skipping the rows
  // past m; tm, tn, g and q are in scope.
  template <typename F>
  std::string fragmentElements(const ir::Op& op, const std::string& tileIndex, F stmt) {
    const Shape& so = shape(op.results[0]);
    size_t r = so.size();
    int64_t m = so[r - 2], tilesM = mmaTiles(so).tilesM, tilesN = so[r - 1] / 8;
    Shape batchShape(so.begin(), so.end() - 2);
    std::string decl;
    auto batch = coords(batchShape, fmt::format("({} / {})", tileIndex, tilesM * tilesN), "b", decl);
    std::string src = decl.empty() ? "" : fmt::format("        {}\n", decl);
    for (int e = 0; e < 4; ++e) {
      if (m % 16 != 0)  // rows past m are padding
        src += fmt::format("        if (tm * 16 + g{} < {})\n  ", e >= 2 ? " + 8" : "", m);
      std::vector<std::string> c = batch;
      c.push_back(fmt::format("tm * 16 + g{}", e >= 2 ? " + 8" : ""));
      c.push_back(fmt::format("tn * 8 + 2 * q{}", e % 2 ? " + 1" : ""));
      src += fmt::format("        {}\n", stmt(e, c));
    }
    return src;
  }

  // Writes fragment `frag` of tile `tileIndex` through `write`.
  std::string fragmentStore(const ir::Op& op, const std::string& tileIndex, const std::string& frag,
                            ValueId target, bool intoAccumBuffer) {
    return fragmentElements(op, tileIndex, [&](int e, const std::vector<std::string>& c) {
      std::string x = fmt::format("{}[{}]", frag, e);
      if (!intoAccumBuffer) return write(target, c, x);
      const ValueInfo& ai = info(target);
      return fmt::format("{}[{}] = {};", ai.var, offsetOf(ai, c), x);
    });
  }

  std::string emitMatmulMma(const ir::Op& op) {
    ValueId v = op.results[0];
    const Shape& so = shape(v);
    size_t r = so.size();
    int64_t tiles = mmaTiles(so).total;
    int64_t tilesM = mmaTiles(so).tilesM, tilesN = so[r - 1] / 8;
    std::string head = fmt::format("    // {} = matmul{} on tensor cores: warps take 16x8 output tiles\n",
                                   info(v).var, ir::shapeToString(so));
    if (info(v).home == Home::IntoAccum && info(accumOf(v)).registerAccum &&
        ir::isRescaledAccum(producer(accumOf(v)))) {
      // Rescaled: this iteration's product in fresh fragments, then each
      // held element times its row's factor plus the product.
      ValueId acc = accumOf(v);
      const ir::Op& accOp = producer(acc);
      std::string combine = fragmentElements(op, "t", [&](int e, const std::vector<std::string>& c) {
        std::string ref = fmt::format("{}[j][{}]", racc(acc), e);
        return accumulateInto(accOp, ref, c, fmt::format("d[{}]", e));
      });
      return head + fmt::format(
          "    for (int j = 0; j < {}; ++j) {{\n      const int t = threadIdx.x / 32 + j * {};\n"
          "      if (t < {}) {{\n        float d[4] = {{0.0f, 0.0f, 0.0f, 0.0f}};\n        {{\n{}        }}\n"
          "        const int tm = (t / {}) % {}, tn = t % {};\n"
          "        const int g = (threadIdx.x % 32) / 4, q = threadIdx.x % 4;\n{}      }}\n    }}\n",
          info(acc).tilesPerWarp, warps_, tiles, indent(mmaTile(op, "t", "d"), 2), tilesN, tilesM, tilesN, combine);
    }
    if (info(v).home == Home::IntoAccum && info(accumOf(v)).registerAccum) {
      ValueId acc = accumOf(v);
      return head + fmt::format(
          "    for (int j = 0; j < {}; ++j) {{\n      const int t = threadIdx.x / 32 + j * {};\n"
          "      if (t < {}) {{\n{}      }}\n    }}\n",
          info(acc).tilesPerWarp, warps_, tiles, mmaTile(op, "t", fmt::format("{}[j]", racc(acc))));
    }
    return head + fmt::format(
        "    for (int t = threadIdx.x / 32; t < {}; t += {}) {{\n      float d[4] = {{0.0f, 0.0f, 0.0f, 0.0f}};\n"
        "      {{\n{}      }}\n      {{\n        const int tm = (t / {}) % {}, tn = t % {};\n"
        "        const int g = (threadIdx.x % 32) / 4, q = threadIdx.x % 4;\n{}      }}\n    }}\n",
        tiles, warps_, mmaTile(op, "t", "d"), tilesN, tilesM, tilesN, fragmentStore(op, "t", "d", v, false));
  }

  // Warp tiles (m16 x n8) of a tensor-core matmul result of shape `so`:
  // rows are rounded up to 16 (fragment rows past m are zero and not stored).
  struct MmaTiles {
    int64_t m, tilesM, tilesN, total;
  };
  static MmaTiles mmaTiles(const Shape& so) {
    size_t r = so.size();
    MmaTiles t;
    t.m = so[r - 2];
    t.tilesM = (t.m + 15) / 16;
    t.tilesN = so[r - 1] / 8;
    t.total = ir::numElements(so) / (so[r - 2] * so[r - 1]) * t.tilesM * t.tilesN;
    return t;
  }

  std::string racc(ValueId acc) { return "r_" + info(acc).var; }

  std::string emitSpill(const ir::Op& accOp) {
    ValueId acc = accOp.results[0];
    if (info(acc).regsPerThread > 0)
      return fmt::format(
          "    // {0} = accum: each thread's registers go to shared memory\n"
          "#pragma unroll\n    for (int j = 0; j < {1}; ++j) {{\n      const int i = threadIdx.x + j * {2};\n"
          "      if (i < {3}) {0}[i] = {4}[j];\n    }}\n",
          info(acc).var, info(acc).regsPerThread, threads_, ir::numElements(shape(acc)), racc(acc));
    ValueId mm = accOp.inputs[0];
    const ir::Op& op = producer(mm);
    const Shape& so = shape(mm);
    size_t r = so.size();
    int64_t tiles = mmaTiles(so).total;
    int64_t tilesM = mmaTiles(so).tilesM, tilesN = so[r - 1] / 8;
    return fmt::format(
        "    // {} = accum(sum): the fragments, summed over the loop, go to shared memory\n"
        "    for (int j = 0; j < {}; ++j) {{\n      const int t = threadIdx.x / 32 + j * {};\n"
        "      if (t < {}) {{\n        const int tm = (t / {}) % {}, tn = t % {};\n"
        "        const int g = (threadIdx.x % 32) / 4, q = threadIdx.x % 4;\n{}      }}\n    }}\n",
        info(acc).var, info(acc).tilesPerWarp, warps_, tiles, tilesN, tilesM, tilesN,
        fragmentStore(op, "t", fmt::format("{}[j]", racc(acc)), acc, true));
  }

  std::string emitSave(const ir::Op& op) {
    ValueId v = op.inputs[0];
    const Shape& t = shape(v);
    size_t r = t.size();
    Shape full = t;
    for (int g = 0; g < 3; ++g)
      if (op.omap[g] >= 0) full[static_cast<size_t>(op.omap[g])] *= cfg_.grid[static_cast<size_t>(g)];
    // Offset in the result of tile coordinates c: block g writes chunk
    // blockIdx.g of the dim omap maps it to.
    auto offsetIn = [&](const std::vector<std::string>& c) {
      std::vector<std::string> terms;
      int64_t stride = 1;
      for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
        std::vector<std::string> parts;
        if (c[static_cast<size_t>(d)] != "0") parts.push_back(c[static_cast<size_t>(d)]);
        for (int g = 0; g < 3; ++g)
          if (op.omap[g] == d && cfg_.grid[static_cast<size_t>(g)] > 1)
            parts.push_back(t[static_cast<size_t>(d)] == 1
                                ? gridIndex(g)
                                : fmt::format("{} * {}LL", gridIndex(g), t[static_cast<size_t>(d)]));
        if (!parts.empty())
          terms.push_back(stride == 1 ? fmt::format("({})", fmt::join(parts, " + "))
                                      : fmt::format("({}) * {}LL", fmt::join(parts, " + "), stride));
        stride *= full[static_cast<size_t>(d)];
      }
      return terms.empty() ? std::string("0") : fmt::format("{}", fmt::join(terms, " + "));
    };
    std::string out = fmt::format("g_res{}", op.resultIndex);
    std::string head = fmt::format("    // save into result {} ({} of {}{})\n", op.resultIndex, ir::shapeToString(t),
                                   ir::shapeToString(full), op.saveF32 ? ", kept in f32" : "");
    ir::DType stored = op.saveF32 ? ir::DType::F32 : dtype_;
    int64_t vec = 16 / ir::dtypeBytes(stored);
    if (opt_.fastPaths && t.back() % vec == 0 && full.back() % vec == 0) {
      // 16-byte stores: each thread converts one vector of the row and
      // writes it at once.
      fastPaths_.insert("16-byte stores");
      Shape vs = t;
      vs.back() /= vec;
      std::string decl;
      auto c = coords(vs, "i", "c", decl);
      std::string base = c.back() == "0" ? "0" : fmt::format("{} * {}", c.back(), vec);
      auto ce = c;
      ce.back() = base == "0" ? "e" : fmt::format("{} + e", base);
      auto cb = c;
      cb.back() = base;
      std::string body = fmt::format(
          "__align__(16) {} mg_v[{}];\n      for (int e = 0; e < {}; ++e) mg_store(&mg_v[e], {});\n"
          "      mg_store16(&{}[{}], mg_v);",
          elementTypeName(stored), vec, vec, expr(v, ce), out, offsetIn(cb));
      return head + elementLoop(vs, body, decl);
    }
    std::string decl;
    auto c = coords(t, "i", "c", decl);
    return head + elementLoop(t, fmt::format("mg_store(&{}[{}], {});", out, offsetIn(c), expr(v, c)), decl);
  }

  std::string emitStatement(const Stmt& st) {
    const ir::Op& op = body_.ops[static_cast<size_t>(st.op)];
    if (st.kind == Stmt::Init) return emitAccumInit(op);
    if (st.kind == Stmt::Spill) return emitSpill(op);
    switch (op.kind) {
      case OpKind::Tile: {
        const ValueInfo& vi = info(op.results[0]);
        if (vi.hoisted || vi.doubleBuffered) return "";
        return emitTile(op, vi.var, "it", false);
      }
      case OpKind::Save: return emitSave(op);
      case OpKind::Accum: return emitAccumUpdate(op);
      case OpKind::Scan: return emitScan(op);
      case OpKind::Matmul: return info(op.results[0]).mma ? emitMatmulMma(op) : emitMatmulSimple(op);
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::ReduceMax: return emitReduction(op);
      MIRAGE_CASES_BINARY
      MIRAGE_CASES_UNARY
      MIRAGE_CASES_LAYOUT return emitPointwise(op);
      MIRAGE_CASES_LEAF
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_SHORTHAND break;
    }
    throw std::logic_error(fmt::format("emitStatement: no statement for '{}'", ir::opName(op.kind)));
  }

  std::string emitFunction(const std::string& name, int64_t sharedBytes) {
    std::string t = elementTypeName(dtype_);
    std::vector<std::string> params;
    for (size_t i = 0; i < body_.inputs.size(); ++i)
      params.push_back(fmt::format("const {}* __restrict__ g_arg{}", argumentF32(body_.inputs[i]) ? "float" : t, i));
    for (size_t i = 0; i < kernel_.results.size(); ++i)
      params.push_back(fmt::format("{}* __restrict__ g_res{}", resultF32(i) ? "float" : t, i));
    std::string src = fmt::format("extern \"C\" __global__ void __launch_bounds__({})\n{}({}) {{\n", threads_,
                                  name, fmt::join(params, ", "));
    src += "  MG_DYNAMIC_SMEM(mg_smem);\n";
    if (sharedBytes == 0) src += "  (void)mg_smem;\n";
    for (size_t v = 0; v < info_.size(); ++v) {
      const ValueInfo& vi = info_[v];
      if (vi.home != Home::Shared || vi.def < 0) continue;
      std::string ty = vi.f32 ? "float" : t;
      src += fmt::format("  {0}* {5}{1} = reinterpret_cast<{0}*>(mg_smem + {2});  // {3}{6}, bytes [{2}, {4})\n", ty,
                         vi.var, vi.offset, ir::shapeToString(bufferShape(v)), vi.offset + vi.bytes,
                         vi.doubleBuffered ? "st_" : "", vi.doubleBuffered ? fmt::format(" x {} stages", stages_) : "");
    }
    if (tma_)
      src += fmt::format(
          "#if MG_HOPPER_PATH\n"
          "  unsigned long long* mg_stage_full = reinterpret_cast<unsigned long long*>(mg_smem + {0});  "
          "// {1} mbarriers, one per stage, bytes [{0}, {2})\n"
          "#endif\n",
          barrierOffset_, stages_, barrierOffset_ + 8 * stages_);
    for (size_t v = 0; v < info_.size(); ++v) {
      const ValueInfo& vi = info_[v];
      if (!vi.registerAccum) continue;
      if (vi.regsPerThread == 0) {
        src += fmt::format("  float {}[{}][4] = {{}};  // mma fragments of accum {}\n", racc(static_cast<ValueId>(v)),
                           vi.tilesPerWarp, vi.var);
        continue;
      }
      bool isMax = producer(static_cast<ValueId>(v)).accumOp == ir::AccumOp::Max;
      src += fmt::format("  float {0}[{1}];  // accum {2}: this thread's elements\n#pragma unroll\n"
                         "  for (int j = 0; j < {1}; ++j) {0}[j] = {3};\n",
                         racc(static_cast<ValueId>(v)), vi.regsPerThread, vi.var, isMax ? "mg_neg_inf()" : "0.0f");
    }
    for (size_t p = 0; p < loopBegin_; ++p) src += emitStatement(stmts_[p]) + "    __syncthreads();\n";
    if (tma_) return src + emitPipelinedLoop();
    // Prologue: loop-invariant tiles, and stage 0 of the double-buffered ones.
    std::string prologue, prefetch, stagePointers;
    for (const ir::Op& op : body_.ops) {
      if (op.kind != OpKind::Tile) continue;
      const ValueInfo& vi = info(op.results[0]);
      if (vi.hoisted) prologue += emitTile(op, vi.var, "0", false);
      if (!vi.doubleBuffered) continue;
      prologue += emitTile(op, "st_" + vi.var, "0", true);
      prefetch += emitTile(op, fmt::format("(st_{} + ((it + 1) & 1) * {})", vi.var, vi.stageElems), "it + 1", true);
      stagePointers += fmt::format("    {0}* {1} = st_{1} + (it & 1) * {2};\n", t, vi.var, vi.stageElems);
    }
    if (!prologue.empty()) {
      src += "  // Before the loop: tiles every iteration sees, and the first stage of the others.\n  {\n";
      src += prologue;
      src += stagePointers.empty() ? "    __syncthreads();\n" : "    mg_cp_async_commit();\n";
      src += "  }\n";
    }
    if (loops() > 1)
      src += fmt::format("  for (int it = 0; it < {}; ++it) {{\n", loops());
    else
      src += "  {\n";
    if (!stagePointers.empty()) {
      src += "    // Start loading the next iteration's tiles into the other stage, then wait\n"
             "    // for this iteration's (all copy groups but the newest).\n";
      src += fmt::format("    if (it + 1 < {}) {{\n", loops()) + prefetch + "    }\n";
      src += "    mg_cp_async_commit();\n    mg_cp_async_wait_1();\n    __syncthreads();\n";
      src += stagePointers;
    }
    return src + emitLoopRestAndAfter();
  }

  // The loop body's statements, the loop's end, and the statements after
  // the loop, to the end of the function.
  std::string emitLoopRestAndAfter() {
    std::string src;
    for (size_t p = loopBegin_; p < loopEnd_; ++p) {
      std::string st = emitStatement(stmts_[p]);
      if (!st.empty()) src += st + "    __syncthreads();\n";
    }
    src += "  }\n  {\n";
    for (size_t p = loopEnd_; p < stmts_.size(); ++p) {
      src += emitStatement(stmts_[p]);
      const ir::Op& op = body_.ops[static_cast<size_t>(stmts_[p].op)];
      if (op.kind != OpKind::Save) src += "    __syncthreads();\n";
    }
    src += "  }\n}\n";
    return src;
  }

  // Every line of `text` indented by `by` more spaces (preprocessor lines stay
  // at the margin).
  static std::string indent(const std::string& text, int by) {
    std::string out, pad(static_cast<size_t>(by), ' ');
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size() - 1;
      std::string line = text.substr(pos, end - pos + 1);
      out += (line[0] == '#' || line == "\n" ? "" : pad) + line;
      pos = end + 1;
    }
    return out;
  }

  // The Hopper path (tma_): the staged tiles of iteration it live in stage
  // it % S of an S-stage ring. On sm_90+ thread 0 fills a stage with TMA bulk
  // copies that complete on the stage's mbarrier; every thread waits for the
  // phase (it / S) of that barrier. Below sm_90 (MG_HOPPER_PATH 0) the same
  // stages are filled by cp.async, one commit group per iteration. Either
  // way a stage is refilled only at the start of the iteration after the one
  // that read it, behind that iteration's final __syncthreads().
  std::string emitPipelinedLoop() {
    const int S = stages_;
    const int64_t L = loops();
    const int64_t bytes = stageCopyBytes();
    std::string t = elementTypeName(dtype_);
    std::string hoisted, bulkFirst, bulkNext, asyncFirst, asyncNext, stagePointers;
    for (const ir::Op& op : body_.ops) {
      if (op.kind != OpKind::Tile) continue;
      const ValueInfo& vi = info(op.results[0]);
      if (vi.hoisted) hoisted += emitTile(op, vi.var, "0", false);
      if (!vi.doubleBuffered) continue;
      bulkFirst += emitBulkTile(op, fmt::format("(st_{} + p * {})", vi.var, vi.stageElems), "p", "&mg_stage_full[p]");
      bulkNext += emitBulkTile(op, fmt::format("(st_{} + next * {})", vi.var, vi.stageElems), "it + " + std::to_string(S - 1),
                               "&mg_stage_full[next]");
      asyncFirst += emitTile(op, fmt::format("(st_{} + p * {})", vi.var, vi.stageElems), "p", true);
      asyncNext += emitTile(op, fmt::format("(st_{} + ((it + {}) % {}) * {})", vi.var, S - 1, S, vi.stageElems),
                            "it + " + std::to_string(S - 1), true);
      stagePointers += fmt::format("    {0}* {1} = st_{1} + (it % {2}) * {3};\n", t, vi.var, S, vi.stageElems);
    }
    const std::string first = S == 2 ? "0" : fmt::format("0 .. {}", S - 2);  // the stages filled before the loop
    std::string src = fmt::format("  // Before the loop: tiles every iteration sees, and stage{} {} of the others.\n  {{\n",
                                  S == 2 ? "" : "s", first);
    src += hoisted;
    src += fmt::format(
        "#if MG_HOPPER_PATH\n"
        "    // Thread 0 initialises one mbarrier per stage (one arrival: its own\n"
        "    // arrive.expect_tx; the bulk copies complete the {0} bytes of a stage)\n"
        "    // and starts the TMA bulk copies of iteration{6} {1}.\n"
        "    if (threadIdx.x == 0) {{\n"
        "      for (int s = 0; s < {2}; ++s) mg_mbarrier_init(&mg_stage_full[s], 1);\n"
        "      mg_fence_mbarrier_init();\n"
        "      for (int p = 0; p < {3}; ++p) {{\n"
        "        mg_mbarrier_arrive_expect_tx(&mg_stage_full[p], {0});\n"
        "{4}"
        "      }}\n"
        "    }}\n"
        "    __syncthreads();  // no thread waits on a barrier before it is initialised\n"
        "#else\n"
        "    // Below sm_90: the same stages, filled by cp.async (one commit group per iteration).\n"
        "    for (int p = 0; p < {3}; ++p) {{\n"
        "{5}"
        "      mg_cp_async_commit();\n"
        "    }}\n"
        "#endif\n"
        "  }}\n",
        bytes, first, S, S - 1, indent(bulkFirst, 8), indent(asyncFirst, 2), S == 2 ? "" : "s");
    src += fmt::format("  for (int it = 0; it < {}; ++it) {{\n", L);
    src += fmt::format(
        "    // Stage it % {0} holds this iteration's tiles; the stage iteration it - 1\n"
        "    // read is refilled with iteration it + {1}'s while this one computes.\n"
        "#if MG_HOPPER_PATH\n"
        "    if (threadIdx.x == 0 && it + {1} < {2}) {{\n"
        "      const int next = (it + {1}) % {0};\n"
        "      mg_fence_proxy_async();  // the reads of that stage before the copies' writes\n"
        "      mg_mbarrier_arrive_expect_tx(&mg_stage_full[next], {3});\n"
        "{4}"
        "    }}\n"
        "    // Use it / {0} of this stage: its barrier's phase of that parity completes\n"
        "    // once all {3} bytes have landed.\n"
        "    mg_mbarrier_wait_parity(&mg_stage_full[it % {0}], (it / {0}) & 1);\n"
        "#else\n"
        "    if (it + {1} < {2}) {{\n"
        "{5}"
        "    }}\n"
        "    mg_cp_async_commit();\n"
        "    mg_cp_async_wait<{1}>();  // all copy groups but the {1} newest: this iteration's has landed\n"
        "    __syncthreads();\n"
        "#endif\n",
        S, S - 1, L, bytes, indent(bulkNext, 6), indent(asyncNext, 2));
    src += stagePointers;
    return src + emitLoopRestAndAfter();
  }
};

}  // namespace

std::string elementTypeName(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F16: return "__half";
    case ir::DType::BF16: return "__nv_bfloat16";
    case ir::DType::F32: return "float";
  }
  return "float";
}

int64_t sharedMemoryLimit(int smArch) {
  if (smArch >= 90) return 227 * 1024;
  if (smArch == 80 || smArch == 87) return 163 * 1024;
  if (smArch >= 80) return 99 * 1024;  // sm_86, sm_89
  return 48 * 1024;
}

KernelCode emitKernel(const ir::Op& kernel, ir::DType dtype, const std::string& functionName,
                      const EmitOptions& options, const std::vector<bool>& argF32,
                      const std::vector<std::vector<int64_t>>& argStrides) {
  return Emitter(kernel, dtype, options, argF32, argStrides).run(functionName);
}

}  // namespace mirage::codegen
