// The backend component turns generated CUDA into numbers the driver can rank
// candidates by. It owns: compiling the device code of a `.cu` file with NVRTC
// (nvrtc.h: a thread pool over candidates and a cache keyed by the source,
// the target architecture and the options); the launch plan a generated file
// carries in `// mirage-plan` comment lines (launch_plan.h), which says which
// kernels to launch with which grid, block, shared memory and buffers; the
// CUDA driver loaded at run time with dlopen, never linked, so that every
// tool runs on machines without a GPU (gpu.h: is a GPU usable and why not,
// device properties, running a compiled candidate, timing it with CUDA
// events, after checking its outputs against the reference interpreter,
// gpu_check.h); and the analytical cost model used when no GPU is usable
// (cost_model.h, with per-architecture figures in arch.h). Two users of
// these live here too: mirage-run's GPU path (run_cuda.h) and mirage-bench's
// gpu section (bench.h). It reads graphs and generated sources; it never
// changes them. See docs/backend.md and docs/cost-model.md.
#pragma once

#include "mirage/backend/arch.h"
#include "mirage/backend/bench.h"
#include "mirage/backend/cost_model.h"
#include "mirage/backend/gpu.h"
#include "mirage/backend/gpu_check.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/backend/run_cuda.h"
