// Reading and writing the `// mirage-plan` lines of a generated .cu file.
#include "mirage/backend/launch_plan.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace mirage::backend {

namespace {

constexpr std::string_view kPrefix = "// mirage-plan";

std::vector<std::string_view> splitOn(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

template <typename T>
bool parseNumber(std::string_view s, T* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parseTriple(std::string_view s, std::array<uint32_t, 3>* out) {
  std::vector<std::string_view> parts = splitOn(s, ',');
  if (parts.empty() || parts.size() > 3) return false;
  *out = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parseNumber(parts[i], &(*out)[i]) || (*out)[i] == 0) return false;
  return true;
}

bool parseArg(std::string_view s, PlanArg* arg) {
  // inN / outN, optionally +BYTES (a view into the buffer: a slice).
  auto buffer = [&](std::string_view rest, PlanArg::Kind kind) {
    arg->kind = kind;
    size_t plus = rest.find('+');
    if (plus == std::string_view::npos) return parseNumber(rest, &arg->index);
    return parseNumber(rest.substr(0, plus), &arg->index) && parseNumber(rest.substr(plus + 1), &arg->offset) &&
           arg->offset >= 0;
  };
  if (s.starts_with("in")) return buffer(s.substr(2), PlanArg::Kind::Input);
  if (s.starts_with("out")) return buffer(s.substr(3), PlanArg::Kind::Output);
  if (s.starts_with("ws+")) {
    arg->kind = PlanArg::Kind::Workspace;
    return parseNumber(s.substr(3), &arg->offset) && arg->offset >= 0;
  }
  return false;
}

// "input NAME DTYPE d0,d1" (the keyword already consumed).
std::string parseBuffer(const std::vector<std::string_view>& w, PlanBuffer* buffer) {
  if (w.size() != 4) return "expected 'NAME DTYPE d0,d1,...'";
  buffer->name = std::string(w[1]);
  std::optional<ir::DType> dtype = ir::dtypeFromName(w[2]);
  if (!dtype) return fmt::format("unknown dtype '{}'", w[2]);
  buffer->dtype = *dtype;
  for (std::string_view d : splitOn(w[3], ',')) {
    int64_t extent = 0;
    if (!parseNumber(d, &extent) || extent <= 0) return fmt::format("bad shape '{}'", w[3]);
    buffer->shape.push_back(extent);
  }
  return {};
}

std::string parseLaunch(const std::vector<std::string_view>& w, PlanLaunch* launch) {
  if (w.size() < 2) return "expected a kernel name";
  launch->kernel = std::string(w[1]);
  bool haveGrid = false, haveBlock = false, haveArgs = false;
  for (size_t i = 2; i < w.size(); ++i) {
    std::string_view item = w[i];
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fmt::format("expected KEY=VALUE, got '{}'", item);
    std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "grid") {
      if (!parseTriple(value, &launch->grid)) return fmt::format("bad grid '{}'", value);
      haveGrid = true;
    } else if (key == "block") {
      if (!parseTriple(value, &launch->block)) return fmt::format("bad block '{}'", value);
      haveBlock = true;
    } else if (key == "smem") {
      if (!parseNumber(value, &launch->sharedBytes)) return fmt::format("bad smem '{}'", value);
    } else if (key == "args") {
      haveArgs = true;
      if (value.empty()) continue;
      for (std::string_view a : splitOn(value, ',')) {
        PlanArg arg;
        if (!parseArg(a, &arg)) return fmt::format("bad argument '{}' (inN, outN or ws+BYTES)", a);
        launch->args.push_back(arg);
      }
    } else {
      return fmt::format("unknown key '{}'", key);
    }
  }
  if (!haveGrid || !haveBlock || !haveArgs) return "a launch needs grid=, block= and args=";
  return {};
}

std::string argText(const PlanArg& a) {
  switch (a.kind) {
    case PlanArg::Kind::Input: return a.offset ? fmt::format("in{}+{}", a.index, a.offset) : fmt::format("in{}", a.index);
    case PlanArg::Kind::Output:
      return a.offset ? fmt::format("out{}+{}", a.index, a.offset) : fmt::format("out{}", a.index);
    case PlanArg::Kind::Workspace: return fmt::format("ws+{}", a.offset);
  }
  return "?";
}

// Empty when `arg` names an existing buffer with room for `bytes` bytes
// (0: a kernel argument, whose extent the plan does not know).
std::string checkArg(const LaunchPlan& plan, const PlanArg& arg, int64_t bytes) {
  auto inBuffers = [&](const std::vector<PlanBuffer>& buffers, const char* what) -> std::string {
    if (arg.index < 0 || arg.index >= static_cast<int>(buffers.size()))
      return fmt::format("uses {}, but the plan has {} {}", argText(arg), buffers.size(), what);
    if (bytes > buffers[static_cast<size_t>(arg.index)].bytes())
      return fmt::format("overruns {} ({} bytes)", argText(arg), buffers[static_cast<size_t>(arg.index)].bytes());
    return {};
  };
  switch (arg.kind) {
    case PlanArg::Kind::Input: return inBuffers(plan.inputs, "inputs");
    case PlanArg::Kind::Output: return inBuffers(plan.outputs, "outputs");
    case PlanArg::Kind::Workspace:
      if (arg.offset + std::max<int64_t>(bytes, 1) > plan.workspaceBytes)
        return fmt::format("uses {}, beyond the {}-byte workspace", argText(arg), plan.workspaceBytes);
      return {};
  }
  return {};
}

}  // namespace

int64_t LaunchPlan::minimumBytes() const {
  int64_t total = 0;
  for (const PlanBuffer& b : inputs) total += b.bytes();
  for (const PlanBuffer& b : outputs) total += b.bytes();
  return total;
}

std::optional<LaunchPlan> parseLaunchPlan(std::string_view source, std::string* error) {
  LaunchPlan plan;
  bool sawVersion = false;
  int lineNo = 0;
  auto fail = [&](int line, const std::string& what) {
    *error = fmt::format("line {}: {}", line, what);
    return std::nullopt;
  };
  for (std::string_view line : splitOn(source, '\n')) {
    ++lineNo;
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) continue;
    line.remove_prefix(start);
    if (!line.starts_with(kPrefix)) continue;
    std::string_view rest = line.substr(kPrefix.size());
    if (!rest.empty() && rest[0] != ' ' && rest[0] != '\t') continue;  // another word
    std::vector<std::string_view> w = words(rest);
    if (w.empty()) return fail(lineNo, "empty mirage-plan line");
    if (w[0] == "v1") {
      sawVersion = true;
      continue;
    }
    if (!sawVersion) return fail(lineNo, "the plan must start with '// mirage-plan v1'");
    if (w[0] == "input" || w[0] == "output") {
      PlanBuffer buffer;
      if (std::string e = parseBuffer(w, &buffer); !e.empty()) return fail(lineNo, e);
      (w[0] == "input" ? plan.inputs : plan.outputs).push_back(std::move(buffer));
    } else if (w[0] == "workspace") {
      if (w.size() != 2 || !parseNumber(w[1], &plan.workspaceBytes) || plan.workspaceBytes < 0)
        return fail(lineNo, "expected 'workspace BYTES'");
    } else if (w[0] == "copy") {
      PlanCopy copy;
      if (w.size() != 4 || !parseArg(w[1], &copy.destination) || !parseArg(w[2], &copy.source) ||
          !parseNumber(w[3], &copy.bytes) || copy.bytes <= 0)
        return fail(lineNo, "expected 'copy DST SRC BYTES' (inN, outN or ws+BYTES)");
      if (copy.destination.kind == PlanArg::Kind::Input)
        return fail(lineNo, "a copy may not write an input");
      plan.copies.push_back(copy);
    } else if (w[0] == "launch") {
      PlanLaunch launch;
      if (std::string e = parseLaunch(w, &launch); !e.empty()) return fail(lineNo, e);
      plan.launches.push_back(std::move(launch));
    } else {
      return fail(lineNo, fmt::format("unknown mirage-plan entry '{}'", w[0]));
    }
  }
  if (!sawVersion) {
    *error = "no '// mirage-plan v1' line: the file carries no launch plan";
    return std::nullopt;
  }
  for (const PlanLaunch& launch : plan.launches)
    for (const PlanArg& arg : launch.args)
      if (std::string e = checkArg(plan, arg, 0); !e.empty()) {
        *error = fmt::format("launch of {} {}", launch.kernel, e);
        return std::nullopt;
      }
  for (const PlanCopy& copy : plan.copies)
    for (const PlanArg* arg : {&copy.destination, &copy.source})
      if (std::string e = checkArg(plan, *arg, copy.bytes); !e.empty()) {
        *error = fmt::format("copy of {} bytes {}", copy.bytes, e);
        return std::nullopt;
      }
  // A program whose outputs are all inputs (or repeat one another) has no
  // launch: its plan is copies only. A plan without outputs does nothing.
  if (plan.outputs.empty()) {
    *error = "the launch plan has no output";
    return std::nullopt;
  }
  return plan;
}

std::string formatLaunchPlan(const LaunchPlan& plan) {
  std::string out = fmt::format("{} v1\n", kPrefix);
  auto buffer = [&](std::string_view kind, const PlanBuffer& b) {
    out += fmt::format("{} {} {} {} {}\n", kPrefix, kind, b.name, ir::dtypeName(b.dtype),
                       fmt::join(b.shape, ","));
  };
  for (const PlanBuffer& b : plan.inputs) buffer("input", b);
  for (const PlanBuffer& b : plan.outputs) buffer("output", b);
  out += fmt::format("{} workspace {}\n", kPrefix, plan.workspaceBytes);
  for (const PlanLaunch& l : plan.launches) {
    std::vector<std::string> args;
    for (const PlanArg& a : l.args) args.push_back(argText(a));
    out += fmt::format("{} launch {} grid={} block={} smem={} args={}\n", kPrefix, l.kernel,
                       fmt::join(l.grid, ","), fmt::join(l.block, ","), l.sharedBytes,
                       fmt::join(args, ","));
  }
  for (const PlanCopy& c : plan.copies)
    out += fmt::format("{} copy {} {} {}\n", kPrefix, argText(c.destination), argText(c.source), c.bytes);
  return out;
}

}  // namespace mirage::backend
