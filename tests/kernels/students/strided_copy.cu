// Puzzle 01's starter as a student types it: each thread copies a scattered element.
__global__ void copy(const float* in, float* out) {
  int tid = threadIdx.x;
  long long i = (long long)blockIdx.x * blockDim.x + (tid % 8) * 32 + tid / 8;
  out[i] = in[i];
}
