// Warp sums by shuffles, then one atomicAdd per warp into its block's sum: extern shared
// memory, a __device__ helper, #pragma unroll, a vote, __restrict__.
#include <cuda_runtime.h>

__device__ int warp_sum(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void reduce(const int* __restrict__ in, int* __restrict__ out) {
  extern __shared__ int partial[];
  unsigned tid = threadIdx.x;
  partial[tid] = in[blockIdx.x * blockDim.x + tid];
  if (tid == 0) out[blockIdx.x] = 0;
  __syncthreads();
  int sum = warp_sum(partial[tid]);
  unsigned leaders = __ballot_sync(0xffffffff, tid % 32 == 0);
  if (leaders == 1u && tid % 32 == 0) atomicAdd(&out[blockIdx.x], sum);
}
