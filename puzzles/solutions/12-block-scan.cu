// Solution of puzzles/12-block-scan.md: Hillis and Steele. The block's values go into
// shared memory once; in the step of distance d every thread from d on adds the value d
// places before its own. Steps alternate between the two halves of the shared array, so a
// step reads only the previous step's values: 8 steps for 256, one barrier each, plus the
// one after the load.
__global__ void scan(const int* in, int* out) {
  __shared__ int buf[512];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  buf[tid] = in[i];
  __syncthreads();
  unsigned src = 0;
  for (unsigned d = 1; d < 256; d *= 2) {
    int v = buf[src + tid];
    if (tid >= d) {
      v += buf[src + tid - d];
    }
    buf[256 - src + tid] = v;
    src = 256 - src;
    __syncthreads();
  }
  out[i] = buf[src + tid];
}
