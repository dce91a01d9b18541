// Solution of puzzles/06-reduce-conflicts.md: sequential addressing. In every round the
// lanes of a warp read 32 consecutive words (32 banks), and the working threads are the
// first s ones.
__global__ void reduce(const int* in, int* out) {
  __shared__ int sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
  }
}
