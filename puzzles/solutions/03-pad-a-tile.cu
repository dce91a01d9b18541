// Solution of puzzles/03-pad-a-tile.md: the tile swizzled. Word (r, c) is stored in column
// c ^ r of row r, so it lies in bank c ^ r: a row still covers all 32 banks (c ^ r runs
// through 0..31 as c does), and so does a column (as r does). No extra word is needed:
// the launch has none (padding to 32 x 33 would need 4,224 bytes).
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int r = threadIdx.y + j;
    tile[r][threadIdx.x ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}
