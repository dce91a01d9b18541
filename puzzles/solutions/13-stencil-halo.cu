// Solution of puzzles/13-stencil-halo.md: the block's 256 inputs and a halo of `radius`
// on each side staged in shared memory. Every thread loads its own input (one aligned
// request a warp); the first `radius` threads also load one input of each halo (zero past
// the ends of the array). One barrier, then the sums come from shared memory, where
// neighbouring lanes read neighbouring words.
__global__ void stencil(const int* in, int* out, int n, int radius) {
  __shared__ int tile[256 + 2 * 3];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  tile[radius + tid] = in[i];
  if (tid < radius) {
    int l = i - radius;
    int r = i + blockDim.x;
    tile[tid] = l >= 0 ? in[l] : 0;
    tile[radius + blockDim.x + tid] = r < n ? in[r] : 0;
  }
  __syncthreads();
  int sum = 0;
  for (int k = -radius; k <= radius; ++k) {
    sum += tile[radius + tid + k];
  }
  out[i] = sum;
}
