// Solution of puzzles/02-aligned-offset.md: the full warps of the whole grid take aligned
// runs of 32 elements one after the other (block b's three warps elements 96 b to
// 96 b + 95), and the 4-lane warps the elements after all of those, 4 per block. Every
// full warp's window is then 128 aligned bytes (4 sectors; 32 bytes later for the load,
// still on a sector boundary) and every 4-lane warp's 16 bytes lie in one sector.
__global__ void offset_copy(const float* in, float* out, int offset) {
  unsigned full = blockDim.x / 32 * 32;  // threads in full warps: 96
  long long i;
  if (threadIdx.x < full) {
    i = (long long)blockIdx.x * full + threadIdx.x;
  } else {
    unsigned rest = blockDim.x - full;  // the last warp's lanes: 4
    i = (long long)gridDim.x * full + (long long)blockIdx.x * rest + (threadIdx.x - full);
  }
  out[i] = in[i + offset];
}
