// The interp component owns the reference interpreter: it evaluates any
// program of the `.mg` language (an ir::Graph) on real numbers, including
// custom kernels, whose bodies it runs block by block and for-loop iteration
// by iteration exactly as ../shared/spec/mg-language.md defines tiles,
// accumulators and saves. Sums (matmul, reductions, accumulators) are f32;
// every stored tensor (an input, a pre-defined operator's result at program
// level, a kernel's result) is rounded to the program dtype with
// round-to-nearest-even, while tiles inside a kernel body stay f32. It is the
// oracle later stages are tested against (docs/interpreter.md). The component
// also reads and writes NumPy .npy files (npy.h) and implements the work of
// `mirage-run` for .mg programs (run.h).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::interp {

// A problem with what the caller passed (a missing input, a wrong shape); the
// message says which. A graph that breaks the IR's invariants (one not built
// through the checked builders) raises std::logic_error instead.
class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Evaluates program `g` on `inputs`, one per g.inputs in order, each with the
// input's shape; their values are rounded to g.dtype first. Returns the
// outputs in order, rounded to g.dtype.
std::vector<Tensor> evaluate(const ir::Graph& g, const std::vector<Tensor>& inputs);

// The same with inputs by name; every input of g must be present, and every
// name must be an input of g.
std::vector<Tensor> evaluateByName(const ir::Graph& g, const std::map<std::string, Tensor>& inputs);

// Runs one custom kernel (`kernel.kind == Kernel`) on its arguments (already
// stored tensors of the program) and returns its results, rounded to
// `dtype`. `resultShapes` are the shapes of the kernel's results.
std::vector<Tensor> evaluateKernel(const ir::Op& kernel, const std::vector<const Tensor*>& args,
                                   const std::vector<ir::Shape>& resultShapes, ir::DType dtype);

}  // namespace mirage::interp
