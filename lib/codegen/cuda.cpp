// Assembles the .cu file: header comment, device helpers, one __global__
// function per distinct kernel (launches of the same code share it), and the
// C-linkage entry points that launch them in program order with
// intermediates placed in the caller's workspace.
#include "mirage/codegen/cuda.h"

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "copy_kernel.h"
#include "device_helpers.h"
#include "kernel_emitter.h"
#include "mirage/codegen/lower.h"
#include "mirage/ir/layout.h"
#include "mirage/ir/printer.h"

#ifndef MIRAGE_VERSION
#define MIRAGE_VERSION "unknown"
#endif

namespace mirage::codegen {
namespace {

constexpr int64_t kWorkspaceAlign = 256;

std::string commentLines(const std::string& text, const std::string& indent) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += "//" + indent + line + "\n";
  return out;
}

std::string tensorLine(const ir::Graph& g, ir::ValueId v) {
  return fmt::format("{} {}{}", g.value(v).name, ir::dtypeName(ir::storageDType(g, v)),
                     ir::shapeToString(g.value(v).shape));
}

// Launches whose code is the same share one __global__ function: chained
// layers repeat their kernels at the same shapes (a four-layer chain's 104
// launches are 20 distinct kernels), and NVRTC's time grows with the
// functions it compiles. Two kernels are the same when their sources are
// equal with each one's own name blanked out (the emitter writes the
// function's name into its source and nothing else that differs by launch).
class SharedFunctions {
 public:
  // The function that runs `source`, emitted under the name `fname`: an
  // earlier launch's with the same code, else fname itself (then `*isNew`).
  std::string functionFor(const std::string& source, const std::string& fname, bool* isNew) {
    std::string key = source;
    for (size_t pos = 0; (pos = key.find(fname, pos)) != std::string::npos;) key.replace(pos, fname.size(), "\x01");
    auto [it, inserted] = byCode_.try_emplace(std::move(key), fname);
    *isNew = inserted;
    return it->second;
  }
  int count() const { return static_cast<int>(byCode_.size()); }

 private:
  std::map<std::string, std::string> byCode_;  // code with its name blanked -> function
};

}  // namespace

Result generateCuda(const ir::Graph& program, const Options& options) {
  Result res;
  std::string name = program.name.empty() ? "main" : program.name;
  res.entryName = "mirage_" + name;
  ir::Graph lowered;
  if (std::string e = lowerToKernels(program, lowered); !e.empty()) {
    res.error = e;
    return res;
  }
  const std::string type = elementTypeName(program.dtype);
  EmitOptions eo;
  eo.smArch = options.smArch;
  eo.fastPaths = options.fastPaths;
  eo.defaultThreads = options.defaultThreads;
  eo.hopperPaths = options.hopperPaths;

  // Where every program-level tensor lives: an input, an output, or the
  // workspace. The first output slot of a kernel result is written in place;
  // outputs that are inputs or repeat a value are copied at the end.
  std::vector<std::string> var(lowered.values.size());
  std::string pointers, copies;
  // The launch plan (docs/backend.md) says the same as `// mirage-plan`
  // lines, so the backend can replay the launches from NVRTC output:
  // kernel arguments and copy sources as "inN", "outN" or "ws+B".
  std::vector<std::string> planArg(lowered.values.size());
  std::string planLaunches, planCopies;
  for (size_t i = 0; i < lowered.inputs.size(); ++i) {
    ir::ValueId v = lowered.inputs[i];
    var[static_cast<size_t>(v)] = fmt::format("in{}", i);
    planArg[static_cast<size_t>(v)] = var[static_cast<size_t>(v)];
    pointers += fmt::format("  const {0}* in{1} = static_cast<const {0}*>(inputs[{1}]);  // {2}\n", type, i,
                            tensorLine(lowered, v));
  }
  std::vector<bool> inPlace(lowered.values.size(), false);
  for (size_t j = 0; j < lowered.outputs.size(); ++j) {
    ir::ValueId v = lowered.outputs[j];
    pointers += fmt::format("  {0}* out{1} = static_cast<{0}*>(outputs[{1}]);  // {2}\n", type, j,
                            tensorLine(lowered, v));
    // Kernels and copy kernels write their result; a view (reshape) is
    // another name for its operand's buffer and is copied like an input.
    const ir::Op& producer = lowered.producer(v);
    bool fromKernel = producer.kind == ir::OpKind::Kernel ||
                      (ir::isLayoutOp(producer.kind) && !isViewOp(lowered, producer));
    if (fromKernel && !inPlace[static_cast<size_t>(v)]) {
      inPlace[static_cast<size_t>(v)] = true;
      var[static_cast<size_t>(v)] = fmt::format("out{}", j);
      planArg[static_cast<size_t>(v)] = var[static_cast<size_t>(v)];
    } else {
      planCopies += fmt::format("// mirage-plan copy out{} @{}@ {}\n", j, v,
                                ir::numElements(lowered.value(v).shape) * ir::dtypeBytes(program.dtype));
      copies += fmt::format(
          "  err = cudaMemcpyAsync(out{}, {}, {}, cudaMemcpyDeviceToDevice, stream);\n"
          "  if (err != cudaSuccess) return static_cast<int>(err);\n",
          j, "@" + std::to_string(v) + "@",
          ir::numElements(lowered.value(v).shape) * ir::dtypeBytes(program.dtype));
    }
  }
  int64_t workspace = 0;
  std::string kernels, launches;
  SharedFunctions functions;
  std::vector<std::string> tmaLaunches;  // "launch N (S stages)" of kernels on the Hopper path
  int index = 0;
  // A workspace slot for result r unless it already has a home (an output).
  auto place = [&](ir::ValueId r) {
    if (!var[static_cast<size_t>(r)].empty()) return;
    var[static_cast<size_t>(r)] = fmt::format("ws{}", r);
    planArg[static_cast<size_t>(r)] = fmt::format("ws+{}", workspace);
    ir::DType stored = ir::storageDType(lowered, r);
    pointers += fmt::format("  {0}* ws{1} = reinterpret_cast<{0}*>(static_cast<unsigned char*>(workspace) + {2});  // {3}\n",
                            elementTypeName(stored), r, workspace, tensorLine(lowered, r));
    workspace += (ir::numElements(lowered.value(r).shape) * ir::dtypeBytes(stored) + kWorkspaceAlign - 1) /
                 kWorkspaceAlign * kWorkspaceAlign;
  };
  // Per value that is a slice read in place: its strides (its operand's,
  // row-major), for the kernels that tile it.
  std::vector<std::vector<int64_t>> viewStrides(lowered.values.size());
  for (const ir::Op& op : lowered.ops) {
    if (ir::isLayoutOp(op.kind) && isViewOp(lowered, op)) {
      ir::ValueId r = op.results[0], in = op.inputs[0];
      if (op.kind == ir::OpKind::Reshape) {
        // reshape of a dense row-major tensor: the same buffer, no launch.
        var[static_cast<size_t>(r)] = var[static_cast<size_t>(in)];
        planArg[static_cast<size_t>(r)] = planArg[static_cast<size_t>(in)];
        continue;
      }
      // slice: the operand's buffer from the first element kept, with the
      // operand's strides; no launch.
      const ir::Shape& full = lowered.value(in).shape;
      std::vector<int64_t> strides(full.size(), 1);
      for (size_t d = full.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * full[d + 1];
      int64_t offset = op.start * strides[static_cast<size_t>(op.dim)];
      int64_t bytes = offset * ir::dtypeBytes(program.dtype);
      var[static_cast<size_t>(r)] = fmt::format("({} + {})", var[static_cast<size_t>(in)], offset);
      const std::string& base = planArg[static_cast<size_t>(in)];
      if (base.rfind("ws+", 0) == 0)
        planArg[static_cast<size_t>(r)] = fmt::format("ws+{}", std::stoll(base.substr(3)) + bytes);
      else
        planArg[static_cast<size_t>(r)] = bytes ? fmt::format("{}+{}", base, bytes) : base;
      viewStrides[static_cast<size_t>(r)] = std::move(strides);
      continue;
    }
    if (ir::isLayoutOp(op.kind)) {
      std::string fname = fmt::format("{}_k{}", res.entryName, index);
      std::vector<ir::DType> inTypes;
      for (ir::ValueId in : op.inputs) inTypes.push_back(ir::storageDType(lowered, in));
      CopyKernelCode cc = emitCopyKernel(lowered, op, fname, inTypes, program.dtype);
      place(op.results[0]);
      bool isNew = false;
      fname = functions.functionFor(cc.source, fname, &isNew);
      kernels += fmt::format("\n// launch {}: {} = {}(...), a copy kernel{}\n", index,
                             lowered.value(op.results[0]).name.empty()
                                 ? fmt::format("(value {})", op.results[0])
                                 : lowered.value(op.results[0]).name,
                             ir::opName(op.kind), isNew ? "" : fmt::format(": runs {}", fname)) +
                 (isNew ? cc.source : std::string());
      std::vector<std::string> args;
      for (ir::ValueId in : op.inputs) args.push_back("@" + std::to_string(in) + "@");
      args.push_back("@" + std::to_string(op.results[0]) + "@");
      launches += fmt::format(
          "  // launch {}\n  MG_LAUNCH({}, dim3({}), dim3({}), 0, stream, {});\n"
          "  err = cudaGetLastError();\n  if (err != cudaSuccess) return static_cast<int>(err);\n",
          index, fname, cc.grid, cc.threads, fmt::join(args, ", "));
      planLaunches += fmt::format("// mirage-plan launch {} grid={},1,1 block={},1,1 smem=0 args={}\n", fname, cc.grid,
                                  cc.threads, fmt::join(args, ","));
      KernelSummary ks;
      ks.function = fname;
      ks.grid[0] = cc.grid;
      ks.threads = cc.threads;
      res.kernels.push_back(ks);
      ++index;
      continue;
    }
    if (op.kind != ir::OpKind::Kernel) continue;
    std::string fname = fmt::format("{}_k{}", res.entryName, index);
    // Arguments that are results saved with dtype=f32 are float.
    std::vector<bool> argF32;
    std::vector<std::vector<int64_t>> argStrides;
    for (ir::ValueId in : op.inputs) {
      argF32.push_back(ir::storageDType(lowered, in) == ir::DType::F32);
      argStrides.push_back(viewStrides[static_cast<size_t>(in)]);
    }
    KernelCode kc = emitKernel(op, program.dtype, fname, eo, argF32, argStrides);
    if (!kc.error.empty()) {
      res.error = fmt::format("kernel {}: {}", index, kc.error);
      return res;
    }
    for (ir::ValueId r : op.results) place(r);
    // The μGraph node this launch implements, as .mg text.
    ir::Graph one;
    one.name = fmt::format("launch{}", index);
    one.dtype = program.dtype;
    std::string header = fmt::format("// launch {}: {} = kernel(...) grid=[{}, {}, {}] forloop={} block={}\n", index,
                                     [&] {
                                       std::vector<std::string> n;
                                       for (ir::ValueId r : op.results)
                                         n.push_back(lowered.value(r).name.empty() ? fmt::format("(value {})", r)
                                                                                   : lowered.value(r).name);
                                       return fmt::format("{}", fmt::join(n, ", "));
                                     }(),
                                     op.config.grid[0], op.config.grid[1], op.config.grid[2], op.config.forloop,
                                     kc.threads);
    bool isNew = false;
    fname = functions.functionFor(kc.source, fname, &isNew);
    if (isNew)
      header += fmt::format("//   shared memory {} bytes{}\n", kc.sharedBytes,
                            kc.fastPathsUsed.empty()
                                ? std::string()
                                : fmt::format("; fast paths: {}", fmt::join(kc.fastPathsUsed, ", ")));
    else
      header += fmt::format("//   runs {}: the same code\n", fname);
    kernels += "\n" + header + (isNew ? kc.source : std::string());
    std::vector<std::string> args;
    for (ir::ValueId in : op.inputs) args.push_back("@" + std::to_string(in) + "@");
    for (ir::ValueId r : op.results) args.push_back("@" + std::to_string(r) + "@");
    launches += fmt::format("  // launch {}\n", index);
    if (kc.sharedBytes > 48 * 1024 && isNew)  // once per function: the attribute stays set
      launches += fmt::format(
          "  err = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n"
          "  if (err != cudaSuccess) return static_cast<int>(err);\n",
          fname, kc.sharedBytes);
    launches += fmt::format(
        "  MG_LAUNCH({}, dim3({}, {}, {}), dim3({}), {}, stream, {});\n"
        "  err = cudaGetLastError();\n  if (err != cudaSuccess) return static_cast<int>(err);\n",
        fname, kc.grid[0], kc.grid[1], kc.grid[2], kc.threads, kc.sharedBytes, fmt::join(args, ", "));
    planLaunches += fmt::format("// mirage-plan launch {} grid={},{},{} block={},1,1 smem={} args={}\n", fname,
                                kc.grid[0], kc.grid[1], kc.grid[2], kc.threads, kc.sharedBytes,
                                fmt::join(args, ","));
    if (kc.tmaStages > 0) tmaLaunches.push_back(fmt::format("launch {} ({} stages)", index, kc.tmaStages));
    KernelSummary ks;
    ks.function = fname;
    for (int g = 0; g < 3; ++g) ks.grid[g] = kc.grid[static_cast<size_t>(g)];
    ks.threads = kc.threads;
    ks.sharedBytes = kc.sharedBytes;
    ks.fastPaths = kc.fastPathsUsed;
    res.kernels.push_back(ks);
    ++index;
  }
  // Resolve the @id@ placeholders to the pointer variables (or plan args).
  auto resolve = [&](std::string s, const std::vector<std::string>& var) {
    for (size_t pos; (pos = s.find('@')) != std::string::npos;) {
      size_t end = s.find('@', pos + 1);
      size_t id = std::stoul(s.substr(pos + 1, end - pos - 1));
      s.replace(pos, end - pos + 1, var[id]);
    }
    return s;
  };
  launches = resolve(launches, var);
  copies = resolve(copies, var);
  std::string plan = "// mirage-plan v1\n";
  for (ir::ValueId v : lowered.inputs)
    plan += fmt::format("// mirage-plan input {} {} {}\n", lowered.value(v).name, ir::dtypeName(program.dtype),
                        fmt::join(lowered.value(v).shape, ","));
  for (ir::ValueId v : lowered.outputs)
    plan += fmt::format("// mirage-plan output {} {} {}\n", lowered.value(v).name, ir::dtypeName(program.dtype),
                        fmt::join(lowered.value(v).shape, ","));
  plan += fmt::format("// mirage-plan workspace {}\n", workspace);
  plan += resolve(planLaunches, planArg) + resolve(planCopies, planArg);

  std::string src;
  src += fmt::format("// Generated by mirage-opt {} from {}. Do not edit.\n", MIRAGE_VERSION,
                     options.sourceName.empty() ? std::string("<memory>") : options.sourceName);
  src += fmt::format("// Program: {} ({} launch{}{}, target sm_{})\n", name, index, index == 1 ? "" : "es",
                     functions.count() < index ? fmt::format(" of {} functions", functions.count()) : "",
                     options.smArch);
  if (!tmaLaunches.empty())
    src += fmt::format(
        "// Hopper path: TMA bulk copies, N-stage pipeline in {}: on sm_90+ the for-loop tiles\n"
        "// arrive by cp.async.bulk on one mbarrier per stage; below sm_90 the same stages are\n"
        "// filled by cp.async (MG_HOPPER_PATH).\n",
        fmt::join(tmaLaunches, ", "));
  src += "// Inputs:\n";
  for (ir::ValueId v : program.inputs) src += "//   " + tensorLine(program, v) + "\n";
  src += "// Outputs:\n";
  for (ir::ValueId v : program.outputs) src += "//   " + tensorLine(program, v) + "\n";
  src += fmt::format("// Workspace: {} bytes\n", workspace);
  src += "// μGraph:\n" + commentLines(ir::printGraph(program), "   ");
  src += "//\n// Entry points (pointers are device pointers, 16-byte aligned):\n";
  src += fmt::format("//   size_t {}_workspace_bytes(void);\n", res.entryName);
  src += fmt::format("//   int {}(const void* const* inputs, void* const* outputs, void* workspace,\n", res.entryName);
  src += fmt::format("//   {:{}}cudaStream_t stream);\n", "", res.entryName.size() + 1);
  src += "//\n// Launch plan, for replaying the launches without the host code (docs/backend.md):\n" + plan;
  src += devicePreamble();
  if (!tmaLaunches.empty()) src += hopperPreamble();
  src += kernels;
  src += "\n#if !defined(__CUDACC_RTC__)\n";
  src += fmt::format("extern \"C\" size_t {}_workspace_bytes(void) {{ return {}; }}\n\n", res.entryName, workspace);
  src += fmt::format(
      "extern \"C\" int {}(const void* const* inputs, void* const* outputs, void* workspace,\n"
      "                 cudaStream_t stream) {{\n",
      res.entryName);
  src += pointers;
  src += "  (void)inputs;\n  (void)workspace;\n  cudaError_t err = cudaSuccess;\n";
  src += launches + copies;
  src += "  return static_cast<int>(err);\n}\n#endif  // !__CUDACC_RTC__\n";
  res.source = src;
  res.workspaceBytes = workspace;
  res.functions = functions.count();
  res.ok = true;
  return res;
}

}  // namespace mirage::codegen
