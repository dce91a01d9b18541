// Solution of puzzles/02-aligned-offset.md: lane k takes element base + k. The load
// window starts `offset` = 8 floats (one sector) later, still on a sector boundary.
__global__ void offset_copy(const float* in, float* out, int offset) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + offset];
}
