// The `.mg` printer: one binding per line, constants inline, fresh names for
// unnamed intermediates, so that the output reads back to the same graph.
#include "mirage/ir/printer.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

namespace mirage::ir {
namespace {

constexpr const char* kGridDimNames[3] = {"x", "y", "z"};

std::string mapText(const DimMap& m) {
  std::vector<std::string> parts;
  for (int g = 0; g < 3; ++g)
    if (m[g] >= 0) parts.push_back(fmt::format("{}:{}", kGridDimNames[g], m[g]));
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

bool emptyMap(const DimMap& m) { return m[0] < 0 && m[1] < 0 && m[2] < 0; }

class Printer {
 public:
  explicit Printer(const Graph& g) : g_(g) {
    collectNames(g);
  }

  std::string run() {
    out_ += fmt::format("graph {} {{\n", g_.name.empty() ? "main" : g_.name);
    std::vector<std::string> names(g_.values.size());
    printBody(g_, names, nullptr, "  ");
    std::vector<std::string> outs;
    for (ValueId v : g_.outputs) outs.push_back(names[static_cast<size_t>(v)]);
    out_ += fmt::format("  output {}\n}}\n", fmt::join(outs, ", "));
    return out_;
  }

 private:
  void collectNames(const Graph& g) {
    for (const Value& v : g.values)
      if (!v.name.empty()) used_.insert(v.name);
    for (const Op& op : g.ops)
      if (op.body) collectNames(*op.body);
    if (&g == &g_)
      for (const Value& v : g.values)
        if (!v.name.empty()) graphNames_.insert(v.name);
  }

  // Whether a value's own name can be printed: graphs built by other stages
  // may carry names the language does not accept here (a reserved word, a
  // name bound twice, a body name that is also a graph name); those values
  // are printed under fresh names instead, so the output always reads back.
  bool usable(const std::string& n, bool inBody) {
    if (n.empty() || !isIdentifier(n) || isReservedName(n)) return false;
    if (inBody && graphNames_.count(n)) return false;
    return scopeNames_.insert(n).second;
  }

  static bool isIdentifier(const std::string& n) {
    auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!start(n[0])) return false;
    for (char c : n)
      if (!start(c) && !(c >= '0' && c <= '9')) return false;
    return true;
  }

  std::string fresh() {
    for (;;) {
      std::string n = fmt::format("t{}", counter_++);
      if (used_.insert(n).second) return n;
    }
  }

  // Prints the ops of g. `names` receives the text of each value; for a body,
  // `outer` gives the names of the kernel's arguments and results.
  void printBody(const Graph& g, std::vector<std::string>& names,
                 const std::pair<std::vector<std::string>, std::vector<std::string>>* outer,
                 const std::string& indent) {
    size_t argIndex = 0;
    for (const Op& op : g.ops) {
      auto arg = [&](size_t i) { return names[static_cast<size_t>(op.inputs[i])]; };
      auto bind = [&](ValueId v) {
        const Value& val = g.value(v);
        names[static_cast<size_t>(v)] = usable(val.name, outer != nullptr) ? val.name : fresh();
        return names[static_cast<size_t>(v)];
      };
      switch (op.kind) {
        case OpKind::Input: {
          if (outer) {  // a kernel argument: named as in the enclosing graph
            names[static_cast<size_t>(op.results[0])] = outer->first.at(argIndex++);
            break;
          }
          std::string n = bind(op.results[0]);
          out_ += fmt::format("{}{} = input {}{}\n", indent, n, dtypeName(g.dtype),
                              shapeToString(g.value(op.results[0]).shape));
          break;
        }
        case OpKind::Const: names[static_cast<size_t>(op.results[0])] = op.scalarText; break;
        case OpKind::Kernel: {
          std::vector<std::string> args, results;
          for (size_t i = 0; i < op.inputs.size(); ++i) args.push_back(arg(i));
          for (ValueId r : op.results) results.push_back(bind(r));
          const KernelConfig& k = op.config;
          int rank = k.gridRank;
          while (rank < 3 && (k.grid[2] > 1 ? 3 : k.grid[1] > 1 ? 2 : 1) > rank) ++rank;
          std::vector<int64_t> grid(k.grid.begin(), k.grid.begin() + rank);
          out_ += fmt::format("{}{} = kernel({}) grid=[{}] forloop={}", indent,
                              fmt::join(results, ", "), fmt::join(args, ", "),
                              fmt::join(grid, ", "), k.forloop);
          if (k.block > 0) out_ += fmt::format(" block={}", k.block);
          out_ += " {\n";
          std::vector<std::string> bodyNames(op.body->values.size());
          std::pair<std::vector<std::string>, std::vector<std::string>> io{args, results};
          std::set<std::string> graphScope = std::move(scopeNames_);
          scopeNames_.clear();  // a body's names are its own
          printBody(*op.body, bodyNames, &io, indent + "  ");
          scopeNames_ = std::move(graphScope);
          out_ += indent + "}\n";
          break;
        }
        case OpKind::Save: {
          std::string text = fmt::format("save({}, {}", arg(0),
                                         outer->second.at(static_cast<size_t>(op.resultIndex)));
          if (!emptyMap(op.omap)) text += ", omap=" + mapText(op.omap);
          if (op.saveF32) text += ", dtype=f32";
          out_ += fmt::format("{}{})\n", indent, text);
          break;
        }
        MIRAGE_CASES_PREDEFINED
        MIRAGE_CASES_PROGRAM_LAYOUT
        MIRAGE_CASES_SHORTHAND
        case OpKind::Tile:
        case OpKind::Accum:
        case OpKind::Scan: {
          std::string call = fmt::format("{}(", opName(op.kind));
          // accum(x, rescale=m) names its second input with a keyword.
          size_t positional = ir::isRescaledAccum(op) ? 1 : op.inputs.size();
          for (size_t i = 0; i < positional; ++i) call += (i ? ", " : "") + arg(i);
          switch (op.kind) {
            case OpKind::ReduceSum:
            case OpKind::ReduceMean:
            case OpKind::ReduceMax:
              call += fmt::format(", dim={}", op.dim);
              if (op.size != 1) call += fmt::format(", size={}", op.size);
              break;
            case OpKind::Transpose: call += fmt::format(", dim0={}, dim1={}", op.dim, op.dim1); break;
            // The inferred shape, so that a -1 prints as what it stood for.
            case OpKind::Reshape:
              call += fmt::format(", shape={}", shapeToString(g.value(op.results[0]).shape));
              break;
            case OpKind::Concat: call += fmt::format(", dim={}", op.dim); break;
            case OpKind::Slice: call += fmt::format(", dim={}, start={}, end={}", op.dim, op.start, op.end); break;
            case OpKind::Tile:
              if (!emptyMap(op.imap)) call += ", imap=" + mapText(op.imap);
              if (op.fmap >= 0) call += fmt::format(", fmap={}", op.fmap);
              break;
            case OpKind::Accum:
              if (op.accumOp == AccumOp::Max) call += ", op=max";
              if (ir::isRescaledAccum(op)) call += ", rescale=" + arg(1);
              break;
            case OpKind::Scan: call += ", op=max"; break;
            // Shorthands are expanded after parsing; printed, they read back.
            MIRAGE_CASES_SHORTHAND
              call += fmt::format(", dim={}", op.dim);
              if (!op.scalarText.empty()) call += ", eps=" + op.scalarText;
              break;
            MIRAGE_CASES_LEAF
            MIRAGE_CASES_CONTRACTION
            MIRAGE_CASES_BINARY
            MIRAGE_CASES_UNARY
            MIRAGE_CASES_PROGRAM
            case OpKind::Save: break;
          }
          call += ")";
          std::string n = bind(op.results[0]);
          out_ += fmt::format("{}{} = {}\n", indent, n, call);
        }
      }
    }
  }

  const Graph& g_;
  std::set<std::string> used_;        // every name of the program: fresh names avoid them
  std::set<std::string> graphNames_;  // names of program-level values
  std::set<std::string> scopeNames_;  // names printed so far in the current scope
  int counter_ = 0;
  std::string out_;
};

}  // namespace

std::string printGraph(const Graph& g) { return Printer(g).run(); }

std::string formatNumber(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace mirage::ir
