// The analytical cost model; docs/cost-model.md explains every formula and
// constant used here.
#include "mirage/backend/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mirage/codegen/lower.h"
#include "mirage/ir/layout.h"

namespace mirage::backend {

namespace {

using ir::Graph;
using ir::Op;
using ir::OpKind;

// CUDA-core cost of one element of an operator, in FLOPs (an FMA counts 2,
// a special-function instruction about 4: the SFU runs at 1/4 of the FMA rate).
double flopsPerElement(OpKind k) {
  switch (k) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Square:
    case OpKind::Relu:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Maximum:
    case OpKind::Minimum: return 1;
    case OpKind::Log: return 4;      // lg2 (SFU) and a multiply
    case OpKind::Tanh: return 8;     // tanhf: an exp and a divide
    case OpKind::Sigmoid: return 8;  // exp, add, divide
    case OpKind::Div: return 4;    // reciprocal (SFU) and a multiply
    case OpKind::Exp: return 4;    // ex2 (SFU) and a multiply
    case OpKind::Sqrt:
    case OpKind::Rsqrt: return 4;
    case OpKind::Silu: return 9;   // exp, add, divide
    case OpKind::Gelu: return 20;  // erf polynomial
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax: return 1;  // per input element
    case OpKind::Accum: return 1;  // the add (a rescale adds more: opWork)
    case OpKind::Scan: return 1;   // the running max: one compare per element
    case OpKind::Matmul: return 0;  // tensor-core work, counted by opWork
    case OpKind::Transpose:         // moves only
    MIRAGE_CASES_PROGRAM_LAYOUT     // moves only (views or copy kernels)
    MIRAGE_CASES_LEAF
    case OpKind::Kernel:
    case OpKind::Tile:
    case OpKind::Save: return 0;
    MIRAGE_CASES_SHORTHAND return 0;  // expanded after parsing: never here
  }
  return 0;
}

// Work of one block-level or program-level compute operator on the given
// value shapes: tensor-core FLOPs, CUDA-core FLOPs, and the elements it
// reads and writes (for shared-memory traffic).
struct OpWork {
  double tensorFlops = 0;
  double cudaFlops = 0;
  double elementsIn = 0;
  double elementsOut = 0;
};

OpWork opWork(const Graph& g, const Op& op, bool tensorCores) {
  OpWork w;
  if (op.results.empty()) return w;
  const ir::Shape& out = g.value(op.results[0]).shape;
  w.elementsOut = static_cast<double>(ir::numElements(out));
  for (ir::ValueId in : op.inputs)
    if (g.producer(in).kind != OpKind::Const)
      w.elementsIn += static_cast<double>(ir::numElements(g.value(in).shape));
  if (op.kind == OpKind::Matmul) {
    const ir::Shape& a = g.value(op.inputs[0]).shape;
    const int64_t m = out[out.size() - 2], n = out.back(), k = a.back();
    const double flops = 2.0 * w.elementsOut * static_cast<double>(k);
    // The generator uses mma.sync m16n8k16 when n and k are multiples of the
    // fragment (any m: fragment rows past m are zeros, computed and dropped,
    // so the tensor cores do the work of m rounded up to 16); otherwise the
    // plain CUDA-core loop.
    const bool fragments = n % 8 == 0 && k % 16 == 0;
    if (tensorCores && fragments)
      w.tensorFlops = flops * static_cast<double>((m + 15) / 16 * 16) / static_cast<double>(m);
    else
      w.cudaFlops = flops;
  } else if (ir::isReduction(op.kind)) {
    w.cudaFlops = w.elementsIn * flopsPerElement(op.kind);
  } else if (ir::isRescaledAccum(op)) {
    // accum(x, rescale=m), each iteration: acc = acc * exp(m_prev - m) + x.
    // The factor is one sub and one exp per element of m (a row's factor is
    // shared by the row), then a multiply and the add per accumulator element.
    const double mElems = static_cast<double>(ir::numElements(g.value(op.inputs[1]).shape));
    w.cudaFlops = w.elementsOut * (flopsPerElement(OpKind::Mul) + flopsPerElement(OpKind::Add)) +
                  mElems * (flopsPerElement(OpKind::Sub) + flopsPerElement(OpKind::Exp));
  } else {
    w.cudaFlops = w.elementsOut * flopsPerElement(op.kind);
  }
  return w;
}

// What one kernel launch does, before it is turned into time.
struct LaunchWork {
  std::string label;
  int64_t blocks = 1;
  int64_t threads = 128;
  int64_t smemPerBlock = 0;
  int64_t regsPerThread = 64;
  int64_t iterations = 1;     // dependent memory round trips per block (for-loop)
  double dramBytes = 0;       // device memory, whole kernel
  double blockLoadBytes = 0;  // loads + stores of one block
  double blockSmemBytes = 0;
  double blockTensorFlops = 0;
  double blockCudaFlops = 0;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A copy kernel (slice, concat): each result element read once from its
// operand and written once; no arithmetic.
LaunchWork copyWork(const Graph& g, const Op& op) {
  LaunchWork w;
  w.label = std::string(ir::opName(op.kind)) + " (copy)";
  codegen::CopyLaunch launch = codegen::copyKernelLaunch(g, op);
  w.blocks = launch.blocks;
  w.threads = launch.threads;
  const double outElems = static_cast<double>(ir::numElements(g.value(op.results[0]).shape));
  // The bytes read: the result's elements, at the operands' storage width
  // (a slice reads only what it keeps).
  double perElement = 0;
  for (ir::ValueId in : op.inputs) perElement = std::max<double>(perElement, ir::dtypeBytes(ir::storageDType(g, in)));
  w.dramBytes = outElems * (perElement + ir::dtypeBytes(g.dtype));
  w.blockLoadBytes = w.dramBytes / static_cast<double>(w.blocks);
  return w;
}

// A pre-defined operator, costed as the one kernel the code generator
// lowers it to: the grid, for-loop and tiles come from codegen's lowering
// itself (docs/cost-model.md, "Pre-defined operators").
LaunchWork predefinedWork(const Graph& g, const Op& op, const codegen::OperatorLaunch& launch,
                          int64_t threads) {
  LaunchWork w;
  w.label = std::string(ir::opName(op.kind));
  w.threads = threads;
  const int bytes = ir::dtypeBytes(g.dtype);
  const bool tensor = g.dtype != ir::DType::F32;
  OpWork work = opWork(g, op, tensor);
  const int64_t outElems = ir::numElements(g.value(op.results[0]).shape);
  double inBytes = 0;
  for (ir::ValueId in : op.inputs)  // an operand may be a kernel result kept in f32
    if (g.producer(in).kind != OpKind::Const)
      inBytes += static_cast<double>(ir::numElements(g.value(in).shape)) * ir::dtypeBytes(ir::storageDType(g, in));
  w.dramBytes = inBytes + static_cast<double>(outElems) * bytes;

  const ir::KernelConfig& cfg = launch.config;
  w.blocks = cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  w.iterations = cfg.forloop;
  // Operand tiles of one iteration, staged in shared memory (double-buffered
  // when the loop has more than one iteration), and what a block saves.
  int64_t tileElems = 0;
  for (const ir::Shape& t : launch.operandTiles) tileElems += ir::numElements(t);
  const int64_t outTileElems = ir::numElements(launch.outputTile);
  const int64_t buffers = w.iterations > 1 ? 2 : 1;
  const double blockIn = static_cast<double>(tileElems * w.iterations) * bytes;
  if (op.kind == OpKind::Matmul) {
    // Staged operand tiles and an f32 accumulator of the output tile.
    w.smemPerBlock = buffers * tileElems * bytes + outTileElems * 4;
    w.regsPerThread = 96;
    w.blockLoadBytes = blockIn + static_cast<double>(outTileElems) * bytes;
    w.blockSmemBytes = 2 * blockIn;  // each staged element written once, read once
  } else if (ir::isReduction(op.kind)) {
    // The input tile and an f32 accumulator of the block's outputs.
    w.smemPerBlock = buffers * tileElems * bytes + outTileElems * 4;
    w.blockLoadBytes = w.dramBytes / static_cast<double>(w.blocks);
    w.blockSmemBytes = 2 * blockIn;
  } else {
    // Element-wise and transpose: operand tiles and the result, one pass.
    w.smemPerBlock = (tileElems + outTileElems) * bytes;
    w.blockLoadBytes = w.dramBytes / static_cast<double>(w.blocks);
    w.blockSmemBytes = static_cast<double>(w.smemPerBlock) * 2;
  }
  w.blockTensorFlops = work.tensorFlops / static_cast<double>(w.blocks);
  w.blockCudaFlops = work.cudaFlops / static_cast<double>(w.blocks);
  return w;
}

// A custom kernel: its grid, its body per iteration and after the loop.
LaunchWork kernelWork(const Graph& g, const Op& op, const ArchSpec& arch, int64_t defaultThreads) {
  LaunchWork w;
  w.label = "kernel";
  const ir::KernelConfig& cfg = op.config;
  const Graph& body = *op.body;
  const int bytes = ir::dtypeBytes(g.dtype);
  const bool tensor = g.dtype != ir::DType::F32;
  const double forloop = static_cast<double>(cfg.forloop);
  w.blocks = cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  w.threads = cfg.block > 0 ? cfg.block : defaultThreads;
  w.iterations = cfg.forloop;
  const double blocks = static_cast<double>(w.blocks);

  // Loads: per argument, bytes all blocks load, to split unique device-memory
  // reads from re-reads that L2 serves. An argument that is a kernel result
  // saved with dtype=f32 is 4 bytes an element, in memory and in its tiles.
  std::vector<double> argLoaded(body.inputs.size(), 0);
  auto argBytes = [&](size_t i) {
    return i < op.inputs.size() ? ir::dtypeBytes(ir::storageDType(g, op.inputs[i])) : bytes;
  };
  // Which body values are computed after the loop (depend on an accum); one
  // forward pass, as values are in topological order.
  std::vector<char> afterLoopValue(body.values.size(), 0);
  for (const Op& b : body.ops) {
    bool after = b.kind == OpKind::Accum;  // a scan runs in the loop, like its operand
    for (ir::ValueId in : b.inputs) after = after || afterLoopValue[static_cast<size_t>(in)];
    for (ir::ValueId r : b.results) afterLoopValue[static_cast<size_t>(r)] = after;
  }
  int64_t smem = 0;
  double accumRegisterFloats = 0;
  bool hasMatmul = false;
  for (const Op& b : body.ops) {
    if (b.kind == OpKind::Input || b.kind == OpKind::Const) continue;
    if (b.kind == OpKind::Tile) {
      auto arg = std::find(body.inputs.begin(), body.inputs.end(), b.inputs[0]);
      const size_t argIndex = static_cast<size_t>(arg - body.inputs.begin());
      const double tileBytes = static_cast<double>(ir::numElements(body.value(b.results[0]).shape)) *
                               (arg != body.inputs.end() ? argBytes(argIndex) : bytes);
      const double perBlock = b.fmap >= 0 ? tileBytes * forloop : tileBytes;
      w.blockLoadBytes += perBlock;
      w.blockSmemBytes += perBlock;  // written into shared memory once
      // Loop-split tiles are double-buffered across iterations.
      smem += static_cast<int64_t>(tileBytes) * (b.fmap >= 0 && cfg.forloop > 1 ? 2 : 1);
      if (arg != body.inputs.end()) argLoaded[argIndex] += perBlock * blocks;
      continue;
    }
    if (b.kind == OpKind::Save) {
      // save(..., dtype=f32) writes 4 bytes an element whatever the dtype.
      const bool f32 = b.saveF32 || (b.resultIndex >= 0 && static_cast<size_t>(b.resultIndex) < op.results.size() &&
                                     ir::storageDType(g, op.results[static_cast<size_t>(b.resultIndex)]) ==
                                         ir::DType::F32);
      const double saveBytes =
          static_cast<double>(ir::numElements(body.value(b.inputs[0]).shape)) * (f32 ? 4 : bytes);
      w.blockLoadBytes += saveBytes;
      w.dramBytes += saveBytes * blocks;  // no two blocks write the same element
      continue;
    }
    if (b.results.empty()) continue;
    // An accum's value exists after the loop, but its fold (and a rescale)
    // runs every iteration.
    const bool afterLoop = afterLoopValue[static_cast<size_t>(b.results[0])] != 0 && b.kind != OpKind::Accum;
    const double times = afterLoop ? 1.0 : forloop;
    OpWork work = opWork(body, b, tensor);
    w.blockTensorFlops += work.tensorFlops * times;
    w.blockCudaFlops += work.cudaFlops * times;
    const double outElems = work.elementsOut;
    if (b.kind == OpKind::Accum) {
      // f32 accumulators live in registers while they fit, else in shared memory.
      accumRegisterFloats += outElems;
      continue;
    }
    if (b.kind == OpKind::Scan) {
      // The running max and the previous iteration's (for the rescale
      // factors) are f32 state carried across iterations, as accumulators.
      accumRegisterFloats += 2 * outElems;
      continue;
    }
    hasMatmul = hasMatmul || b.kind == OpKind::Matmul;
    // Operands read from shared memory, result written back (an upper bound:
    // fused element-wise chains stay in registers).
    w.blockSmemBytes += (work.elementsIn + outElems) * bytes * times;
    smem += static_cast<int64_t>(outElems) * bytes;
  }
  const double accumPerThread = accumRegisterFloats / static_cast<double>(w.threads);
  if (accumPerThread > 128) {
    smem += static_cast<int64_t>(accumRegisterFloats) * 4;
    w.regsPerThread = 64 + (hasMatmul ? 32 : 0);
  } else {
    w.regsPerThread = 40 + static_cast<int64_t>(std::ceil(accumPerThread)) + (hasMatmul ? 32 : 0);
  }
  w.regsPerThread = std::min<int64_t>(w.regsPerThread, arch.maxRegsPerThread);
  // The generator reuses dead tiles; what does not fit is its to reject.
  w.smemPerBlock = std::min<int64_t>(smem, arch.smemBytesPerBlock);

  // Unique reads, plus re-reads that miss L2 once an argument outgrows half of it.
  const double halfL2 = static_cast<double>(arch.l2Bytes) / 2;
  for (size_t i = 0; i < body.inputs.size() && i < op.inputs.size(); ++i) {
    if (argLoaded[i] == 0) continue;
    const double full = static_cast<double>(ir::numElements(g.value(op.inputs[i]).shape)) * argBytes(i);
    const double spill = std::clamp((full - halfL2) / halfL2, 0.0, 1.0);
    w.dramBytes += full + std::max(0.0, argLoaded[i] - full) * spill;
  }
  return w;
}

KernelCost toCost(int opIndex, const LaunchWork& w, const ArchSpec& arch) {
  KernelCost c;
  c.op = opIndex;
  c.label = w.label;
  c.blocks = w.blocks;
  c.threadsPerBlock = w.threads;
  c.smemBytesPerBlock = w.smemPerBlock;
  c.regsPerThread = w.regsPerThread;

  // Occupancy: the tightest of the per-SM limits, at least one block.
  int64_t perSM = arch.maxBlocksPerSM;
  perSM = std::min<int64_t>(perSM, arch.maxThreadsPerSM / std::max<int64_t>(1, w.threads));
  if (w.smemPerBlock > 0) perSM = std::min<int64_t>(perSM, arch.smemBytesPerSM / w.smemPerBlock);
  perSM = std::min<int64_t>(perSM, arch.regsPerSM / std::max<int64_t>(1, w.regsPerThread * w.threads));
  c.blocksPerSM = std::max<int64_t>(1, perSM);

  // Blocks on the busiest SM, and the rounds ("waves") they run in.
  const int64_t busiest = ceilDiv(w.blocks, arch.numSMs);
  c.waves = ceilDiv(busiest, c.blocksPerSM);
  const int64_t resident = std::min(c.blocksPerSM, busiest);
  const double warps = static_cast<double>(resident * ceilDiv(w.threads, 32));
  // Enough warps in flight hide latency: 8 warps per SM for loads and
  // CUDA-core math, 4 (one per scheduler) for tensor cores.
  const double busyMem = std::min(1.0, warps / 8);
  const double busyTensor = std::min(1.0, warps / 4);
  const double sms = arch.numSMs;
  const double b = static_cast<double>(busiest);

  c.dramBytes = w.dramBytes;
  c.loadBytes = w.blockLoadBytes * static_cast<double>(w.blocks);
  c.smemBytes = w.blockSmemBytes * static_cast<double>(w.blocks);
  c.tensorFlops = w.blockTensorFlops * static_cast<double>(w.blocks);
  c.cudaFlops = w.blockCudaFlops * static_cast<double>(w.blocks);

  // GB/s and TFLOP/s into bytes and FLOPs per microsecond.
  const double dramRate = arch.dramBandwidthGBs * 1e3;
  const double l2Rate = arch.l2BandwidthGBs * 1e3;
  const double l2PerSM = l2Rate / sms;
  const double tensorPerSM = arch.tensorTflops * arch.mmaSyncFraction * 1e6 / sms;
  const double cudaPerSM = arch.fp32Tflops * 1e6 / sms;
  const double smemPerSM = arch.smemBandwidthGBsPerSM() * 1e3;

  c.memoryUs = std::max({c.dramBytes / dramRate, c.loadBytes / l2Rate,
                         b * w.blockLoadBytes / (l2PerSM * busyMem)});
  c.computeUs = b * w.blockTensorFlops / (tensorPerSM * busyTensor) +
                b * w.blockCudaFlops / (cudaPerSM * busyMem);
  c.sharedUs = b * w.blockSmemBytes / (smemPerSM * busyMem);
  // Each round of blocks pays a dependent round trip to memory per loop
  // iteration, plus one for the final store.
  c.latencyUs = static_cast<double>(c.waves) * static_cast<double>(w.iterations + 1) * arch.memLatencyUs;
  c.launchUs = arch.launchOverheadUs;

  struct Part {
    const char* name;
    double us;
  };
  Part parts[] = {{"memory", c.memoryUs}, {"compute", c.computeUs}, {"shared", c.sharedUs},
                  {"latency", c.latencyUs}};
  const Part* worst = std::max_element(std::begin(parts), std::end(parts),
                                       [](const Part& x, const Part& y) { return x.us < y.us; });
  c.totalUs = c.launchUs + worst->us;
  c.bound = worst->us >= c.launchUs ? worst->name : "launch";
  return c;
}

}  // namespace

double kernelFloorUs(const KernelFloor& floor, const ArchSpec& arch, const CostOptions& options) {
  LaunchWork w;
  w.blocks = std::max<int64_t>(1, floor.blocks);
  w.threads = options.defaultThreads;
  w.iterations = std::max<int64_t>(1, floor.forloop);
  w.dramBytes = floor.dramBytes;
  w.blockLoadBytes = floor.blockLoadBytes;
  w.blockSmemBytes = floor.blockSmemBytes;
  w.smemPerBlock = std::min<int64_t>(floor.smemPerBlock, arch.smemBytesPerBlock);
  // The fewest registers kernelWork gives a custom kernel (no accumulator,
  // no matmul): more registers only lower occupancy.
  w.regsPerThread = 40;
  (floor.tensorCores ? w.blockTensorFlops : w.blockCudaFlops) += floor.blockMatmulFlops;
  for (const auto& [kind, elements] : floor.blockElements) w.blockCudaFlops += elements * flopsPerElement(kind);
  return toCost(-1, w, arch).totalUs;
}

double launchesFloorUs(int launches, double dramBytes, const ArchSpec& arch, int64_t loopSteps) {
  if (launches <= 0) return 0;
  // Per launch: launch + max(memory, compute, shared, latency) with latency
  // waves * (forloop + 1) round trips, at least two (forloop >= 1, waves >=
  // 1), and forloop + 1 for the launch with `loopSteps` steps; summed over
  // the launches, the maxima are at least the sum of either term.
  const double n = launches;
  const double latency = (n * 2 + static_cast<double>(std::max<int64_t>(1, loopSteps) - 1)) * arch.memLatencyUs;
  const double memory = dramBytes / (arch.dramBandwidthGBs * 1e3);
  return n * arch.launchOverheadUs + std::max(latency, memory);
}

CostEstimate estimateCost(const ir::Graph& program, const ArchSpec& arch,
                          const CostOptions& options) {
  CostEstimate e;
  e.arch = arch.name;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (op.kind == OpKind::Input || op.kind == OpKind::Const) continue;
    if (op.kind == OpKind::Kernel && !op.body) continue;  // not a legal graph; nothing to run
    LaunchWork w;
    if (ir::isLayoutOp(op.kind)) {
      if (codegen::isViewOp(program, op)) continue;  // a view: no launch, no bytes
      w = copyWork(program, op);
    } else if (op.kind == OpKind::Kernel) {
      w = kernelWork(program, op, arch, options.defaultThreads);
    } else {
      codegen::OperatorLaunch launch;
      // An operator the generator cannot lower has no kernel to cost: the
      // program cannot be emitted, so it ranks behind every one that can.
      if (!codegen::lowerOperatorLaunch(program, op, launch).empty()) {
        e.totalUs = std::numeric_limits<double>::infinity();
        continue;
      }
      w = predefinedWork(program, op, launch, options.defaultThreads);
    }
    e.kernels.push_back(toCost(static_cast<int>(i), w, arch));
    e.totalUs += e.kernels.back().totalUs;
  }
  return e;
}

nlohmann::json costToJson(const CostEstimate& estimate) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelCost& k : estimate.kernels) {
    kernels.push_back({
        {"op", k.op},
        {"label", k.label},
        {"blocks", k.blocks},
        {"threads_per_block", k.threadsPerBlock},
        {"smem_bytes_per_block", k.smemBytesPerBlock},
        {"regs_per_thread", k.regsPerThread},
        {"blocks_per_sm", k.blocksPerSM},
        {"waves", k.waves},
        {"dram_bytes", k.dramBytes},
        {"load_bytes", k.loadBytes},
        {"smem_bytes", k.smemBytes},
        {"tensor_flops", k.tensorFlops},
        {"cuda_flops", k.cudaFlops},
        {"memory_us", k.memoryUs},
        {"compute_us", k.computeUs},
        {"shared_us", k.sharedUs},
        {"latency_us", k.latencyUs},
        {"launch_us", k.launchUs},
        {"total_us", k.totalUs},
        {"bound", k.bound},
    });
  }
  return {{"arch", estimate.arch}, {"predicted_us", estimate.totalUs}, {"kernels", kernels}};
}

}  // namespace mirage::backend
