// Solution of puzzles/03-pad-a-tile.md: one float of padding per row. Word (r, c) is
// then in bank (r * 33 + c) % 32 = (r + c) % 32, so a column runs through all 32 banks.
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}
