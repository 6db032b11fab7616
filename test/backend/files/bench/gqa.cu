// Stands in for a chosen gqa.cu in the mirage-bench gpu-section test (the
// stand-in device times any plan it can run); otherwise as sub_f32.cu:
// a hand-written file in the shape mirage-opt writes, for the GPU path of
// mirage-run without a GPU: the test drivers (fake_cuda.cpp) simulate
// mirage_sub by name, so its launch plan runs on the stand-in device; the
// kernel itself is real CUDA and compiles with NVRTC.
// mirage-plan v1
// mirage-plan input A f32 4
// mirage-plan input B f32 4
// mirage-plan output D f32 4
// mirage-plan workspace 0
// mirage-plan launch mirage_sub grid=1 block=32 smem=0 args=in0,in1,out0

extern "C" __global__ void mirage_sub(const float* a, const float* b, float* out) {
  const int i = threadIdx.x;
  if (i < 4) out[i] = a[i] - b[i];
}
