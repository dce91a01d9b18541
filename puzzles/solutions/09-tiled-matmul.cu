// Solution of puzzles/09-tiled-matmul.md: 16 x 16 tiles of A and B staged in shared
// memory. Global loads fall by a factor of 16; the inner loop reads As by row (a
// broadcast per half-warp row) and Bs by column index tx (consecutive banks).
__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty;
  int col = blockIdx.x * 16 + tx;
  float sum = 0.f;
  for (int p = 0; p < n / 16; ++p) {
    As[ty][tx] = A[row * n + p * 16 + tx];
    Bs[ty][tx] = B[(p * 16 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      sum += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  C[row * n + col] = sum;
}
