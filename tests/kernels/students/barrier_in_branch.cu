// __syncthreads() inside a branch the block's threads do not all take the same way.
__global__ void copy(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[i] = in[i];
}
