// A student's reduction that forgot the barrier inside the loop.
__global__ void reduce(const int* in, int* out) {
  __shared__ int sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
