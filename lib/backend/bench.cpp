// mirage-bench's gpu section; see bench.h.
#include "mirage/backend/bench.h"

#include <algorithm>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirage/backend/cost_model.h"
#include "mirage/backend/gpu.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"

namespace mirage::backend {

namespace {

double matmulFlops(const ir::Graph& g) {
  double flops = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind != ir::OpKind::Matmul) continue;
    const double k = static_cast<double>(g.value(op.inputs[0]).shape.back());
    flops += 2.0 * static_cast<double>(ir::numElements(g.value(op.results[0]).shape)) * k;
  }
  return flops;
}

// Device-to-device bandwidth a grid-stride copy of 256 MiB reaches: the
// "measured device-memory bandwidth" the examples are judged against.
double copyBandwidth(Gpu& gpu, Compiler& compiler, std::string* error) {
  constexpr int64_t kBytes = int64_t{256} << 20;
  CompileRequest request;
  request.source = fmt::format(
      "extern \"C\" __global__ void mirage_bw_copy(const int4* __restrict__ in, int4* __restrict__ out) {{\n"
      "  const unsigned long long n = {}ull;\n"
      "  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;\n"
      "       i += (unsigned long long)gridDim.x * blockDim.x)\n"
      "    out[i] = in[i];\n"
      "}}\n",
      kBytes / 16);
  request.arch = gpu.props().archString();
  request.label = "the bandwidth copy kernel";
  CompileResult binary = compiler.compile(request);
  if (!binary.ok) {
    *error = "the copy kernel did not compile: " + binary.error;
    return 0;
  }
  LaunchPlan plan;
  plan.inputs = {{"in", ir::DType::F32, {kBytes / 4}}};
  plan.outputs = {{"out", ir::DType::F32, {kBytes / 4}}};
  PlanLaunch launch;
  launch.kernel = "mirage_bw_copy";
  launch.grid = {static_cast<uint32_t>(std::max(1, gpu.props().numSMs) * 8), 1, 1};
  launch.block = {256, 1, 1};
  launch.args = {{PlanArg::Kind::Input, 0, 0}, {PlanArg::Kind::Output, 0, 0}};
  plan.launches = {launch};
  TimingResult t = gpu.time(plan, binary);
  if (!t.ok) {
    *error = "timing the copy kernel: " + t.error;
    return 0;
  }
  return 2.0 * static_cast<double>(kBytes) / (t.medianUs * 1e3);  // GB/s
}

// name -> (best µs, which) from bench/torch_baselines.py's JSON.
std::map<std::string, std::pair<double, std::string>> readTorch(const std::string& path,
                                                                std::vector<std::string>* notes) {
  std::map<std::string, std::pair<double, std::string>> best;
  if (path.empty()) return best;
  std::ifstream in(path);
  if (!in) {
    notes->push_back(fmt::format("cannot read the PyTorch baselines {}", path));
    return best;
  }
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("examples") || !j["examples"].is_object()) {
    notes->push_back(fmt::format("{}: not the JSON of bench/torch_baselines.py", path));
    return best;
  }
  for (const auto& [name, entry] : j["examples"].items()) {
    if (!entry.is_object()) continue;
    for (const auto& [key, value] : entry.items()) {
      if (!value.is_number() || key.size() < 4 || key.substr(key.size() - 3) != "_us") continue;
      const double us = value.get<double>();
      if (us <= 0) continue;
      auto it = best.find(name);
      if (it == best.end() || us < it->second.first) best[name] = {us, key.substr(0, key.size() - 3)};
    }
  }
  return best;
}

}  // namespace

GpuBenchReport runGpuBench(const std::vector<GpuBenchInput>& inputs, const std::string& torchJson) {
  GpuBenchReport report;
  std::unique_ptr<Gpu> gpu = Gpu::open(&report.reason);
  if (!gpu) return report;
  report.ran = true;
  report.device = gpu->props().name;
  const ArchSpec arch = gpu->archSpec();
  report.peakBandwidthGBs = arch.dramBandwidthGBs;
  report.tensorTflops = arch.tensorTflops;
  Compiler compiler;
  TimingResult empty = gpu->timeEmptyLaunch(compiler);
  if (empty.ok) report.emptyLaunchUs = empty.medianUs;
  else report.notes.push_back("empty launch: " + empty.error);
  std::string bwError;
  report.copyBandwidthGBs = copyBandwidth(*gpu, compiler, &bwError);
  if (!bwError.empty()) report.notes.push_back(bwError);
  const auto torch = readTorch(torchJson, &report.notes);

  for (const GpuBenchInput& in : inputs) {
    GpuBenchRow row;
    row.name = in.name;
    row.matmulFlops = matmulFlops(in.program);
    row.tensorBoundUs = row.matmulFlops / (arch.tensorTflops * 1e6);
    if (in.chosen) row.predictedUs = estimateCost(*in.chosen, arch).totalUs;
    if (auto it = torch.find(in.name); it != torch.end()) {
      row.torchUs = it->second.first;
      row.torchWhich = it->second.second;
    }
    std::string error;
    std::optional<LaunchPlan> plan = parseLaunchPlan(in.cuSource, &error);
    if (!plan) {
      row.error = "launch plan: " + error;
      report.rows.push_back(row);
      continue;
    }
    row.launches = static_cast<int>(plan->launches.size());
    row.bytes = static_cast<double>(plan->minimumBytes());
    row.bandwidthBoundUs = row.bytes / (arch.dramBandwidthGBs * 1e3);
    CompileRequest request;
    request.source = in.cuSource;
    request.arch = gpu->props().archString();
    request.label = in.name;
    CompileResult binary = compiler.compile(request);
    if (!plan->launches.empty() && !binary.ok) {
      row.error = "NVRTC: " + binary.error;
      report.rows.push_back(row);
      continue;
    }
    TimingResult t = gpu->time(*plan, binary);
    if (t.ok) row.oursUs = t.medianUs;
    else row.error = t.error;
    report.rows.push_back(row);
  }
  return report;
}

std::string formatGpuBench(const GpuBenchReport& r) {
  if (!r.ran) return fmt::format("gpu: {}; nothing measured\n", r.reason);
  std::string s = fmt::format("device: {}\nempty launch: {:.2f} us\n", r.device, r.emptyLaunchUs);
  s += fmt::format("device memory: {:.0f} GB/s measured by a copy kernel, {:.0f} GB/s peak; tensor cores {:.0f} TFLOP/s peak\n",
                   r.copyBandwidthGBs, r.peakBandwidthGBs, r.tensorTflops);
  s += fmt::format("{:<16} {:>8} {:>10} {:>10} {:>12} {:>8} {:>8} {:>8} {:>8} {:>10}\n", "example", "launches",
                   "ours us", "model us", "pytorch us", "ratio", "bw bound", "bw meas", "tc bound",
                   "us/launch");
  for (const GpuBenchRow& row : r.rows) {
    if (!row.error.empty()) {
      s += fmt::format("{:<16} failed: {}\n", row.name, row.error);
      continue;
    }
    auto frac = [&](double boundUs) { return row.oursUs > 0 ? boundUs / row.oursUs : 0.0; };
    const double measuredBoundUs = r.copyBandwidthGBs > 0 ? row.bytes / (r.copyBandwidthGBs * 1e3) : 0;
    s += fmt::format("{:<16} {:>8} {:>10.2f} {:>10} {:>12} {:>8} {:>7.0f}% {:>7} {:>7.1f}% {:>10.2f}\n", row.name,
                     row.launches, row.oursUs,
                     row.predictedUs > 0 ? fmt::format("{:.2f}", row.predictedUs) : "-",
                     row.torchUs > 0 ? fmt::format("{:.2f} {}", row.torchUs, row.torchWhich) : "-",
                     row.torchUs > 0 ? fmt::format("{:.2f}x", row.torchUs / row.oursUs) : "-",
                     100 * frac(row.bandwidthBoundUs),
                     measuredBoundUs > 0 ? fmt::format("{:.0f}%", 100 * frac(measuredBoundUs)) : "-",
                     100 * frac(row.tensorBoundUs),
                     row.launches > 0 ? row.oursUs / row.launches : 0.0);
  }
  s += "ratio: PyTorch / ours (above 1: ours is faster). bw bound: (bytes / peak bandwidth) / ours; "
       "bw meas: the same at the copy kernel's bandwidth; tc bound: (matmul FLOPs / tensor peak) / ours.\n";
  for (const std::string& n : r.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace mirage::backend
