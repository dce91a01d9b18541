// Solution of puzzles/14-private-histogram.md: the block counts into a private histogram
// in shared memory (atomicAdd there is an ATOMS in the SM, contended only within the
// block), then stores it as its row, one coalesced store per 32 bins. Barriers after the
// zeroing and after the counting.
__global__ void histogram(const int* in, int* partial, int n, int bins) {
  __shared__ int local[256];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    local[b] = 0;
  }
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&local[in[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    partial[blockIdx.x * bins + b] = local[b];
  }
}
