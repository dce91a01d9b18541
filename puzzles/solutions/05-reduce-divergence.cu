// Solution of puzzles/05-reduce-divergence.md: interleaved addressing with a strided
// index. Thread j works at 2*s*j, so the working threads are the first ones and warps
// split only when fewer than 32 threads work (the last 5 rounds).
__global__ void reduce(const int* in, int* out) {
  __shared__ int sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
  }
}
