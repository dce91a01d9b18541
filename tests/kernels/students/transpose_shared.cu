// Transpose through a padded shared tile (Harris, "An Efficient Matrix Transpose in CUDA
// C/C++"): TILE_DIM x TILE_DIM tile, BLOCK_ROWS rows of threads.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeCoalesced(float *out, const float *in, int n)
{
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
