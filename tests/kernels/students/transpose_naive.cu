// The naive transpose every course starts with: each thread reads in[y][x] (coalesced)
// and writes out[x][y] (32 floats apart across a warp).
#include <cuda_runtime.h>

__global__ void transpose(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.x + threadIdx.y;
  for (int j = 0; j < blockDim.x; j += blockDim.y) {
    out[x * n + (y + j)] = in[(y + j) * n + x];
  }
}
