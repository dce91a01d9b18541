// Solution of puzzles/07-shuffle-reduction.md: five shuffles per warp, one value per
// warp through shared memory, one barrier, and warp 0 sums the block's warp sums.
__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffff, v, offset);
  }
  return v;
}

__global__ void reduce(const int* in, int* out, unsigned n) {
  __shared__ int warp_sums[32];
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  unsigned grid_size = blockDim.x * 2 * gridDim.x;
  int sum = 0;
  while (i < n) {
    sum += in[i];
    sum += in[i + blockDim.x];
    i += grid_size;
  }
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) {
    warp_sums[threadIdx.x / 32] = sum;
  }
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    sum = 0;
    if (threadIdx.x < blockDim.x / 32) {
      sum = warp_sums[threadIdx.x];
    }
    sum = warp_sum(sum);
    if (threadIdx.x == 0) {
      out[blockIdx.x] = sum;
    }
  }
}
