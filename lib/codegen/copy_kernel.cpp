// Copy kernels of the layout operators (see copy_kernel.h).
#include "copy_kernel.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernel_emitter.h"
#include "mirage/ir/layout.h"

namespace mirage::codegen {

bool isViewOp(const ir::Graph& g, const ir::Op& op) { return ir::isLayoutView(g, op); }

CopyLaunch copyKernelLaunch(const ir::Graph& g, const ir::Op& op) {
  CopyLaunch l;
  int64_t n = ir::numElements(g.value(op.results[0]).shape);
  // Enough blocks to cover the result once, at most 1024 (grid-stride beyond).
  l.blocks = std::clamp<int64_t>((n + l.threads - 1) / l.threads, 1, 1024);
  return l;
}

CopyKernelCode emitCopyKernel(const ir::Graph& g, const ir::Op& op, const std::string& fname,
                              const std::vector<ir::DType>& inTypes, ir::DType outType) {
  CopyKernelCode kc;
  const ir::Shape& out = g.value(op.results[0]).shape;
  int64_t n = ir::numElements(out);
  CopyLaunch launch = copyKernelLaunch(g, op);
  kc.grid = launch.blocks;
  kc.threads = launch.threads;
  std::vector<std::string> params;
  for (size_t k = 0; k < op.inputs.size(); ++k)
    params.push_back(fmt::format("const {}* __restrict__ a{}", elementTypeName(inTypes[k]), k));
  params.push_back(fmt::format("{}* __restrict__ out", elementTypeName(outType)));
  std::string body;
  if (op.kind == ir::OpKind::Reshape) {
    body = "    mg_store(&out[i], mg_f32(a0[i]));\n";  // the same row-major order
  } else {
    // The result as [outer, mid, inner] along the dim; element (o, m, e).
    size_t d = static_cast<size_t>(op.dim);
    int64_t inner = 1;
    for (size_t i = d + 1; i < out.size(); ++i) inner *= out[i];
    int64_t mid = out[d];
    body = fmt::format("    const long long o = i / {0}LL, m = (i / {1}LL) % {2}LL, e = i % {1}LL;\n", mid * inner,
                       inner, mid);
    if (op.kind == ir::OpKind::Slice) {
      int64_t inMid = g.value(op.inputs[0]).shape[d];
      body += fmt::format("    mg_store(&out[i], mg_f32(a0[(o * {}LL + {}LL + m) * {}LL + e]));\n", inMid, op.start,
                          inner);
    } else {
      int64_t at = 0;
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        int64_t ext = g.value(op.inputs[k]).shape[d];
        std::string load = fmt::format("mg_store(&out[i], mg_f32(a{}[(o * {}LL + m - {}LL) * {}LL + e]));", k, ext,
                                       at, inner);
        if (k + 1 < op.inputs.size())
          body += fmt::format("    {}if (m < {}LL) {}\n", k ? "else " : "", at + ext, load);
        else
          body += fmt::format("    else {}\n", load);
        at += ext;
      }
    }
  }
  kc.source = fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}) {1}({2}) {{\n"
      "  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < {3}LL;\n"
      "       i += static_cast<long long>(gridDim.x) * blockDim.x) {{\n"
      "{4}"
      "  }}\n}}\n",
      kc.threads, fname, fmt::join(params, ", "), n, body);
  return kc;
}

}  // namespace mirage::codegen
