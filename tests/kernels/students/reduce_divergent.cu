// Reduction #1 of Harris's "Optimizing Parallel Reduction in CUDA": interleaved
// addressing with a modulo; half the lanes of every warp idle from the first step.
// (Its g_idata and g_odata renamed in and out: the puzzle binds parameters by name.)
__global__ void reduce0(const int *in, int *out) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
