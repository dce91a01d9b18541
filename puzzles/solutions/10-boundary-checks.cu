// Solution of puzzles/10-boundary-checks.md: clamped, unconditional loads scaled by 0 or
// 1. Every lane of every warp issues every load (min() and a comparison's 0 or 1 are
// selects, not branches); only the store keeps its branch.
__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty;
  int col = blockIdx.x * 16 + tx;
  int r = min(row, n - 1);
  int cc = min(col, n - 1);
  float sum = 0.f;
  for (int p = 0; p < (n + 15) / 16; ++p) {
    int ka = p * 16 + tx;
    int kb = p * 16 + ty;
    float ina = float(row < n & ka < n);
    float inb = float(kb < n & col < n);
    As[ty][tx] = A[r * n + min(ka, n - 1)] * ina;
    Bs[ty][tx] = B[min(kb, n - 1) * n + cc] * inb;
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      sum += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  if (row < n && col < n) {
    C[row * n + col] = sum;
  }
}
