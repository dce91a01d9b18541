// Solution of puzzles/08-vector-loads.md: one int4 load per group. A warp's request is
// 512 contiguous bytes, 16 sectors all used, and there are a quarter as many requests.
__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffff, v, offset);
  }
  return v;
}

__global__ void reduce(const int* in, int* out, unsigned n) {
  __shared__ int warp_sums[32];
  const int4* in4 = reinterpret_cast<const int4*>(in);
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned grid_size = blockDim.x * gridDim.x;
  int sum = 0;
  while (v < n / 4) {
    int4 q = in4[v];
    sum += q.x + q.y + q.z + q.w;
    v += grid_size;
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
