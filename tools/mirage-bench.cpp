// mirage-bench [--section NAME]... [--examples DIR] [--json]: measures the
// components. Each section is one function below that calls its
// component's measurement code in lib/; with no --section, all run.
// The gpu section times already chosen kernels: mirage-opt is not linked
// here; run it first (tools/gpu-check.sh does) and pass its outputs with
// --cu-dir DIR (DIR/NAME.cu from -o, and DIR/NAME.mg from --emit-mg for the
// cost model's prediction).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "mirage/backend/bench.h"
#include "mirage/parse/parser.h"
#include "mirage/driver/bench.h"
#include "mirage/verify/bench.h"

namespace {

struct Context {
  std::string examples;  // folder of the bundled .mg programs
  int threads = 0;
  double searchSeconds = 0;   // search section: --time-limit per example (0: mirage-opt's default)
  std::string cuDir;          // gpu section: NAME.cu (and NAME.mg) per example
  std::string torchJson;      // gpu section: bench/torch_baselines.py's output
  bool json = false;
};

// The six source programs, in the order every section reports them.
const char* const kExamples[] = {"rmsnorm_linear", "gqa", "gated_mlp", "lora", "ntrans", "qknorm_gqa"};

// The bundled μGraphs with the programs they implement (the last one the
// search's own candidate for QKNorm+GQA), checked by the verify and numerics
// sections.
const std::pair<const char*, const char*> kCheckedPairs[] = {{"gqa.mg", "gqa_flash.mg"},
                                                             {"rmsnorm_linear.mg", "rmsnorm_linear_fused.mg"},
                                                             {"qknorm_gqa.mg", "qknorm_gqa_fused.mg"}};

using Section = std::function<std::vector<mirage::verify::Measurement>(const Context&)>;

std::optional<mirage::ir::Graph> loadExample(const Context& ctx, const std::string& file) {
  return mirage::parse::parseFile(ctx.examples + "/" + file, std::cerr);
}

// A program and the bundled μGraph that implements it, both parsed.
std::pair<mirage::ir::Graph, mirage::ir::Graph> loadPair(const Context& ctx, const char* ref, const char* cand) {
  auto a = loadExample(ctx, ref);
  auto b = loadExample(ctx, cand);
  if (!a || !b) throw std::runtime_error(fmt::format("cannot read {} or {}", ref, cand));
  return {std::move(*a), std::move(*b)};
}

// The verifier: field arithmetic rate, and full checks of the bundled
// μGraphs against their programs at the real shapes (the last one the
// search's own candidate for QKNorm+GQA).
std::vector<mirage::verify::Measurement> verifySection(const Context& ctx) {
  std::vector<mirage::verify::Measurement> out;
  out.push_back(mirage::verify::measureMulAddRate(0.5));
  mirage::verify::Options options;
  options.threads = ctx.threads;
  for (auto [ref, cand] : kCheckedPairs) {
    const auto [a, b] = loadPair(ctx, ref, cand);
    auto m = mirage::verify::measureCheck(fmt::format("{} vs {}", ref, cand), a, b, options, 3);
    out.insert(out.end(), m.begin(), m.end());
  }
  return out;
}

// The numerics check mirage-opt runs on a candidate before choosing it
// (driver/numerics.h), on the bundled μGraphs at the real shapes: the first
// check (the input's results and float64 reference included) and each later
// candidate's.
std::vector<mirage::verify::Measurement> numericsSection(const Context& ctx) {
  std::vector<mirage::verify::Measurement> out;
  for (auto [ref, cand] : kCheckedPairs) {
    const auto [a, b] = loadPair(ctx, ref, cand);
    const auto r = mirage::driver::benchNumerics(a, b, ctx.threads, 2);
    const std::string name = fmt::format("{} vs {}", ref, cand);
    out.push_back({name + ": first numerics check (the input's baseline included)", r.firstSeconds, "s"});
    out.push_back({name + ": numerics check of a further candidate", r.candidateSeconds, "s"});
    out.push_back({name + ": passes", r.passed ? 1.0 : 0.0, ""});
  }
  return out;
}

// The search: per example, mirage-opt's own run (driver/bench.h): time to
// the first and to the best verified μGraph, to completion and how it
// ended, states, pruned by expression and by bound, verified. The table
// goes to standard output (not with --json).
std::vector<mirage::verify::Measurement> searchSection(const Context& ctx) {
  std::vector<mirage::verify::Measurement> out;
  std::vector<mirage::driver::SearchBenchRow> rows;
  for (const char* name : kExamples) {
    const std::string path = ctx.examples + "/" + name + ".mg";
    rows.push_back(mirage::driver::benchSearch(name, path, ctx.searchSeconds, ctx.threads));
    const auto& r = rows.back();
    if (!r.ok) throw std::runtime_error(fmt::format("mirage-opt failed on {}", path));
    auto m = [&](const std::string& what, double v, const std::string& unit) {
      out.push_back({std::string(name) + ": " + what, v, unit});
    };
    m("seconds to first verified μGraph", r.secondsToFirst, "s");
    m("seconds to best", r.secondsToBest, "s");
    m("search seconds (to completion or the limit)", r.seconds, "s");
    m("search complete", r.complete ? 1 : 0, r.endedBy);
    m("states explored", static_cast<double>(r.states), "states");
    m("extensions pruned by expression", static_cast<double>(r.pruned), "extensions");
    m("plans pruned by bound", static_cast<double>(r.prunedByBound), "plans");
    m("work items pruned by bound", static_cast<double>(r.itemsPrunedByBound), "items");
    m("candidates verified", static_cast<double>(r.verified), "candidates");
    m("best candidate's kernel launches", r.bestKernels, "kernels");
    m("best candidate's predicted time", r.bestUs, "us");
  }
  if (!ctx.json) std::cout << mirage::driver::formatSearchBench(rows);
  return out;
}

// The chosen kernels on the GPU against PyTorch (lib/backend/bench.cpp).
// Without a GPU, or without --cu-dir, it says why and measures nothing.
std::vector<mirage::verify::Measurement> gpuSection(const Context& ctx) {
  std::vector<mirage::verify::Measurement> out;
  if (ctx.cuDir.empty()) {
    std::cout << "gpu: no --cu-dir given (a folder with each example's chosen NAME.cu, "
                 "from mirage-opt -o; see tools/gpu-check.sh); nothing measured\n";
    return out;
  }
  std::vector<mirage::backend::GpuBenchInput> inputs;
  for (const char* name : kExamples) {
    auto program = loadExample(ctx, std::string(name) + ".mg");
    if (!program) throw std::runtime_error(fmt::format("cannot read {}.mg", name));
    const std::string cu = fmt::format("{}/{}.cu", ctx.cuDir, name);
    std::ifstream file(cu, std::ios::binary);
    if (!file) {
      std::cerr << "mirage-bench: gpu: " << cu << " is missing; " << name << " skipped\n";
      continue;
    }
    std::stringstream text;
    text << file.rdbuf();
    mirage::backend::GpuBenchInput in{name, text.str(), std::move(*program), std::nullopt};
    const std::string mg = fmt::format("{}/{}.mg", ctx.cuDir, name);
    if (std::ifstream(mg)) in.chosen = mirage::parse::parseFile(mg, std::cerr);
    inputs.push_back(std::move(in));
  }
  mirage::backend::GpuBenchReport report = mirage::backend::runGpuBench(inputs, ctx.torchJson);
  if (!ctx.json) std::cout << mirage::backend::formatGpuBench(report);
  if (!report.ran) return out;
  out.push_back({"empty launch", report.emptyLaunchUs, "us"});
  out.push_back({"copy bandwidth", report.copyBandwidthGBs, "GB/s"});
  for (const auto& row : report.rows) {
    if (!row.error.empty()) continue;
    out.push_back({row.name + " ours", row.oursUs, "us"});
    if (row.predictedUs > 0) out.push_back({row.name + " predicted", row.predictedUs, "us"});
    if (row.torchUs > 0) {
      out.push_back({row.name + " pytorch best", row.torchUs, "us"});
      out.push_back({row.name + " pytorch/ours", row.torchUs / row.oursUs, "x"});
    }
    out.push_back({row.name + " bandwidth bound fraction", row.bandwidthBoundUs / row.oursUs, ""});
    out.push_back({row.name + " tensor-core bound fraction", row.tensorBoundUs / row.oursUs, ""});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, Section> sections = {
      {"verify", verifySection}, {"numerics", numericsSection}, {"search", searchSection}, {"gpu", gpuSection}};
  CLI::App app{"mirage-bench: measure the components of mirage-opt"};
  std::vector<std::string> chosen;
  Context ctx;
  ctx.examples = "examples";
  bool& json = ctx.json;
  app.add_option("--section", chosen, "sections to run (default: all): verify, numerics, search, gpu")
      ->check(CLI::IsMember([&] {
        std::vector<std::string> names;
        for (auto& [n, s] : sections) names.push_back(n);
        return names;
      }()));
  app.add_option("--examples", ctx.examples, "folder with the bundled .mg programs");
  app.add_option("-j,--jobs", ctx.threads, "threads (default: all cores)");
  app.add_option("--search-seconds", ctx.searchSeconds,
                 "search section: --time-limit per example (default: none, as mirage-opt runs)");
  app.add_option("--cu-dir", ctx.cuDir, "gpu section: folder with each example's chosen NAME.cu (and NAME.mg)");
  app.add_option("--torch-json", ctx.torchJson, "gpu section: PyTorch baselines from bench/torch_baselines.py");
  app.add_flag("--json", json, "print one JSON object instead of text");
  app.set_version_flag("--version", std::string("mirage-bench ") + MIRAGE_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (chosen.empty())
    for (auto& [n, s] : sections) chosen.push_back(n);
  nlohmann::json report = nlohmann::json::object();
  try {
    for (const std::string& name : chosen) {
      auto results = sections.at(name)(ctx);
      if (!json) std::cout << "[" << name << "]\n";
      for (const auto& m : results) {
        report[name][m.name] = {{"value", m.value}, {"unit", m.unit}};
        if (!json) std::cout << fmt::format("  {}: {:.4g} {}\n", m.name, m.value, m.unit);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "mirage-bench: error: " << e.what() << "\n";
    return 1;
  }
  if (json) std::cout << report.dump(2) << "\n";
  return 0;
}
