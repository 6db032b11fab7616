// The ir component owns the in-memory form of `.mg` programs: data types and
// shapes, the program-level graph (inputs, pre-defined operators, custom
// kernels) and the block-level graph that is a custom kernel's body (tiles of
// the kernel's arguments, for-loop accumulators, saves). Both levels use the
// same Graph type: a list of values (tensors at program level, tiles in a
// body) and a list of operations in topological order. Shape inference and
// every legality rule of ../shared/spec/mg-language.md live here too
// (ir/check.h), so that the parser, the search and any other producer of
// graphs agree on what a legal program is. The printer (ir/printer.h) writes
// the text form that the parser reads back.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mirage/ir/ops.h"

namespace mirage::ir {

enum class DType { F16, BF16, F32 };
std::string_view dtypeName(DType t);                    // "f16", "bf16", "f32"
std::optional<DType> dtypeFromName(std::string_view s);  // inverse of dtypeName
int dtypeBytes(DType t);

using Shape = std::vector<int64_t>;
int64_t numElements(const Shape& s);
std::string shapeToString(const Shape& s);  // "[16, 4096]"

// A position in the source text (1-based); line 0 means "no position", as for
// graphs built by the search.
struct SourceLoc {
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

// OpKind and every fact about an operator: ir/ops.def (the table), ir/ops.h.
std::string_view opName(OpKind k);  // the `.mg` spelling: "matmul", "reduce_sum", ...
// Inverse of opName for the operators a program may call by name (the
// pre-defined operators, shorthands and tile/accum/scan/save); nullopt for
// anything else, "input", "const" and "kernel" included.
std::optional<OpKind> opKindFromName(std::string_view name);
// The words that cannot name a tensor: the keywords (graph, input, output,
// kernel) and every operator name, shorthands (rms_norm, softmax) and
// tile/accum/save included.
bool isReservedName(std::string_view name);

enum class AccumOp { Sum, Max };

using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

// Grid dims are x, y, z (0, 1, 2). A DimMap gives, per grid dim, the tensor
// dim it maps to, or -1 when that grid dim is unmapped.
using DimMap = std::array<int, 3>;
inline constexpr DimMap kEmptyMap = {-1, -1, -1};

struct KernelConfig {
  std::array<int64_t, 3> grid = {1, 1, 1};
  int gridRank = 1;     // how many grid entries the text spells (1 to 3)
  int64_t forloop = 1;
  int64_t block = 0;    // threads per block; 0 = left to the code generator
};

struct Graph;

struct Value {
  Shape shape;
  std::string name;  // binding name; empty for unnamed intermediates
  int op = -1;       // index of the producing Op in Graph::ops
  int resultIndex = 0;
  SourceLoc loc;
  // A kernel result saved with `dtype=f32`: stored in f32 rather than the
  // program's dtype (see storageDType).
  bool keepF32 = false;
};

struct Op {
  OpKind kind = OpKind::Input;
  std::vector<ValueId> inputs;
  std::vector<ValueId> results;
  SourceLoc loc;

  // Attributes; which ones matter depends on kind.
  int dim = 0;       // reductions; transpose dim0
  int dim1 = 0;      // transpose dim1
  int64_t size = 1;  // reduce_sum ... size=s (1 when not given)
  Shape shapeArg;    // reshape: shape=[...] as written (-1 = inferred)
  int64_t start = 0;  // slice: first index kept along dim
  int64_t end = 0;    // slice: one past the last index kept
  std::string scalarText;  // Const: the literal as written ("0.125", "1e-6")
  double scalar = 0;       // Const: its value
  AccumOp accumOp = AccumOp::Sum;
  DimMap imap = kEmptyMap;  // Tile
  int fmap = -1;            // Tile: tensor dim split across the for-loop, or -1
  DimMap omap = kEmptyMap;  // Save
  int resultIndex = 0;      // Save: which kernel result it writes
  bool saveF32 = false;     // Save: `dtype=f32`, the result is kept in f32
  KernelConfig config;      // Kernel
  std::shared_ptr<const Graph> body;  // Kernel
};

struct Graph {
  std::string name;
  DType dtype = DType::F16;
  std::vector<Value> values;
  std::vector<Op> ops;             // topological order
  std::vector<ValueId> inputs;     // program inputs / kernel arguments, in order
  std::vector<ValueId> outputs;    // program outputs, in order (unused in bodies)

  const Value& value(ValueId v) const { return values.at(static_cast<size_t>(v)); }
  const Op& producer(ValueId v) const { return ops.at(static_cast<size_t>(value(v).op)); }
  ValueId findValue(std::string_view name) const;  // kNoValue when absent

  // Appends an operation without checking it (see ir/check.h for the
  // checked builder). Returns the index of the new op; its results get the
  // given shapes.
  int appendOp(Op op, const std::vector<Shape>& resultShapes,
               const std::vector<std::string>& resultNames = {});
};

// The dtype a stored tensor of g has: f32 for a kernel result saved with
// `dtype=f32`, else the program's dtype.
DType storageDType(const Graph& g, ValueId v);

// True for accum(x, rescale=m): its second input is the scan m.
inline bool isRescaledAccum(const Op& op) { return op.kind == OpKind::Accum && op.inputs.size() == 2; }

// Whether layout op `op` of g is a view of its operand's buffer rather than a
// copy (codegen): a reshape of a tensor stored in the program's dtype (the
// same bytes), or a slice of such a dense tensor that only kernels read (they
// read it in place, with its operand's strides).
bool isLayoutView(const Graph& g, const Op& op);

// Number of program-level kernel launches: custom kernels and pre-defined
// operators each count one (concat, and slices that are not views, are copy
// kernels); inputs, constants and layout views count none.
int countKernels(const Graph& g);

}  // namespace mirage::ir
